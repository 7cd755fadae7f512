# etcd.sh: this control-plane node's etcd member. kubeadm keeps it, stacked on the root volume as Cluster
# API's kubeadm control plane keeps it: `kubeadm join --control-plane` adds the member (a learner, then
# promoted) and waits for etcd to be healthy with it; `kubeadm reset` removes it. What kubeadm leaves to the
# caller is here: members whose instances are gone leave before a join (kubeadm's check-etcd phase needs
# every voting member to answer), the leader's snapshots go to the backup bucket, and a cluster that lost
# every member starts again from a snapshot (etcd_restore).

# etcd's own tools are those of the etcd image kubeadm runs (registry.k8s.io/etcd holds etcdctl and etcdutl
# in /usr/local/bin), copied out of it: the tools always match the member they talk to.

# etcd_image: the etcd image kubeadm runs: its static pod's, or before kubeadm wrote it (a joining node),
# the one kubeadm uses for this Kubernetes release (the ClusterConfiguration names no other).
etcd_image() {
  local manifest="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/manifests/etcd.yaml" image
  if [ -f "$manifest" ]; then
    image=$(sed -n 's/^ *image: *//p' "$manifest" | head -n 1)
  else
    image=$(kubeadm config images list --kubernetes-version "v$KUBERNETES_VERSION" | grep '/etcd:' || true)
  fi
  if [ -z "$image" ]; then
    log "cannot tell which etcd image kubeadm runs"
    return 1
  fi
  echo "$image"
}

# etcd_tools_install IMAGE DIR: etcdctl and etcdutl copied out of IMAGE (in the kubelet's image store,
# mounted read-only with containerd's ctr: the image has no shell to copy with) into DIR. The image is
# pulled only when the store lacks it. Two callers at once (the bootstrap, a timer) each copy to their own
# directory; the first renamed into place wins.
etcd_tools_install() {
  local mnt copy="$2.$$" status=0 tool
  if [ -z "$(ctr -n k8s.io images ls -q "name==$1" 2>/dev/null)" ]; then
    retry ctr -n k8s.io images pull "$1" >/dev/null || return 1
  fi
  mnt=$(mktemp -d)
  if ! ctr -n k8s.io images mount "$1" "$mnt" >/dev/null; then
    rmdir "$mnt"
    return 1
  fi
  mkdir -p "$copy"
  for tool in etcdctl etcdutl; do cp "$mnt/usr/local/bin/$tool" "$copy/" || status=1; done
  ctr -n k8s.io images unmount --rm "$mnt" >/dev/null || status=1
  rmdir "$mnt" || true
  if [ "$status" -eq 0 ] && ! mv -T "$copy" "$2" 2>/dev/null && [ ! -x "$2/etcdctl" ]; then status=1; fi
  rm -rf "$copy"
  if [ "$status" -ne 0 ]; then
    log "cannot copy etcd's tools out of $1"
    return 1
  fi
}

# etcd_tools_dir: where etcdctl and etcdutl are: ETCD_TOOLS_DIR when set (tests), else the tools of the etcd
# image kubeadm runs, installed on first use (again after an upgrade changes the image).
etcd_tools_dir() {
  if [ -n "${ETCD_TOOLS_DIR:-}" ]; then
    echo "$ETCD_TOOLS_DIR"
    return 0
  fi
  local image dir
  image=$(etcd_image) || return 1
  dir="${BOOTSTRAP_ROOT:-}$TOOLS_DIR/etcd/${image##*:}"
  if [ ! -x "$dir/etcdctl" ]; then etcd_tools_install "$image" "$dir" || return 1; fi
  echo "$dir"
}

# etcdctl_at ENDPOINTS ARGS...: etcdctl against those comma-separated client URLs, with the health-check
# client certificate kubeadm issues from the etcd CA; each call bounded by ETCD_COMMAND_SECONDS.
etcdctl_at() {
  local dir pki="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki/etcd"
  dir=$(etcd_tools_dir) || return 1
  "$dir/etcdctl" --endpoints="$1" --cacert="$pki/ca.crt" --cert="$pki/healthcheck-client.crt" \
    --key="$pki/healthcheck-client.key" --dial-timeout=3s --command-timeout="${ETCD_COMMAND_SECONDS}s" "${@:2}"
}

