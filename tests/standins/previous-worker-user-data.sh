#!/bin/bash
# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.
set -euo pipefail

BOOTSTRAP_CONFIG_HASH='WbhV0rAOpwUrl14rJdgqHkjU5ibC+eTFoCl40xoD0PM='
CLUSTER_NAME='dev.k8s.local'
INSTANCE_GROUP='nodes'
ROLE='node'
INIT_ZONE='us-east-1a'
KUBERNETES_VERSION='1.33.5'
KUBEADM_API='v1beta4'
API_ENDPOINT='network-api-internal-beab6e59.elb.us-east-1.amazonaws.com.mock'
API_CERT_SANS='network-api-internal-beab6e59.elb.us-east-1.amazonaws.com.mock network-api-e0243ecb.elb.us-east-1.amazonaws.com.mock'
API_PORT='443'
REGION='us-east-1'
SECRETS_PREFIX='/cilium-cluster/dev.k8s.local/node/'
NODE_IP_FROM_METADATA='true'
MAX_PODS_FROM_ENI_LIMITS='true'
UNMANAGED_SECONDARY_ENIS='true'
POD_CIDR=''
SERVICE_CIDR='100.64.0.0/13'
KUBE_PROXY='true'

# The body of every node's user data (the nodeup equivalent). The header rendered by userData.ts sets
# the variables used here; nothing below depends on the instance group except through them.
# IMDS_ENDPOINT and BOOTSTRAP_ROOT exist so tests can run this against a fake metadata service and a
# scratch directory; on an instance they are unset.

IMDS="${IMDS_ENDPOINT:-http://169.254.169.254}"
ROOT="${BOOTSTRAP_ROOT:-}"
PKI="$ROOT/etc/kubernetes/pki"
CRI_SOCKET=unix:///run/containerd/containerd.sock

log() { echo "bootstrap: $*" >&2; }

