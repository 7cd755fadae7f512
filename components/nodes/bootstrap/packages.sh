# packages.sh: containerd, the tools kubeadm's preflight requires, and kubelet, kubeadm and kubectl pinned to
# the cluster's Kubernetes release.

# apt_get ARGS...: apt-get that waits for the dpkg lock (Ubuntu's first-boot unattended-upgrades holds it)
# and retries what fails anyway (a mirror that does not answer).
apt_get() {
  retry apt-get -o DPkg::Lock::Timeout=600 -q "$@"
}

install_packages() {
  local minor="${KUBERNETES_VERSION%.*}" key
  # kubeadm's preflight (cmd/kubeadm/app/preflight/checks_linux.go) requires conntrack (before 1.32), ip,
  # iptables, mount and nsenter, and warns without ebtables, ethtool, socat, tc and touch.
  local preflight=(conntrack iproute2 iptables mount util-linux ebtables ethtool socat coreutils)
  export DEBIAN_FRONTEND=noninteractive
  apt_get update
  apt_get install -y apt-transport-https ca-certificates curl gpg containerd "${preflight[@]}"
  mkdir -p "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings"
  key=$(retry curl -fsSL --max-time 30 "https://pkgs.k8s.io/core:/stable:/v$minor/deb/Release.key")
  gpg --dearmor --yes -o "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings/kubernetes.gpg" <<<"$key"
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" |
    write_file /etc/apt/sources.list.d/kubernetes.list
  apt_get update
  apt_get install -y "kubelet=$KUBERNETES_VERSION-*" "kubeadm=$KUBERNETES_VERSION-*" "kubectl=$KUBERNETES_VERSION-*"
  retry apt-mark -o DPkg::Lock::Timeout=600 hold kubelet kubeadm kubectl containerd
  retry snap install aws-cli --classic
}