# etcd_client_certificate: the health-check client certificate, issued by kubeadm from the etcd CA the node
# fetched (kubeadm join's own certs phase then uses it as it is), for a joining node to ask the members.
etcd_client_certificate() {
  local pki="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki"
  if [ -e "$pki/etcd/healthcheck-client.crt" ]; then return 0; fi
  kubeadm init phase certs etcd-healthcheck-client --cert-dir "$pki" --kubernetes-version "v$KUBERNETES_VERSION" >/dev/null
}

# etcd_json_rows PROGRAM: etcdctl's JSON output on standard input, one line per row that the Python
# expression PROGRAM yields from `data` (member IDs are 64-bit: no JSON tool that reads numbers as doubles).
etcd_json_rows() {
  python3 -c 'import json, sys
data = json.load(sys.stdin)
for row in eval(sys.argv[1]): print(*row)' "$1"
}

# etcd_control_plane_addresses: the private addresses of the cluster's pending and running control-plane
# instances, this one among them. Fails when EC2 does not answer: an empty answer would look like every
# instance gone.
etcd_control_plane_addresses() {
  local rows
  rows=$(etcd_control_plane_instances) || return 1
  awk '$2 != "" && $2 != "None" { print $2 }' <<<"$rows"
}

# etcd_control_plane_instances: "ID ADDRESS", a line for each pending or running control-plane instance of the
# cluster. Fails when EC2 does not answer.
etcd_control_plane_instances() {
  retry aws ec2 describe-instances --region "$REGION" \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=tag:$CONTROL_PLANE_TAG,Values=1" \
    "Name=instance-state-name,Values=pending,running" \
    --query 'Reservations[].Instances[].[InstanceId,PrivateIpAddress]' --output text
}

# etcd_remove_members departed|self: removes, through the members at the other pending and running
# control-plane instances, every member whose peer URL's address is
#   departed: no such instance's (the instance died, or stopped: Auto Scaling replaces a stopped one), before
#             this node joins: kubeadm's check-etcd phase needs every started voter to answer, and a learner
#             left by an abandoned join would block this one (etcd takes one learner at a time);
#   self:     this node's (a join that stopped half-way, or the instance terminating), checked gone after.
# kubeadm's peer URLs are addresses (https://IP:PORT). Nothing to do when no other control-plane instance
# runs (the first node). Fails when etcd does not answer or refuses a removal (no quorum): the caller tries
# again, and never goes on as if the member were gone.
etcd_remove_members() {
  local own found addresses=" " address endpoints="" list id peer
  own=$(imds local-ipv4)
  found=$(etcd_control_plane_addresses) || return 1
  for address in $found; do
    addresses+="$address "
    if [ "$address" != "$own" ]; then endpoints+="${endpoints:+,}https://$address:$ETCD_CLIENT_PORT"; fi
  done
  if [ -z "$endpoints" ]; then return 0; fi
  etcd_client_certificate
  list=$(etcdctl_at "$endpoints" member list -w json --hex) || return 1
  while read -r id peer; do
    address=${peer#*://}
    address=${address%:*}
    case "$1" in
    departed) if [[ $addresses == *" $address "* ]]; then continue; fi ;;
    self) if [ "$address" != "$own" ]; then continue; fi ;;
    esac
    log "etcd member $id at $peer ($1): removing it"
    etcdctl_at "$endpoints" member remove "$id" >/dev/null || return 1
  done < <(etcd_json_rows '((m["ID"], m["peerURLs"][0]) for m in data["members"])' <<<"$list")
  if [ "$1" = self ]; then
    list=$(etcdctl_at "$endpoints" member list -w json --hex) || return 1
    if etcd_json_rows '((m["peerURLs"][0],) for m in data["members"])' <<<"$list" | grep -q "://$own:"; then
      log "this node's etcd member is still listed"
      return 1
    fi
  fi
}

