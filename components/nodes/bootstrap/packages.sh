# packages.sh: containerd, the tools kubeadm's preflight requires, and kubelet, kubeadm and kubectl pinned to
# the cluster's Kubernetes release.

# apt_get ARGS...: apt-get that waits for the dpkg lock (Ubuntu's first-boot unattended-upgrades holds it)
# and retries what fails anyway (a mirror that does not answer).
apt_get() {
  retry apt-get -o DPkg::Lock::Timeout=600 -q "$@"
}

# dpkg_configure_pending: finishes what an interrupted dpkg left (a node that rebooted or lost its bootstrap
# mid-install), which apt-get refuses to go on from ("dpkg was interrupted, you must manually run 'dpkg
# --configure -a'"). dpkg has no lock timeout of its own: 14 tries wait about ten minutes in all, as apt-get's
# DPkg::Lock::Timeout does, for the lock first-boot unattended-upgrades holds.
dpkg_configure_pending() {
  BOOTSTRAP_TRIES=14 retry dpkg --configure -a
}

install_packages() {
  local minor="${KUBERNETES_VERSION%.*}" key
  # kubeadm's preflight (cmd/kubeadm/app/preflight/checks_linux.go) requires conntrack (before 1.32), ip,
  # iptables, mount and nsenter, and warns without ebtables, ethtool, socat, tc and touch.
  local preflight=(conntrack iproute2 iptables mount util-linux ebtables ethtool socat coreutils)
  export DEBIAN_FRONTEND=noninteractive
  dpkg_configure_pending
  apt_get update
  # python3-cryptography: the control plane reads kubelets' certificate requests with it (kubelet-serving.sh).
  apt_get install -y apt-transport-https ca-certificates curl gpg containerd python3-cryptography "${preflight[@]}"
  mkdir -p "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings"
  key=$(retry curl -fsSL --max-time 30 "https://pkgs.k8s.io/core:/stable:/v$minor/deb/Release.key")
  gpg --dearmor --yes -o "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings/kubernetes.gpg" <<<"$key"
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" |
    write_file /etc/apt/sources.list.d/kubernetes.list
  apt_get update
  # cri-tools (crictl), from the same repository: kubeadm's preflight requires crictl before 1.31.
  apt_get install -y "kubelet=$KUBERNETES_VERSION-*" "kubeadm=$KUBERNETES_VERSION-*" "kubectl=$KUBERNETES_VERSION-*" cri-tools
  retry apt-mark -o DPkg::Lock::Timeout=600 hold kubelet kubeadm kubectl containerd
  retry snap install aws-cli --classic
}
