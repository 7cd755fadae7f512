# runtime.sh: containerd with systemd cgroups, as the kubelet's cgroupDriver expects.

configure_containerd() {
  containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/' | write_file /etc/containerd/config.toml
  systemctl restart containerd
}