# reconcile_etcd_members: the members reconciled against the control-plane instances, as Cluster API's kubeadm
# control plane reconciles them against its machines (reconcileEtcdMembers; the remediation of a machine whose
# member is unhealthy), run every minute on each control-plane node (etcd-members.timer) and acting on the
# leader only: one actor, and one that has quorum. A voting member that does not answer (its status, naming a
# leader) is removed
#   at once when its address is no pending or running control-plane instance's (the instance died before its
#   termination hook could remove it: a dead voter, which with two voters would cost quorum at the next loss);
#   when its instance runs, once it has not answered at any look for ETCD_UNHEALTHY_MINUTES (its etcd dead:
#   kubeadm's check-etcd would refuse every join), one such member a run and none while a learner joins (as
#   KCP remediates one machine at a time and none while one provisions): its instance is first marked
#   Unhealthy in Auto Scaling, which replaces it, then the member is removed.
# A member that answers is never removed here (an instance EC2 does not list yet), nor a learner (kubeadm's join
# adds and promotes it; a join that stops removes its own, an abandoned one's goes as departed at the next
# join). Before each removal, quorum is checked: the voters left that answer must be a majority of the voters
# left (KCP's canSafelyRemoveEtcdMember). The record of when a member stopped answering is the leader's own
# (ETCD_UNHEALTHY_DIR): a node that does not lead, or missed a look, forgets it. Fails when this member or AWS
# does not answer, or etcd refuses. ETCD_LOCAL (tests only) is this node's member.
reconcile_etcd_members() {
  local local_endpoint="${ETCD_LOCAL:-https://127.0.0.1:$ETCD_CLIENT_PORT}" leads instances list id peer learner
  local address instance first last now voters=0 answering=0 learners=0 removals=() replaced=no
  local unhealthy="${BOOTSTRAP_ROOT:-}$ETCD_UNHEALTHY_DIR"
  local -A instance_at=() listed=()
  if ! leads=$(etcd_leads "$local_endpoint"); then
    rm -rf "$unhealthy"
    log "this etcd member does not answer with a leader: it cannot reconcile the members"
    return 1
  fi
  if [ "$leads" = no ]; then
    rm -rf "$unhealthy"
    return 0
  fi
  instances=$(etcd_control_plane_instances) || return 1
  while read -r instance address; do
    if [ -n "$address" ] && [ "$address" != None ]; then instance_at[$address]=$instance; fi
  done <<<"$instances"
  # Not --hex: etcdctl 3.6 writes that JSON by hand without isLearner (ctlv3/command/printer_json.go,
  # printMemberListWithHexJSON). The IDs come as JSON numbers, which Python reads exactly, in hex.
  list=$(etcdctl_at "$local_endpoint" member list -w json) || return 1
  mkdir -p "$unhealthy"
  now=$(date +%s)
  while read -r id peer learner; do
    listed[$id]=1
    if [ "$learner" = True ]; then
      learners=$((learners + 1))
      continue
    fi
    voters=$((voters + 1))
    address=${peer#*://}
    address=${address%:*}
    # kubeadm's members serve clients at their address on the client port.
    if etcd_leads "https://$address:$ETCD_CLIENT_PORT" >/dev/null 2>&1; then
      answering=$((answering + 1))
      rm -f "$unhealthy/$id"
      continue
    fi
    instance=${instance_at[$address]:-}
    if [ -z "$instance" ]; then
      removals+=("$id $peer -")
      continue
    fi
    # "FIRST LAST": when this leader first and last found it not answering; a gap of more than two looks
    # (this node did not lead, or its runs failed) starts the bound again.
    read -r first last 2>/dev/null <"$unhealthy/$id" || first=""
    if [ -z "$first" ] || [ $((now - last)) -gt 180 ]; then first=$now; fi
    echo "$first $now" >"$unhealthy/$id"
    log "etcd member $id at $peer (instance $instance) has not answered for $((now - first))s"
    if [ $((now - first)) -ge $((ETCD_UNHEALTHY_MINUTES * 60)) ]; then removals+=("$id $peer $instance"); fi
  done < <(etcd_json_rows '((format(m["ID"], "x"), m["peerURLs"][0], m.get("isLearner", False)) for m in data["members"])' <<<"$list")
  for first in "$unhealthy"/*; do
    if [ -e "$first" ] && [ -z "${listed[${first##*/}]:-}" ]; then rm -f "$first"; fi
  done
  for row in "${removals[@]}"; do
    read -r id peer instance <<<"$row"
    if [ "$answering" -lt $(((voters - 1) / 2 + 1)) ]; then
      log "etcd member $id at $peer does not answer, but removing it would leave $answering answering of $((voters - 1)) voters: keeping it"
      return 1
    fi
    if [ "$instance" = - ]; then
      log "etcd member $id at $peer: no control-plane instance runs there: removing it"
    else
      if [ "$learners" -gt 0 ] || [ "$replaced" = yes ]; then continue; fi
      log "etcd member $id at $peer: not answering for ${ETCD_UNHEALTHY_MINUTES} minutes: marking instance $instance unhealthy, then removing the member"
      retry aws autoscaling set-instance-health --region "$REGION" --instance-id "$instance" \
        --health-status Unhealthy --no-should-respect-grace-period || return 1
      replaced=yes
    fi
    etcdctl_at "$local_endpoint" member remove "$id" >/dev/null || return 1
    voters=$((voters - 1))
    rm -f "$unhealthy/$id"
  done
}

