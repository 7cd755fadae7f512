# etcd.sh: this control-plane node's etcd member across its life.

# Before this control-plane node shuts down (an instance refresh replacing it), it leaves etcd, so the
# cluster keeps quorum while its replacement joins.
install_etcd_leave() {
  write_file /etc/systemd/system/kubeadm-leave.service <<'EOF'
[Unit]
Description=Leave the etcd cluster before shutdown
After=network-online.target containerd.service kubelet.service
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
ExecStop=/usr/bin/kubeadm reset --force
TimeoutStopSec=120

[Install]
WantedBy=multi-user.target
EOF
  systemctl enable --now kubeadm-leave.service
}
