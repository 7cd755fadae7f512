# etcd.sh: this control-plane node's etcd member across its life; the work is in the control-plane tools.

# Before kubeadm: etcdctl on the host (etcd itself runs in kubeadm's static pod) for the tools, the
# member's own EBS volume at /var/lib/etcd (etcd's data directory is /var/lib/etcd/data on it), and the
# member's name pointed at this instance, on every path (init, join, rejoin, restore) before etcd starts.
prepare_etcd() {
  DEBIAN_FRONTEND=noninteractive apt_get install -y etcd-client
  etcd_volume_mount /var/lib/etcd
  etcd_dns_claim
}

# After kubeadm: the member's peer URL becomes its name; members whose instances are gone leave; a cluster
# created before the init record existed gets it; the termination watcher and the backup timer start.
# Nothing on this node wipes or removes its member when it stops or reboots: only the watcher handles the
# member, when Auto Scaling terminates the instance.
settle_etcd() {
  etcd_member_settle
  etcd_remove_departed
  init_record_ensure
  install_units
  install_backup_timer "$BACKUP_INTERVAL_MINUTES"
  systemctl enable --now etcd-lifecycle.service etcd-backup.timer
}
