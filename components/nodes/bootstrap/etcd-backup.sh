# etcd-backup.sh: etcd snapshots to the cluster's backup bucket (BACKUP_BUCKET), and the restore of the newest
# one when the init record says the cluster exists but neither a member nor a member's volume survives.
# The etcd-backup timer (units/etcd-backup.timer) runs etcd_backup on every control-plane node; only the
# leader's snapshot is uploaded.

# etcd_snapshot_save ENDPOINT FILE: a snapshot of the member at ENDPOINT, verified before it counts.
etcd_snapshot_save() {
  etcdctl_at "$1" snapshot save "$2" >/dev/null
  ETCDCTL_API=3 etcdctl snapshot status "$2" -w simple >/dev/null
}

# etcd_snapshot_restore FILE DATA_DIR PEER_URL: a one-member data directory from FILE, its member at
# PEER_URL; DATA_DIR must not exist yet.
etcd_snapshot_restore() {
  local name
  name=$(hostname -s)
  ETCDCTL_API=3 etcdctl snapshot restore "$1" --data-dir "$2" --name "$name" \
    --initial-cluster "$name=$3" --initial-advertise-peer-urls "$3" >/dev/null
}

# etcd_is_leader ENDPOINT: whether the member at ENDPOINT leads the cluster.
etcd_is_leader() {
  local leader
  IFS=', ' read -r _ _ _ _ _ leader _ < <(etcdctl_at "$1" endpoint status -w simple)
  [ "$leader" = true ]
}

# etcd_backup: the leader saves, verifies and uploads a snapshot (server-side encrypted, named by time).
etcd_backup() {
  if ! etcd_is_leader "$ETCD_LOCAL"; then return 0; fi
  local file key
  file=$(mktemp -d)/snapshot.db
  etcd_snapshot_save "$ETCD_LOCAL" "$file"
  key="etcd/$(date -u +%Y%m%dT%H%M%SZ).db"
  aws s3 cp --region "$REGION" --only-show-errors --sse aws:kms "$file" "s3://$BACKUP_BUCKET/$key"
  rm -rf "$(dirname "$file")"
  log "uploaded etcd snapshot $key"
}

# etcd_newest_snapshot: the key of the newest snapshot in the bucket (by LastModified), or nothing. The CLI
# pages the listing (1,000 keys a page) and, in text output, applies --query to each page: every page prints
# its rows, and the newest is chosen over all of them here.
etcd_newest_snapshot() {
  retry aws s3api list-objects-v2 --region "$REGION" --bucket "$BACKUP_BUCKET" --prefix etcd/ \
    --query 'Contents[].[LastModified, Key]' --output text |
    awk -F '\t' 'NF == 2' | sort | tail -n 1 | cut -f 2
}

# kubeadm_restore (join_mode's restore; with the bootstrap's kubeadm functions): the newest snapshot into
# this member's (empty) data directory, then kubeadm init on it as on a rejoin.
kubeadm_restore() {
  local key file
  key=$(etcd_newest_snapshot)
  log "no member survives: restoring the cluster from $key"
  file=$(mktemp)
  retry aws s3 cp --region "$REGION" --only-show-errors "s3://$BACKUP_BUCKET/$key" "$file"
  etcd_snapshot_restore "$file" "${BOOTSTRAP_ROOT:-}/var/lib/etcd/data" "$(etcd_own_peer_url)"
  kubeadm_rejoin
}

# install_backup_timer MINUTES: the timer at the configured interval (a drop-in over the unit's default).
install_backup_timer() {
  printf '[Timer]\nOnUnitActiveSec=\nOnUnitActiveSec=%smin\n' "$1" |
    write_file /etc/systemd/system/etcd-backup.timer.d/interval.conf
}
