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

# etcd_volumes_in_use: how many of the cluster's member volumes are attached (this node's among them).
etcd_volumes_in_use() {
  retry aws ec2 describe-volumes --region "$REGION" --filters "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    "Name=tag-key,Values=cilium-cluster/etcd-member" Name=status,Values=in-use --query 'length(Volumes)' --output text
}

# cluster_state: "RECORD ETCD_DATA SNAPSHOT" for join_mode. SNAPSHOT is yes only when a restore is the way
# back: the record exists, this node has no member's data, no other member's volume is attached anywhere,
# and the bucket holds a snapshot.
cluster_state() {
  local record data snapshot=no
  record=$(init_record_exists) || return 1
  data=$(etcd_data_present)
  if [ "$record" = yes ] && [ "$data" = no ] && [ "$(etcd_volumes_in_use)" -le 1 ] && [ -n "$(etcd_newest_snapshot)" ]; then
    snapshot=yes
  fi
  echo "$record $data $snapshot"
}
