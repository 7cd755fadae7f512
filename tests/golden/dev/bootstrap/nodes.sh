#!/bin/bash
# cilium-cluster node of nodes: installs the bootstrap as a systemd service, which runs
# again until this node has joined the cluster (journalctl -u cilium-cluster-bootstrap).
set -euo pipefail
root="${BOOTSTRAP_ROOT:-}"
install -D -m 0700 /dev/null "$root/usr/local/sbin/cilium-cluster-bootstrap"
cat >"$root/usr/local/sbin/cilium-cluster-bootstrap" <<'CILIUM_CLUSTER_FILE'
#!/bin/bash
# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.
set -euo pipefail

# What the program and this script both name, and the waits' defaults (components/nodes/shellHeader.ts).
readonly JOIN_CREDENTIAL_FILE='/etc/kubernetes/join-credential.conf'
readonly KUBERNETES_DIR='/etc/kubernetes'
readonly PATCHES_DIRECTORY='/etc/kubernetes/patches'
readonly NODE_ROLE_FILE='/etc/cilium-cluster/node-role'
readonly KUBEADM_JOINED_MARKER='/var/lib/cilium-cluster/kubeadm-joined'
readonly JOINED_MARKER='/var/lib/cilium-cluster/joined'
BOOTSTRAP_TRIES="${BOOTSTRAP_TRIES:-8}"
BOOTSTRAP_RETRY_DELAY="${BOOTSTRAP_RETRY_DELAY:-2}"
BOOTSTRAP_RETRY_MAX_DELAY="${BOOTSTRAP_RETRY_MAX_DELAY:-60}"
API_WAIT_TRIES="${API_WAIT_TRIES:-60}"
API_WAIT_INTERVAL="${API_WAIT_INTERVAL:-10}"
API_WAIT_ATTEMPT_SECONDS="${API_WAIT_ATTEMPT_SECONDS:-5}"
NODE_CREDENTIALS_INTERVAL="${NODE_CREDENTIALS_INTERVAL:-10}"
NODE_CREDENTIAL_WAIT_TRIES="${NODE_CREDENTIAL_WAIT_TRIES:-12}"

# What this node is told: the bootstrap config's fields this script reads.
# shellcheck disable=SC2034
{
  BOOTSTRAP_CONFIG_HASH='jy5k04GaaJ/zHMbcNJRir4EvVA0QPNpDrTEZR5x2aqA='
  CLUSTER_NAME='dev.k8s.local'
  INSTANCE_GROUP='nodes'
  ROLE='node'
  INIT_ZONE='us-east-1a'
  KUBERNETES_VERSION='1.35.4'
  API_ENDPOINT='api.internal.dev.k8s.local'
  API_PORT='443'
  REGION='us-east-1'
  CLUSTER_CA_PARAMETER='/cilium-cluster/dev.k8s.local/node/cluster-ca-26bc335cd6b1'
  NODE_CREDENTIALS_PREFIX='/cilium-cluster/dev.k8s.local/instance/'
  MAX_PODS_FROM_ENI_LIMITS='true'
  ENI_ADDRESSES_RESERVED_BY_CILIUM='2'
  HOST_NETWORK_PODS='2'
  LAUNCH_HOOK='cilium-cluster-joined'
  UNMANAGED_SECONDARY_ENIS='true'
}

# kubeadm's configuration for this group; @NAME@ placeholders are filled at boot.
kubeadm_join_configuration() {
  cat <<'KUBEADM_CONFIG'
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  file:
    kubeConfigPath: /etc/kubernetes/join-credential.conf
nodeRegistration:
  name: "@NODE_NAME@"
  criSocket: unix:///run/containerd/containerd.sock
  taints: []
  kubeletExtraArgs:
    - name: cloud-provider
      value: external
    - name: node-ip
      value: "@NODE_IP@"
patches:
  directory: /etc/kubernetes/patches
KUBEADM_CONFIG
}

# bootstrap/lib.sh

log() { echo "bootstrap: $*" >&2; }

step() {
  local name="$1"
  shift
  log "step $name: start"
  "$@"
  log "step $name: done"
}

