# etcd.sh: this control-plane node's etcd member across its life.

# Nothing on this node wipes or removes its etcd member when it stops or reboots: the termination watcher
# (units/etcd-lifecycle.service, from the control-plane tools) handles the member when Auto Scaling
# terminates the instance.
install_etcd_lifecycle() {
  install_units
  systemctl enable --now etcd-lifecycle.service
}