imds_token=""
imds() {
  if [ -z "$imds_token" ]; then
    imds_token=$(curl -sSf --max-time 10 --retry 5 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 300" "$IMDS/latest/api/token")
  fi
  curl -sSf --max-time 10 --retry 5 -H "X-aws-ec2-metadata-token: $imds_token" "$IMDS/latest/meta-data/$1"
}

# write_file PATH [MODE]: standard input to PATH (below ROOT), creating directories. The file has its
# mode before anything is written, so a key is never readable by others, even for a moment.
write_file() {
  local path="$ROOT$1"
  mkdir -p "$(dirname "$path")"
  install -m "${2:-0644}" /dev/null "$path"
  cat >"$path"
}

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

# The name of the interface with the instance's primary MAC address.
primary_interface() {
  local mac="$1" dev
  for dev in "$ROOT"/sys/class/net/*; do
    if [ "$(cat "$dev/address" 2>/dev/null)" = "$mac" ]; then
      basename "$dev"
      return 0
    fi
  done
  return 1
}

configure_networkd() {
  # systemd-networkd must not remove the routes and rules Cilium installs.
  write_file /etc/systemd/networkd.conf.d/40-cilium-foreign-routes.conf <<'EOF'
[Network]
ManageForeignRoutes=no
ManageForeignRoutingPolicyRules=no
EOF
  if [ "$UNMANAGED_SECONDARY_ENIS" = true ]; then
    local primary
    primary=$(primary_interface "$(imds mac)")
    # The ENIs Cilium attaches are its own: no DHCP, addresses or routes from networkd or cloud-init.
    write_file /etc/systemd/network/75-cilium-eni-secondary.network <<EOF
[Match]
Driver=ena
Property=!INTERFACE=$primary

[Link]
Unmanaged=yes
EOF
    write_file /etc/systemd/network/99-default.link <<'EOF'
[Match]
OriginalName=*

[Link]
NamePolicy=keep kernel database onboard slot path
AlternativeNamesPolicy=database onboard slot path
MACAddressPolicy=none
EOF
    write_file /etc/cloud/cloud.cfg.d/99-disable-network-hotplug.cfg <<'EOF'
updates:
  network:
    when: ["boot-new-instance"]
EOF
  fi
  systemctl restart systemd-networkd
}

install_packages() {
  local minor="${KUBERNETES_VERSION%.*}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q apt-transport-https ca-certificates curl gpg containerd
  mkdir -p "$ROOT/etc/apt/keyrings"
  curl -fsSL "https://pkgs.k8s.io/core:/stable:/v$minor/deb/Release.key" |
    gpg --dearmor --yes -o "$ROOT/etc/apt/keyrings/kubernetes.gpg"
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" |
    write_file /etc/apt/sources.list.d/kubernetes.list
  apt-get update -q
  apt-get install -y -q "kubelet=$KUBERNETES_VERSION-*" "kubeadm=$KUBERNETES_VERSION-*" "kubectl=$KUBERNETES_VERSION-*"
  apt-mark hold kubelet kubeadm kubectl containerd
  snap install aws-cli --classic
  export PATH="$PATH:/snap/bin"
}

configure_containerd() {
  containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/' | write_file /etc/containerd/config.toml
  systemctl restart containerd
}

secret() {
  aws ssm get-parameter --region "$REGION" --name "$SECRETS_PREFIX$1" --with-decryption \
    --query Parameter.Value --output text
}

# The cluster's CA (and on the control plane its keys) from SSM, read with the instance role.
fetch_secrets() {
  secret ca.crt | write_file /etc/kubernetes/pki/ca.crt
  if [ "$ROLE" = control-plane ]; then
    local f
    for f in ca.key sa.key front-proxy-ca.key; do secret "$f" | write_file "/etc/kubernetes/pki/$f" 0600; done
    for f in sa.pub front-proxy-ca.crt; do secret "$f" | write_file "/etc/kubernetes/pki/$f"; done
    secret etcd-ca.crt | write_file /etc/kubernetes/pki/etcd/ca.crt
    secret etcd-ca.key | write_file /etc/kubernetes/pki/etcd/ca.key 0600
  fi
  BOOTSTRAP_TOKEN=$(secret bootstrap-token)
  CA_HASH=$(openssl x509 -pubkey -noout -in "$PKI/ca.crt" | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1)
}

configure_kubelet() {
  local args=""
  if [ "$NODE_IP_FROM_METADATA" = true ]; then
    # Pods hold secondary addresses of this node's ENIs; the node's own is the primary private IPv4.
    args="--node-ip=$(imds local-ipv4)"
  fi
  echo "KUBELET_EXTRA_ARGS=$args" | write_file /etc/default/kubelet
  mkdir -p "$ROOT/etc/kubernetes/patches"
  if [ "$MAX_PODS_FROM_ENI_LIMITS" = true ]; then
    local type limits enis ips max_pods
    type=$(imds instance-type)
    limits=$(aws ec2 describe-instance-types --region "$REGION" --instance-types "$type" \
      --query 'InstanceTypes[0].NetworkInfo.[MaximumNetworkInterfaces,Ipv4AddressesPerInterface]' --output text)
    read -r enis ips <<<"$limits"
    # kOps's rule: every ENI but its primary address serves pods, plus two host-network pods.
    max_pods=$((enis * (ips - 1) + 2))
    if [ "$max_pods" -gt 110 ]; then max_pods=110; fi
    echo "maxPods: $max_pods" | write_file /etc/kubernetes/patches/kubeletconfiguration+merge.yaml
  fi
}

kubelet_configuration() {
  cat <<'EOF'
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
EOF
}

node_registration() {
  cat <<EOF
nodeRegistration:
  criSocket: $CRI_SOCKET
EOF
  if [ "$ROLE" = control-plane ]; then
    cat <<'EOF'
  taints:
    - key: node-role.kubernetes.io/control-plane
      effect: NoSchedule
EOF
  else
    echo "  taints: []"
  fi
  cat <<'EOF'
patches:
  directory: /etc/kubernetes/patches
EOF
}

init_configuration() {
  local names sans
  read -ra names <<<"$API_CERT_SANS"
  sans=$(printf '"%s", ' "${names[@]}")
  cat <<EOF
apiVersion: kubeadm.k8s.io/$KUBEADM_API
kind: InitConfiguration
bootstrapTokens:
  - token: "$BOOTSTRAP_TOKEN"
    ttl: "0s"
    usages: [signing, authentication]
    groups: [system:bootstrappers:kubeadm:default-node-token]
EOF
  node_registration
  if [ "$KUBE_PROXY" != true ]; then printf 'skipPhases:\n  - addon/kube-proxy\n'; fi
  cat <<EOF
---
apiVersion: kubeadm.k8s.io/$KUBEADM_API
kind: ClusterConfiguration
clusterName: "$CLUSTER_NAME"
kubernetesVersion: "v$KUBERNETES_VERSION"
controlPlaneEndpoint: "$API_ENDPOINT:$API_PORT"
apiServer:
  certSANs: [${sans%, }]
networking:
  serviceSubnet: "$SERVICE_CIDR"
EOF
  if [ -n "$POD_CIDR" ]; then echo "  podSubnet: \"$POD_CIDR\""; fi
  kubelet_configuration
}

join_configuration() {
  cat <<EOF
apiVersion: kubeadm.k8s.io/$KUBEADM_API
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: "$API_ENDPOINT:$API_PORT"
    token: "$BOOTSTRAP_TOKEN"
    caCertHashes: ["sha256:$CA_HASH"]
EOF
  node_registration
  if [ "$ROLE" = control-plane ]; then echo "controlPlane: {}"; fi
}

api_ready() {
  curl -sk --max-time 5 "https://$API_ENDPOINT:$API_PORT/readyz" >/dev/null
}

wait_for_api() {
  local tries=0
  until api_ready; do
    tries=$((tries + 1))
    if [ "$tries" -ge "${API_WAIT_TRIES:-180}" ]; then
      log "the API at $API_ENDPOINT:$API_PORT did not answer"
      return 1
    fi
    sleep 10
  done
}

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

join_cluster() {
  local config="$ROOT/etc/kubernetes/kubeadm.yaml"
  if [ "$ROLE" = control-plane ] && [ "$(imds placement/availability-zone)" = "$INIT_ZONE" ] && ! api_ready; then
    log "no API server answers: creating the cluster"
    init_configuration | write_file /etc/kubernetes/kubeadm.yaml 0600
    kubeadm init --config "$config"
  else
    wait_for_api
    join_configuration | write_file /etc/kubernetes/kubeadm.yaml 0600
    kubeadm join --config "$config"
  fi
  if [ "$ROLE" = control-plane ]; then install_etcd_leave; fi
}

main() {
  log "instance group $INSTANCE_GROUP ($ROLE) of $CLUSTER_NAME, config hash $BOOTSTRAP_CONFIG_HASH"
  configure_kernel
  configure_networkd
  install_packages
  configure_containerd
  fetch_secrets
  configure_kubelet
  systemctl enable kubelet
  join_cluster
  log "done"
}

main "$@"
