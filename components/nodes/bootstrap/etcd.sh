# etcd.sh: this control-plane node's etcd member across its life.

# Nothing on this node wipes or removes its etcd member when it stops or reboots: the termination watcher
# (units/etcd-lifecycle.service, from the control-plane tools) handles the member when Auto Scaling
# terminates the instance.
install_etcd_lifecycle() {
  install_units
  systemctl enable --now etcd-lifecycle.service
}

# The member's own EBS volume at /var/lib/etcd (etcd's data directory is /var/lib/etcd/data on it).
mount_etcd_volume() { etcd_volume_mount /var/lib/etcd; }

# settle_etcd_member: the member's peer URL follows this instance.
settle_etcd_member() { etcd_member_settle; }
