# cluster-state.sh: what a control-plane node knows of the cluster before it joins: whether a cluster was
# ever created (the init record, an SSM parameter only the first node creates), and whether its etcd data
# directory holds a member.

# init_record_owner: the instance that created the init record, or "none". Fails when SSM cannot say
# (never taken for "none": that would create a second cluster).
init_record_owner() {
  local out
  if out=$(aws ssm get-parameter --region "$REGION" --name "$INIT_RECORD" --query Parameter.Value --output text 2>&1); then
    echo "${out%% *}"
  elif [[ $out == *ParameterNotFound* ]]; then
    echo none
  else
    log "cannot read the init record $INIT_RECORD: $out"
    return 1
  fi
}

# init_record_exists: yes when another instance created the record. This instance's own record (its
# bootstrap retried after a kubeadm init that failed before etcd held any data) lets it init again.
init_record_exists() {
  local owner
  owner=$(init_record_owner) || return 1
  if [ "$owner" = none ] || [ "$owner" = "$(imds instance-id)" ]; then echo no; else echo yes; fi
}

# claim_init_record: creates the record without --overwrite, which SSM makes atomic: of two nodes racing,
# one creates it and the other fails, so only one ever runs kubeadm init (or the same one, again).
claim_init_record() {
  if aws ssm put-parameter --region "$REGION" --name "$INIT_RECORD" --type String \
    --value "$(imds instance-id) $(date -u +%Y-%m-%dT%H:%M:%SZ)" >/dev/null; then
    return 0
  fi
  [ "$(init_record_owner)" = "$(imds instance-id)" ]
}

# init_record_ensure: a control-plane node that joined a cluster without the record (one created before the
# record existed) creates it, so that no later node runs kubeadm init beside the running cluster. Of two
# nodes racing, one creates it; the other finds it there.
init_record_ensure() {
  if [ "$(init_record_owner)" != none ]; then return 0; fi
  if claim_init_record || [ "$(init_record_owner)" != none ]; then
    log "the cluster had no init record: created $INIT_RECORD"
    return 0
  fi
  log "cannot create the init record $INIT_RECORD"
  return 1
}

# etcd_data_present: yes when the etcd data directory (on the member's volume) holds a member's data.
etcd_data_present() {
  if [ -d "${BOOTSTRAP_ROOT:-}/var/lib/etcd/data/member" ]; then echo yes; else echo no; fi
}

# The member volumes' state tag (controlPlaneState.ts ETCD_STATE_TAG), set by the nodes, never by the program:
#   member:  the volume holds a member's data (a member joined, rejoined or was restored on it);
#   removed: the termination hook removed the volume's member from etcd (the group was scaled down);
#   joining: the volume holds no member's data (new and empty, or a removed member's data set aside): its
#            node joins, or restores, as a new member.
# A node tags its volume right after mounting it (etcd_volume_mark_contents), before it waits for anything.
# A volume without the tag was never attached, or its member joined before the tag existed.
etcd_state_tag() { echo cilium-cluster/etcd-state; }

# etcd_volume_holds_member STATE TAG: yes when a member volume in EC2 state STATE with state tag TAG ("None"
# when unset) may hold the data of a member still in the cluster. An untagged volume counts while attached:
# a member from before the tag, on its instance (nodes of this bootstrap tag theirs as soon as they mount it).
etcd_volume_holds_member() {
  case "$2" in
  member) echo yes ;;
  removed | joining) echo no ;;
  *) if [ "$1" = in-use ]; then echo yes; else echo no; fi ;;
  esac
}

# etcd_own_volume: "VOLUME_ID STATE_TAG" of the member volume attached to this instance (also from the
# termination watcher, whose environment names no cluster).
etcd_own_volume() {
  retry aws ec2 describe-volumes --region "$REGION" --filters "Name=tag-key,Values=cilium-cluster/etcd-member" \
    "Name=attachment.instance-id,Values=$(imds instance-id)" \
    --query "Volumes[0].[VolumeId, Tags[?Key=='$(etcd_state_tag)'].Value | [0]]" --output text
}

# etcd_volume_mark STATE: sets the state tag of this instance's member volume.
etcd_volume_mark() {
  local volume
  read -r volume _ <<<"$(etcd_own_volume)"
  if [ -z "$volume" ] || [ "$volume" = None ]; then
    log "no etcd volume attached to this instance"
    return 1
  fi
  retry aws ec2 create-tags --region "$REGION" --resources "$volume" --tags "Key=$(etcd_state_tag),Value=$1" >/dev/null ||
    return 1
  log "etcd volume $volume: $(etcd_state_tag)=$1"
}

# etcd_volume_mark_contents: tags this instance's (mounted) member volume by what it holds: member when etcd's
# data directory holds a member's data, joining when it holds none. Without it, a node whose new volume is
# empty waits for the API with its volume untagged and attached, which other nodes must count as a member's
# (etcd_volume_holds_member): with every volume lost, the init zone's node would wait for them and nobody
# would restore.
etcd_volume_mark_contents() {
  if [ "$(etcd_data_present)" = yes ]; then etcd_volume_ensure member; else etcd_volume_ensure joining; fi
}

