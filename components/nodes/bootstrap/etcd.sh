# etcd.sh: this control-plane node's etcd member across its life; the work is in the control-plane tools.

# Before kubeadm: the member's own EBS volume at /var/lib/etcd (etcd's data directory is /var/lib/etcd/data on
# it); a removed member's data on it is set aside, and the volume is tagged by what it holds (member or
# joining) before the node waits for anything; the member's name is pointed at this instance, on every path
# (init, join, rejoin, restore) before etcd starts. etcd itself runs in kubeadm's static pod, and the tools
# take etcdctl and etcdutl from its image (etcd-backup.sh).
prepare_etcd() {
  etcd_volume_mount /var/lib/etcd
  etcd_removed_data_aside /var/lib/etcd
  etcd_volume_mark_contents
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
  systemctl enable --now etcd-lifecycle.service etcd-backup.timer etcd-name.timer
}