# etcd_leads ENDPOINT: "yes" when the member at ENDPOINT leads the cluster, else "no", from `endpoint
# status`'s JSON (its columns in simple output change between releases). Fails when the member does not answer.
etcd_leads() {
  local status member leader
  status=$(etcdctl_at "$1" endpoint status -w json) || return 1
  # A member without a leader (no quorum) has no "leader" in its status: that is a failure, not "no".
  read -r member leader < <(etcd_json_rows '[(data[0]["Status"]["header"]["member_id"], data[0]["Status"].get("leader", ""))]' <<<"$status")
  if [ -z "$member" ] || [ -z "$leader" ]; then
    log "etcd at $1 names no leader"
    return 1
  fi
  if [ "$member" = "$leader" ]; then echo yes; else echo no; fi
}

# etcd_backup: on the leader (the timer runs on every control-plane node), a snapshot of this node's member
# (ETCD_LOCAL, tests only) saved, verified by etcdutl, and uploaded (server-side encrypted) named by time,
# then under the fixed key LATEST_SNAPSHOT_KEY, whose current version the bucket keeps whatever its age
# (snapshots named by time expire after the retention period); then counted in CloudWatch, which alarms
# when the count stops. Fails when this
# member cannot say whether it leads, so a member that never answers shows as a failed unit.
etcd_backup() {
  local endpoint="${ETCD_LOCAL:-https://127.0.0.1:$ETCD_CLIENT_PORT}" leads dir file key
  leads=$(etcd_leads "$endpoint") || return 1
  if [ "$leads" = no ]; then
    log "this etcd member does not lead: no snapshot from here"
    return 0
  fi
  dir=$(mktemp -d)
  # shellcheck disable=SC2064 # the directory of this run, now
  trap "rm -rf '$dir'" EXIT
  file="$dir/snapshot.db"
  # etcdctl bounds the whole snapshot by its command timeout: here the backups' interval, not a status call's.
  # shellcheck disable=SC2004 # with its $, the script's header defines the variable (shellHeader.ts)
  ETCD_COMMAND_SECONDS=$(($BACKUP_INTERVAL_MINUTES * 60)) etcdctl_at "$endpoint" snapshot save "$file" >/dev/null
  "$(etcd_tools_dir)/etcdutl" snapshot status "$file" -w json >/dev/null
  key="$SNAPSHOT_PREFIX$(date -u +%Y%m%dT%H%M%SZ).db"
  # No --sse: the bucket's default encryption puts them under the cluster's key (`--sse aws:kms` alone would
  # mean S3's AWS-managed key, which every role with S3 read can open; the bucket policy refuses it).
  aws s3 cp --region "$REGION" --only-show-errors "$file" "s3://$BACKUP_BUCKET/$key"
  aws s3 cp --region "$REGION" --only-show-errors "$file" "s3://$BACKUP_BUCKET/$LATEST_SNAPSHOT_KEY"
  # What the backups' alarm counts (backupAlarm.ts SNAPSHOT_METRIC).
  aws cloudwatch put-metric-data --region "$REGION" --namespace "$SNAPSHOT_METRIC_NAMESPACE_PREFIX/$CLUSTER_NAME" \
    --metric-name "$SNAPSHOT_METRIC_NAME" --dimensions "$SNAPSHOT_METRIC_DIMENSION=$CLUSTER_NAME" --value 1
  log "uploaded etcd snapshot $key (and as $LATEST_SNAPSHOT_KEY)"
}

