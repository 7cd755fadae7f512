# etcd.sh: this control-plane node's etcd member across its life.

# Before this control-plane node shuts down (an instance refresh replacing it), kubeadm-leave.service (installed
# by user data, systemdUnits.ts) leaves etcd, so the cluster keeps quorum while its replacement joins. Enabled
# only once the node has joined.
enable_etcd_leave() {
  systemctl enable --now kubeadm-leave.service
}
