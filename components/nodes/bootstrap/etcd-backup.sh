# etcd-backup.sh: etcd snapshots to the cluster's backup bucket (BACKUP_BUCKET), and the restore of the newest
# one when the init record says the cluster exists but neither a member nor a member's volume survives.
# The etcd-backup timer (units/etcd-backup.timer) runs etcd_backup on every control-plane node; only the
# leader's snapshot is uploaded.

# etcd's own tools are those of the etcd image kubeadm runs (registry.k8s.io/etcd holds etcdctl in
# /usr/local/bin, and etcdutl in the images that ship it), copied out of it: a snapshot of etcd 3.5 or 3.6 is
# read and restored by its own release.

# etcd_image: the etcd image kubeadm runs: its static pod's; before kubeadm wrote it (a restore), the one
# kubeadm uses for this Kubernetes release (the ClusterConfiguration names no other repository or tag).
etcd_image() {
  local manifest="${BOOTSTRAP_ROOT:-}/etc/kubernetes/manifests/etcd.yaml" image
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

# etcd_tools_install IMAGE DIR: etcdctl, and etcdutl when the image has it, copied out of IMAGE (in the
# kubelet's image store, mounted read-only with containerd's ctr: the image has no shell to copy with) into
# DIR. The image is pulled only when the store lacks it: one kubeadm and containerd pulled (through a
# registry mirror, say) is used as it is. Two callers at once (the bootstrap, a timer) each copy to their
# own directory; the first renamed into place wins.
etcd_tools_install() {
  local mnt copy="$2.$$" status=0
  if [ -z "$(ctr -n k8s.io images ls -q "name==$1" 2>/dev/null)" ]; then
    retry ctr -n k8s.io images pull "$1" >/dev/null || return 1
  fi
  mnt=$(mktemp -d)
  if ! ctr -n k8s.io images mount "$1" "$mnt" >/dev/null; then
    rmdir "$mnt"
    return 1
  fi
  mkdir -p "$copy"
  cp "$mnt/usr/local/bin/etcdctl" "$copy/" || status=1
  if [ -e "$mnt/usr/local/bin/etcdutl" ]; then cp "$mnt/usr/local/bin/etcdutl" "$copy/" || status=1; fi
  ctr -n k8s.io images unmount --rm "$mnt" >/dev/null || status=1
  rmdir "$mnt" || true
  if [ "$status" -eq 0 ] && ! mv -T "$copy" "$2" 2>/dev/null && [ ! -x "$2/etcdctl" ]; then status=1; fi
  rm -rf "$copy"
  if [ "$status" -ne 0 ]; then
    log "cannot copy etcd's tools out of $1"
    return 1
  fi
  log "etcd tools of $1 in $2"
}

# etcd_tools_dir: where etcdctl and etcdutl are: ETCD_TOOLS_DIR when set (tests: Debian's), else the tools of
# the etcd image kubeadm runs, installed on first use (again after an upgrade changes the image).
etcd_tools_dir() {
  if [ -n "${ETCD_TOOLS_DIR:-}" ]; then
    echo "$ETCD_TOOLS_DIR"
    return 0
  fi
  local image dir
  image=$(etcd_image) || return 1
  dir="${BOOTSTRAP_ROOT:-}/usr/local/lib/cilium-cluster/etcd/${image##*:}"
  if [ ! -x "$dir/etcdctl" ]; then etcd_tools_install "$image" "$dir" || return 1; fi
  echo "$dir"
}

# etcdctl ARGS...: in the control-plane tools, every etcdctl is the one of the etcd image kubeadm runs.
etcdctl() {
  local dir
  dir=$(etcd_tools_dir) || return 1
  "$dir/etcdctl" "$@"
}

# etcd_snapshot_tool: etcdutl, which reads and restores snapshot files from etcd 3.5 on, when the tools have
# it; else etcdctl, whose snapshot status and restore etcd 3.4 and 3.5 still have (deprecated in 3.5, gone in
# 3.6: etcd_snapshot_file fails then, saying so).
etcd_snapshot_tool() {
  local dir
  dir=$(etcd_tools_dir) || return 1
  if [ -x "$dir/etcdutl" ]; then echo "$dir/etcdutl"; else echo "$dir/etcdctl"; fi
}

# etcd_snapshot_file status|restore ARGS...: etcd_snapshot_tool's snapshot status or restore.
etcd_snapshot_file() {
  local tool
  tool=$(etcd_snapshot_tool) || return 1
  if ! ETCDCTL_API=3 "$tool" snapshot "$@" >/dev/null; then
    if [ "${tool##*/}" = etcdctl ]; then
      log "snapshot $1 failed: the etcd image has no etcdutl, and its etcdctl cannot $1 snapshots (etcd 3.6 moved that to etcdutl)"
    fi
    return 1
  fi
}

# etcd_snapshot_save ENDPOINT FILE: a snapshot of the member at ENDPOINT, verified before it counts.
etcd_snapshot_save() {
  etcdctl_at "$1" snapshot save "$2" >/dev/null || return 1
  etcd_snapshot_file status "$2" -w simple
}

# etcd_snapshot_restore FILE DATA_DIR PEER_URL: a one-member data directory from FILE, its member at
# PEER_URL; DATA_DIR must not exist yet.
etcd_snapshot_restore() {
  local name
  name=$(hostname -s)
  etcd_snapshot_file restore "$1" --data-dir "$2" --name "$name" \
    --initial-cluster "$name=$3" --initial-advertise-peer-urls "$3"
}

# etcd_is_leader ENDPOINT: whether the member at ENDPOINT leads the cluster.
etcd_is_leader() {
  local leader
  IFS=', ' read -r _ _ _ _ _ leader _ < <(etcdctl_at "$1" endpoint status -w simple)
  [ "$leader" = true ]
}

# etcd_latest_key: the fixed key every upload also writes (backupBucket.ts LATEST_SNAPSHOT_KEY). The bucket
# keeps its current version whatever its age; snapshots named by time expire after the retention period.
etcd_latest_key() { echo latest/etcd.db; }

# etcd_backup: the leader saves, verifies and uploads a snapshot (server-side encrypted, named by time), then
# the same file under the fixed key.
etcd_backup() {
  if ! etcd_is_leader "$ETCD_LOCAL"; then return 0; fi
  local file key
  file=$(mktemp -d)/snapshot.db
  etcd_snapshot_save "$ETCD_LOCAL" "$file"
  key="etcd/$(date -u +%Y%m%dT%H%M%SZ).db"
  aws s3 cp --region "$REGION" --only-show-errors --sse aws:kms "$file" "s3://$BACKUP_BUCKET/$key"
  aws s3 cp --region "$REGION" --only-show-errors --sse aws:kms "$file" "s3://$BACKUP_BUCKET/$(etcd_latest_key)"
  rm -rf "$(dirname "$file")"
  log "uploaded etcd snapshot $key (and as $(etcd_latest_key))"
}

# etcd_newest_snapshot: the key of the newest snapshot in the bucket (by LastModified), among those named by
# time and the fixed key, or nothing. The CLI pages each listing (1,000 keys a page) and, in text output,
# applies --query to each page: every page prints its rows, and the newest is chosen over all of them here.
# Fails when a listing fails: half a listing could name an older snapshot.
etcd_newest_snapshot() {
  local prefix
  for prefix in etcd/ "$(etcd_latest_key)"; do
    retry aws s3api list-objects-v2 --region "$REGION" --bucket "$BACKUP_BUCKET" --prefix "$prefix" \
      --query 'Contents[].[LastModified, Key]' --output text || exit 1
  done | awk -F '\t' 'NF == 2' | sort | tail -n 1 | cut -f 2
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