# latest_snapshot_exists: "yes" when the backup bucket holds LATEST_SNAPSHOT_KEY, from a listing of that key
# alone (the control-plane role may list no other prefix). Fails when S3 does not answer, which is never
# taken for "no": that would create the cluster again empty.
latest_snapshot_exists() {
  local keys
  keys=$(retry aws s3api list-objects-v2 --region "$REGION" --bucket "$BACKUP_BUCKET" --prefix "$LATEST_SNAPSHOT_KEY" \
    --query 'Contents[].Key' --output text) || return 1
  if [[ " $keys " == *[[:space:]]"$LATEST_SNAPSHOT_KEY"[[:space:]]* ]]; then echo yes; else echo no; fi
}

# etcd_sole_member: "yes" when this node's member is the only one its etcd lists, else "no". Fails when it
# does not answer.
etcd_sole_member() {
  local list
  list=$(etcdctl_at "https://127.0.0.1:$ETCD_CLIENT_PORT" member list -w json --hex) || return 1
  if [ "$(etcd_json_rows '((m["ID"],) for m in data["members"])' <<<"$list" | wc -l)" -eq 1 ]; then
    echo yes
  else
    echo no
  fi
}

# etcd_restore KEY: the backup bucket's snapshot KEY (the latest, or one a restore request named), verified by
# etcdutl, restored into /var/lib/etcd as a one-member cluster of this node (named after its Node, at its
# private address, as kubeadm init's manifest names it), for kubeadm init to start etcd on. --bump-revision
# and --mark-compacted are etcd's recovery procedure for Kubernetes: every watcher of the API sees a revision
# above any it saw, and lists again.
etcd_restore() {
  local key=$1 dir tools name ip status=0 data="${BOOTSTRAP_ROOT:-}/var/lib/etcd"
  tools=$(etcd_tools_dir) || return 1
  name=$(node_name) || return 1
  ip=$(imds local-ipv4) || return 1
  dir=$(mktemp -d)
  retry aws s3 cp --region "$REGION" --only-show-errors "s3://$BACKUP_BUCKET/$key" "$dir/snapshot.db" &&
    "$tools/etcdutl" snapshot status "$dir/snapshot.db" -w json >/dev/null &&
    rm -rf "$data" &&
    "$tools/etcdutl" snapshot restore "$dir/snapshot.db" --data-dir "$data" --name "$name" \
      --initial-cluster "$name=https://$ip:$ETCD_PEER_PORT" --initial-advertise-peer-urls "https://$ip:$ETCD_PEER_PORT" \
      --bump-revision 1000000000 --mark-compacted >/dev/null || status=$?
  rm -rf "$dir"
  if [ "$status" -ne 0 ]; then
    log "cannot restore s3://$BACKUP_BUCKET/$key"
    rm -rf "$data"
    return "$status"
  fi
  log "restored s3://$BACKUP_BUCKET/$key into $data"
}
