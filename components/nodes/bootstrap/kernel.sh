# kernel.sh: the modules and sysctls containerd and Cilium need.

configure_kernel() {
  write_file /etc/modules-load.d/cilium-cluster.conf <<'EOF'
overlay
br_netfilter
EOF
  modprobe overlay
  modprobe br_netfilter
  # Cilium routes between its interfaces: forwarding on, strict reverse-path filtering off.
  write_file /etc/sysctl.d/99-zzz-cilium-cluster.conf <<'EOF'
net.ipv4.ip_forward = 1
net.ipv4.conf.all.rp_filter = 0
net.ipv4.conf.default.rp_filter = 0
net.bridge.bridge-nf-call-iptables = 1
fs.inotify.max_user_instances = 8192
fs.inotify.max_user_watches = 524288
EOF
  sysctl --system >/dev/null
}
