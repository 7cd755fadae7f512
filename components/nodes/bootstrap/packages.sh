# packages.sh: containerd, and kubelet, kubeadm and kubectl pinned to the cluster's Kubernetes release.

install_packages() {
  local minor="${KUBERNETES_VERSION%.*}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q apt-transport-https ca-certificates curl gpg containerd
  mkdir -p "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings"
  curl -fsSL "https://pkgs.k8s.io/core:/stable:/v$minor/deb/Release.key" |
    gpg --dearmor --yes -o "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings/kubernetes.gpg"
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" |
    write_file /etc/apt/sources.list.d/kubernetes.list
  apt-get update -q
  apt-get install -y -q "kubelet=$KUBERNETES_VERSION-*" "kubeadm=$KUBERNETES_VERSION-*" "kubectl=$KUBERNETES_VERSION-*"
  apt-mark hold kubelet kubeadm kubectl containerd
  snap install aws-cli --classic
  export PATH="$PATH:/snap/bin"
}