on_exit() {
  local status=$?
  if [ "$status" -ne 0 ]; then log "failed with status $status in the step started last; systemd runs the bootstrap again"; fi
}

retry() {
  local try=1 delay="$BOOTSTRAP_RETRY_DELAY" max="$BOOTSTRAP_RETRY_MAX_DELAY" out
  until out=$("$@"); do
    if [ "$try" -ge "$BOOTSTRAP_TRIES" ]; then
      log "gave up after $try tries: ${*:1:2}"
      return 1
    fi
    log "try $try of ${*:1:2} failed; again in ${delay}s"
    sleep "$delay"
    try=$((try + 1))
    delay=$((delay * 2 > max ? max : delay * 2))
  done
  if [ -n "$out" ]; then printf '%s\n' "$out"; fi
}

imds() {
  local endpoint="${IMDS_ENDPOINT:-http://169.254.169.254}" token
  token=$(retry curl -sSf --max-time 10 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 300" "$endpoint/latest/api/token")
  retry curl -sSf --max-time 10 -H "X-aws-ec2-metadata-token: $token" "$endpoint/latest/meta-data/$1"
}

node_name() {
  local name
  name=$(imds local-hostname) || return 1
  if [ -z "$name" ]; then
    log "instance metadata names no local-hostname"
    return 1
  fi
  tr '[:upper:]' '[:lower:]' <<<"$name"
}

provider_id() {
  local zone id
  zone=$(imds placement/availability-zone) || return 1
  id=$(imds instance-id) || return 1
  echo "aws:///$zone/$id"
}

write_file() {
  local path="${BOOTSTRAP_ROOT:-}$1"
  mkdir -p "$(dirname "$path")"
  install -m "${2:-0644}" /dev/null "$path"
  cat >"$path"
}

secure_parameter() {
  retry aws ssm get-parameter --region "$REGION" --name "$1" --with-decryption --query Parameter.Value --output text
}

# bootstrap/role.sh

record_node_role() {
  printf '%s\n' "$ROLE" | write_file "$NODE_ROLE_FILE"
}

# bootstrap/kernel.sh

configure_kernel() {
  write_file /etc/modules-load.d/cilium-cluster.conf <<'EOF'
overlay
br_netfilter
EOF
  modprobe overlay
  modprobe br_netfilter
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

# bootstrap/network.sh

primary_interface() {
  local mac="$1" dev
  for dev in "${BOOTSTRAP_ROOT:-}"/sys/class/net/*; do
    if [ "$(cat "$dev/address" 2>/dev/null)" = "$mac" ]; then
      basename "$dev"
      return 0
    fi
  done
  return 1
}

configure_networkd() {
  write_file /etc/systemd/networkd.conf.d/40-cilium-foreign-routes.conf <<'EOF'
[Network]
ManageForeignRoutes=no
ManageForeignRoutingPolicyRules=no
EOF
  if [ "$UNMANAGED_SECONDARY_ENIS" = true ]; then
    local primary
    primary=$(primary_interface "$(imds mac)")
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

# bootstrap/packages.sh

apt_get() {
  retry apt-get -o DPkg::Lock::Timeout=600 -q "$@"
}

dpkg_configure_pending() {
  BOOTSTRAP_TRIES=14 retry dpkg --configure -a
}

install_packages() {
  local minor="${KUBERNETES_VERSION%.*}" key
  local preflight=(conntrack iproute2 iptables mount util-linux ebtables ethtool socat coreutils)
  export DEBIAN_FRONTEND=noninteractive
  dpkg_configure_pending
  apt_get update
  apt_get install -y apt-transport-https ca-certificates curl gpg containerd python3-cryptography "${preflight[@]}"
  mkdir -p "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings"
  key=$(retry curl -fsSL --max-time 30 "https://pkgs.k8s.io/core:/stable:/v$minor/deb/Release.key")
  gpg --dearmor --yes -o "${BOOTSTRAP_ROOT:-}/etc/apt/keyrings/kubernetes.gpg" <<<"$key"
  echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" |
    write_file /etc/apt/sources.list.d/kubernetes.list
  apt_get update
  apt_get install -y "kubelet=$KUBERNETES_VERSION-*" "kubeadm=$KUBERNETES_VERSION-*" "kubectl=$KUBERNETES_VERSION-*" cri-tools
  retry apt-mark -o DPkg::Lock::Timeout=600 hold kubelet kubeadm kubectl containerd
  retry snap install aws-cli --classic
}

# bootstrap/runtime.sh

configure_containerd() {
  containerd config default | sed 's/SystemdCgroup = false/SystemdCgroup = true/' | write_file /etc/containerd/config.toml
  systemctl restart containerd
}

# bootstrap/kubelet.sh

max_pods() {
  local pods=$(($1 * ($2 - 1) - $3 + $4))
  if [ "$pods" -gt 110 ]; then pods=110; fi
  echo "$pods"
}

configure_kubelet() {
  local patch provider
  provider=$(provider_id)
  patch="providerID: $provider"
  if [ "$MAX_PODS_FROM_ENI_LIMITS" = true ]; then
    local type limits enis ips
    type=$(imds instance-type)
    limits=$(retry aws ec2 describe-instance-types --region "$REGION" --instance-types "$type" \
      --query 'InstanceTypes[0].NetworkInfo.[MaximumNetworkInterfaces,Ipv4AddressesPerInterface]' --output text)
    read -r enis ips <<<"$limits"
    patch+=$'\n'"maxPods: $(max_pods "$enis" "$ips" "$ENI_ADDRESSES_RESERVED_BY_CILIUM" "$HOST_NETWORK_PODS")"
  fi
  write_file "$PATCHES_DIRECTORY/kubeletconfiguration+merge.yaml" <<<"$patch"
  systemctl enable kubelet
}

# bootstrap/kubeadm.sh

join_mode() {
  if [ "$#" -ne 5 ] || [[ ! $1 =~ ^(control-plane|node)$ ]] || [[ ! "$2/$3/$5" =~ ^((yes|no)/){2}(yes|no)$ ]]; then
    log "join_mode: unknown input: $*"
    return 2
  fi
  local role=$1 in_init_zone=$2 api_ready=$3 state=$4 record=$5
  case "$state" in
  joined) echo none ;;
  partial) echo reset ;;
  fresh)
    if [ "$role" = control-plane ] && [ "$api_ready" = no ] && [ "$in_init_zone" = yes ] && [ "$record" = no ]; then
      echo init
    else
      echo join
    fi
    ;;
  *)
    log "join_mode: unknown state: $state"
    return 2
    ;;
  esac
}

kubeadm_state() {
  local root="${BOOTSTRAP_ROOT:-}" path
  if [ -e "$root$KUBEADM_JOINED_MARKER" ] && [ -e "$root$KUBERNETES_DIR/kubelet.conf" ]; then
    echo joined
    return
  fi
  local left=("$KUBERNETES_DIR/kubelet.conf" "$KUBERNETES_DIR/bootstrap-kubelet.conf" "$KUBERNETES_DIR/admin.conf"
    /var/lib/kubelet/config.yaml)
  if [ "$1" = node ]; then left+=("$KUBERNETES_DIR/pki/ca.crt"); fi
  for path in "${left[@]}"; do
    if [ -e "$root$path" ]; then
      echo partial
      return
    fi
  done
  if [ -n "$(ls -A "$root$KUBERNETES_DIR/manifests" 2>/dev/null)" ] || [ -n "$(ls -A "$root/var/lib/etcd" 2>/dev/null)" ]; then
    echo partial
    return
  fi
  echo fresh
}

joined_with_this_config() {
  [ "$(kubeadm_state "$ROLE")" = joined ] && [ "$(cat "${BOOTSTRAP_ROOT:-}$JOINED_MARKER" 2>/dev/null)" = "$BOOTSTRAP_CONFIG_HASH" ]
}

mark_joined() {
  write_file "$JOINED_MARKER" <<<"$BOOTSTRAP_CONFIG_HASH"
}

api_ready() {
  curl -skf --max-time "$API_WAIT_ATTEMPT_SECONDS" "https://$API_ENDPOINT:$API_PORT/readyz" >/dev/null
}

wait_for_api() {
  if ! BOOTSTRAP_TRIES="$API_WAIT_TRIES" BOOTSTRAP_RETRY_DELAY="$API_WAIT_INTERVAL" \
    BOOTSTRAP_RETRY_MAX_DELAY="$API_WAIT_INTERVAL" retry api_ready; then
    log "the API at $API_ENDPOINT:$API_PORT did not answer"
    return 1
  fi
}

fill_placeholders() {
  local text pair
  text=$(cat)
  for pair in "$@"; do text=${text//"@${pair%%=*}@"/"${pair#*=}"}; done
  if [[ $text =~ @[A-Z_]+@ ]]; then
    log "no value for the placeholder ${BASH_REMATCH[0]}"
    return 1
  fi
  printf '%s\n' "$text"
}

kubeadm_config() {
  local text ip name fills=()
  text=$("$1")
  if [[ $text == *@NODE_IP@* ]]; then
    ip=$(imds local-ipv4)
    fills+=("NODE_IP=$ip")
  fi
  if [[ $text == *@NODE_NAME@* ]]; then
    name=$(node_name)
    fills+=("NODE_NAME=$name")
  fi
  fill_placeholders "${fills[@]}" <<<"$text"
}

role_part() {
  if declare -F "$1" >/dev/null; then "$1"; fi
}

role_around() {
  if declare -F "$1" >/dev/null; then "$@"; else "${@:2}"; fi
}

kubeadm_join() {
  wait_for_api
  role_part before_member_join
  local credential status=0
  credential=$(join_credential)
  write_file "$JOIN_CREDENTIAL_FILE" 0600 <<<"$credential"
  kubeadm_config kubeadm_join_configuration | write_file "$KUBERNETES_DIR/kubeadm.yaml" 0600
  role_around during_member_join kubeadm join --config "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/kubeadm.yaml" || status=$?
  rm -f "${BOOTSTRAP_ROOT:-}$JOIN_CREDENTIAL_FILE" "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/kubeadm.yaml"
  if [ "$status" -ne 0 ]; then return "$status"; fi
  role_part after_member_join
}

kubeadm_none() {
  log "this node has joined the cluster"
}

kubeadm_reset() {
  log "kubeadm stopped half-way before: undoing what it left with kubeadm reset"
  role_part before_member_reset || return 1
  kubeadm reset --force
  return 1
}

join_cluster() {
  local zone in_init_zone=no ready=no kubeadm mode record=no
  zone=$(imds placement/availability-zone)
  if [ "$zone" = "$INIT_ZONE" ]; then in_init_zone=yes; fi
  if api_ready; then ready=yes; fi
  kubeadm=$(kubeadm_state "$ROLE")
  if [ "$kubeadm" = fresh ]; then record=$(role_part init_record_exists); fi
  mode=$(join_mode "$ROLE" "$in_init_zone" "$ready" "$kubeadm" "${record:-no}")
  if ! declare -F "kubeadm_$mode" >/dev/null; then
    log "this node's bootstrap cannot $mode"
    return 1
  fi
  "kubeadm_$mode"
  write_file "$KUBEADM_JOINED_MARKER" <<<"$BOOTSTRAP_CONFIG_HASH"
}

# bootstrap/join-credential.sh

join_credential() {
  local id pem ca certificate key
  id=$(imds instance-id) || return 1
  pem=$(BOOTSTRAP_TRIES="$NODE_CREDENTIAL_WAIT_TRIES" BOOTSTRAP_RETRY_DELAY="$NODE_CREDENTIALS_INTERVAL" \
    BOOTSTRAP_RETRY_MAX_DELAY="$NODE_CREDENTIALS_INTERVAL" secure_parameter "$NODE_CREDENTIALS_PREFIX$id") || return 1
  ca=$(secure_parameter "$CLUSTER_CA_PARAMETER") || return 1
  certificate=$(sed -n '/-BEGIN CERTIFICATE-/,/-END CERTIFICATE-/p' <<<"$pem" | base64 -w0)
  key=$(sed -n '/-BEGIN [A-Z ]*PRIVATE KEY-/,/-END [A-Z ]*PRIVATE KEY-/p' <<<"$pem" | base64 -w0)
  if [ -z "$certificate" ] || [ -z "$key" ]; then
    log "the credential of instance $id holds no certificate and key"
    return 1
  fi
  cat <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: $CLUSTER_NAME
  cluster:
    server: https://$API_ENDPOINT:$API_PORT
    certificate-authority-data: $(base64 -w0 <<<"$ca")
users:
- name: node
  user:
    client-certificate-data: $certificate
    client-key-data: $key
contexts:
- name: node@$CLUSTER_NAME
  context:
    cluster: $CLUSTER_NAME
    user: node
current-context: node@$CLUSTER_NAME
KUBECONFIG
}

# bootstrap/launch-hook.sh

launch_hook_state() {
  local found group state
  found=$(aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$1" \
    --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text) || return 1
  read -r group state <<<"$found"
  if [ -z "$group" ] || [ "$group" = None ]; then
    log "instance $1 is in no Auto Scaling group yet"
    return 1
  fi
  if [ "$state" = Pending ]; then
    log "instance $1 of $group is Pending: its launch hook does not wait yet"
    return 1
  fi
  echo "$group $state"
}

complete_launch_hook() {
  local id found group state
  id=$(imds instance-id)
  found=$(retry launch_hook_state "$id") || return 1
  read -r group state <<<"$found"
  if [ "$state" != Pending:Wait ]; then
    log "instance $id of $group is $state: no launch hook to complete"
    return 0
  fi
  log "instance $id has joined: completing the launch hook $LAUNCH_HOOK of $group"
  retry complete_launch_action "$group" "$id"
}

complete_launch_action() {
  local err found state
  if err=$(aws autoscaling complete-lifecycle-action --region "$REGION" --auto-scaling-group-name "$1" \
    --lifecycle-hook-name "$LAUNCH_HOOK" --instance-id "$2" --lifecycle-action-result CONTINUE 2>&1 >/dev/null); then
    return 0
  fi
  case "$err" in
  *"No active Lifecycle Action found"*)
    found=$(aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$2" \
      --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text) || return 1
    read -r _ state <<<"$found"
    if [ -n "$state" ] && [ "$state" != Pending:Wait ]; then
      log "instance $2 is $state: its launch hook $LAUNCH_HOOK was completed already"
      return 0
    fi
    log "instance $2 is ${state:-in no state} yet Auto Scaling finds no action of the launch hook $LAUNCH_HOOK of $1"
    ;;
  esac
  printf '%s\n' "$err" >&2
  return 1
}

run_steps() {
  trap on_exit EXIT
  log "instance group $INSTANCE_GROUP ($ROLE) of $CLUSTER_NAME, config hash $BOOTSTRAP_CONFIG_HASH"
  if joined_with_this_config; then
    log "joined with this configuration before: nothing to do"
    return 0
  fi
  step node-role record_node_role
  step kernel configure_kernel
  step network configure_networkd
  step packages install_packages
  step containerd configure_containerd
  step kubelet configure_kubelet
  step join join_cluster
  step launch-hook complete_launch_hook
  mark_joined
  log "done"
}

if [ "$#" -gt 0 ]; then "$@"; else run_steps; fi
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/cilium-cluster-bootstrap.service"
cat >"$root/etc/systemd/system/cilium-cluster-bootstrap.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=cilium-cluster bootstrap of nodes: join this node to the cluster
Wants=network-online.target
After=network-online.target
StartLimitIntervalSec=0

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap
Restart=on-failure
RestartSec=30s
TimeoutStartSec=40min
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
SyslogIdentifier=cilium-cluster-bootstrap

[Install]
WantedBy=multi-user.target
CILIUM_CLUSTER_FILE
systemctl daemon-reload
systemctl enable cilium-cluster-bootstrap.service
systemctl start --no-block cilium-cluster-bootstrap.service