# etcd_volume_ensure STATE: etcd_volume_mark STATE unless this instance's member volume carries it already.
etcd_volume_ensure() {
  local out tag
  out=$(etcd_own_volume) || return 1
  read -r _ tag <<<"$out"
  if [ "$tag" != "$1" ]; then etcd_volume_mark "$1" || return 1; fi
}

# etcd_removed_data_aside DIR: on a volume whose member was removed, that member's data (DIR/data) is stale:
# it is moved aside on the volume (DIR/removed-<UTC time>) and the volume marked joining, so this node joins
# as a new member. Only the newest copy set aside is kept: older ones (the volume's earlier removals) are
# deleted, so they do not fill the volume. Safe to run again: a joining volume's data is this node's new
# member's.
etcd_removed_data_aside() {
  local volume tag data="${BOOTSTRAP_ROOT:-}$1/data" aside old
  read -r volume tag <<<"$(etcd_own_volume)"
  if [ "$tag" != removed ]; then return 0; fi
  if [ -e "$data" ]; then
    aside="$1/removed-$(date -u +%Y%m%dT%H%M%SZ)"
    mv "$data" "${BOOTSTRAP_ROOT:-}$aside"
    log "etcd volume $volume held a removed member's data: moved to $aside; joining as a new member"
    for old in "${BOOTSTRAP_ROOT:-}$1"/removed-*; do
      if [ "$old" != "${BOOTSTRAP_ROOT:-}$aside" ] && [ -d "$old" ]; then
        rm -rf "$old"
        log "deleted an older removed member's data set aside: ${old#"${BOOTSTRAP_ROOT:-}"}"
      fi
    done
  fi
  etcd_volume_mark joining || return 1
}

# etcd_member_volumes_elsewhere: yes when a member volume not attached to this instance may hold a member's
# data (etcd_volume_holds_member): that member comes back with it, so no snapshot is restored meanwhile.
etcd_member_volumes_elsewhere() {
  local self out volume state attached tag
  self=$(imds instance-id)
  out=$(retry aws ec2 describe-volumes --region "$REGION" --filters "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    "Name=tag-key,Values=cilium-cluster/etcd-member" \
    --query "Volumes[].[VolumeId, State, Attachments[0].InstanceId, Tags[?Key=='$(etcd_state_tag)'].Value | [0]]" \
    --output text) || return 1
  while read -r volume state attached tag; do
    if [ -z "$volume" ] || [ "$volume" = None ] || [ "$attached" = "$self" ]; then continue; fi
    if [ "$(etcd_volume_holds_member "$state" "$tag")" = yes ]; then
      log "etcd volume $volume ($state, $(etcd_state_tag)=$tag) may hold a member's data"
      echo yes
      return 0
    fi
  done <<<"$out"
  echo no
}

# cluster_state: "RECORD ETCD_DATA MEMBER_ELSEWHERE SNAPSHOT" for join_mode. MEMBER_ELSEWHERE and SNAPSHOT are
# looked up only when a restore could follow (the record exists and this node has no member's data), and
# are "no" otherwise; SNAPSHOT only when no member's data survives elsewhere either, nor runs on an old
# instance's root disk (other_control_plane_running).
cluster_state() {
  local record data elsewhere=no others=no snapshot=no newest
  record=$(init_record_exists) || return 1
  data=$(etcd_data_present)
  if [ "$record" = yes ] && [ "$data" = no ]; then
    elsewhere=$(etcd_member_volumes_elsewhere) || return 1
    if [ "$elsewhere" = no ]; then others=$(other_control_plane_running) || return 1; fi
    if [ "$elsewhere" = no ] && [ "$others" = no ]; then
      newest=$(etcd_newest_snapshot) || return 1
      if [ -n "$newest" ]; then snapshot=yes; fi
    fi
  fi
  echo "$record $data $elsewhere $snapshot"
}

# other_control_plane_running: yes when another pending or running control-plane instance of the cluster
# has no member volume attached: a member of a cluster from before the etcd volumes (its data on the root
# disk, which etcd_member_volumes_elsewhere cannot see) during the upgrade. Its cluster lives on: this node
# joins it (waiting for the API) rather than restore a snapshot beside it. Instances with a volume count there.
other_control_plane_running() {
  local self ids attached id
  self=$(imds instance-id)
  ids=$(retry aws ec2 describe-instances --region "$REGION" --filters "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    "Name=tag:k8s.io/role/control-plane,Values=1" "Name=instance-state-name,Values=pending,running" \
    --query 'Reservations[].Instances[].InstanceId' --output text) || return 1
  attached=$(retry aws ec2 describe-volumes --region "$REGION" --filters "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    "Name=tag-key,Values=cilium-cluster/etcd-member" --query 'Volumes[].Attachments[].InstanceId' --output text) || return 1
  attached=" ${attached//[$'\t\n']/ } "
  for id in $ids; do
    if [ "$id" = "$self" ] || [ "$id" = None ] || [[ $attached == *" $id "* ]]; then continue; fi
    log "control-plane instance $id runs without an etcd volume: its member's data is on its root disk"
    echo yes
    return 0
  done
  echo no
}
