#!/bin/bash
# cilium-cluster node of control-plane-us-east-1a: installs the bootstrap as a systemd service, which runs
# again until this node has joined the cluster (journalctl -u cilium-cluster-bootstrap).
set -euo pipefail
root="${BOOTSTRAP_ROOT:-}"
install -D -m 0700 /dev/null "$root/usr/local/sbin/cilium-cluster-bootstrap"
cat >"$root/usr/local/sbin/cilium-cluster-bootstrap" <<'CILIUM_CLUSTER_FILE'
#!/bin/bash
# cilium-cluster node bootstrap. BOOTSTRAP_CONFIG_HASH changes whenever what this node is told changes.
set -euo pipefail

# What the program and this script both name, and the waits' defaults (components/nodes/shellHeader.ts).
readonly CLUSTER_TAG='KubernetesCluster'
readonly CONTROL_PLANE_TAG='k8s.io/role/control-plane'
readonly NODE_TAG='k8s.io/role/node'
readonly NODE_CREDENTIAL_SESSION_TAG='cilium-cluster/session'
readonly JOIN_CREDENTIAL_FILE='/etc/kubernetes/join-credential.conf'
readonly ETCD_CLIENT_PORT='2379'
readonly ETCD_PEER_PORT='2380'
readonly KUBERNETES_DIR='/etc/kubernetes'
readonly ENCRYPTION_CONFIG_FILE='/etc/kubernetes/apiserver/encryption.yaml'
readonly PATCHES_DIRECTORY='/etc/kubernetes/patches'
readonly NODE_ROLE_FILE='/etc/cilium-cluster/node-role'
readonly KUBEADM_JOINED_MARKER='/var/lib/cilium-cluster/kubeadm-joined'
readonly JOINED_MARKER='/var/lib/cilium-cluster/joined'
readonly ETCD_UNHEALTHY_DIR='/run/cilium-cluster/etcd-unhealthy'
readonly UPGRADE_FINISHED_ANNOTATION='cilium-cluster/upgrade-finished'
readonly UPGRADE_MOVED_ANNOTATION='cilium-cluster/upgrade-moved'
readonly TOOLS_DIR='/usr/local/lib/cilium-cluster'
readonly API_PIN_MARK='cilium-cluster-own-api-server'
readonly SNAPSHOT_PREFIX='etcd/'
readonly SNAPSHOT_KEY_PATTERN='^etcd/[0-9]{8}T[0-9]{6}Z[.]db$'
readonly LATEST_SNAPSHOT_KEY='latest/etcd.db'
readonly SNAPSHOT_METRIC_NAMESPACE_PREFIX='cilium-cluster'
readonly SNAPSHOT_METRIC_NAME='EtcdSnapshotsUploaded'
readonly SNAPSHOT_METRIC_DIMENSION='ClusterName'
readonly CONTROL_PLANE_STARTED_UNITS='etcd-backup.timer etcd-members.timer certificate-renewal.timer node-credentials.service kubelet-serving.service upgrade-finish.timer'
readonly SHARED_PKI_FILES='ca.key front-proxy-ca.key front-proxy-ca.crt etcd/ca.key etcd/ca.crt sa.key sa.pub ca.crt'
readonly DRAIN_HANDLER_NAME='aws-node-termination-handler'
readonly ADMIN_GROUP='kubeadm:cluster-admins'
readonly AUTHENTICATOR_ADDRESS='127.0.0.1'
readonly AUTHENTICATOR_PORT='21362'
readonly AUTHENTICATOR_STATE_DIR='/var/lib/cilium-cluster/aws-iam-authenticator'
readonly AUTHENTICATOR_UID='10000'
readonly AUTHENTICATOR_POD_FILE='/etc/cilium-cluster/aws-iam-authenticator/pod.yaml'
readonly AUTHENTICATOR_WEBHOOK_FILE='/etc/kubernetes/apiserver/authenticator-webhook.yaml'
BOOTSTRAP_TRIES="${BOOTSTRAP_TRIES:-8}"
BOOTSTRAP_RETRY_DELAY="${BOOTSTRAP_RETRY_DELAY:-2}"
BOOTSTRAP_RETRY_MAX_DELAY="${BOOTSTRAP_RETRY_MAX_DELAY:-60}"
API_WAIT_TRIES="${API_WAIT_TRIES:-60}"
API_WAIT_INTERVAL="${API_WAIT_INTERVAL:-10}"
API_WAIT_ATTEMPT_SECONDS="${API_WAIT_ATTEMPT_SECONDS:-5}"
ETCD_LEAVE_RETRY_SECONDS="${ETCD_LEAVE_RETRY_SECONDS:-30}"
ETCD_COMMAND_SECONDS="${ETCD_COMMAND_SECONDS:-10}"
TERMINATION_WATCH_SECONDS="${TERMINATION_WATCH_SECONDS:-5}"
LAUNCH_HEARTBEAT_SECONDS="${LAUNCH_HEARTBEAT_SECONDS:-60}"
LAUNCH_HEARTBEATS_SECONDS="${LAUNCH_HEARTBEATS_SECONDS:-2400}"
FINAL_SNAPSHOT_TRIES="${FINAL_SNAPSHOT_TRIES:-3}"
DRAIN_WAIT_SECONDS="${DRAIN_WAIT_SECONDS:-300}"
MOVE_BACK_AFTER_SECONDS="${MOVE_BACK_AFTER_SECONDS:-3600}"
NODE_CREDENTIALS_INTERVAL="${NODE_CREDENTIALS_INTERVAL:-10}"
NODE_CREDENTIAL_MINUTES="${NODE_CREDENTIAL_MINUTES:-60}"

# What this node is told: the bootstrap config's fields this script reads.
# shellcheck disable=SC2034
{
  BOOTSTRAP_CONFIG_HASH='SO7cwvBISmwzlnn1eyuKgYIGFuSqFra6appZFBS8Hxs='
  CLUSTER_NAME='dev.k8s.local'
  INSTANCE_GROUP='control-plane-us-east-1a'
  ROLE='control-plane'
  INIT_ZONE='us-east-1a'
  KUBERNETES_VERSION='1.35.4'
  API_ENDPOINT='api.internal.dev.k8s.local'
  API_PORT='443'
  REGION='us-east-1'
  CLUSTER_CA_PARAMETER='/cilium-cluster/dev.k8s.local/node/cluster-ca-26bc335cd6b1'
  SHARED_PKI_PARAMETERS='/cilium-cluster/dev.k8s.local/control-plane/pki-26bc335cd6b1/'
  NODE_CREDENTIALS_PREFIX='/cilium-cluster/dev.k8s.local/instance/'
  NODE_ROLE_NAME='nodes.dev.k8s.local'
  SECRETS_KEY='alias/cilium-cluster/dev-k8s-local-2ebca2'
  MAX_PODS_FROM_ENI_LIMITS='true'
  ENI_ADDRESSES_RESERVED_BY_CILIUM='2'
  HOST_NETWORK_PODS='2'
  LAUNCH_HOOK='cilium-cluster-joined'
  UNMANAGED_SECONDARY_ENIS='true'
  INIT_RECORD='/cilium-cluster/dev.k8s.local/control-plane/initialized-26bc335cd6b1'
  RESTORE_REQUEST='/cilium-cluster/dev.k8s.local/control-plane/restore-request-26bc335cd6b1'
  BACKUP_BUCKET='etcd-backups-dev-k8s-local-000000000000-us-east-1-0965e4'
  BACKUP_INTERVAL_MINUTES='15'
  ETCD_UNHEALTHY_MINUTES='5'
  ENCRYPTION_KEYS_PARAMETER='/cilium-cluster/dev.k8s.local/control-plane/encryption-keys-26bc335cd6b1'
}

# kubeadm's configuration for this group; @NAME@ placeholders are filled at boot.
kubeadm_init_configuration() {
  cat <<'KUBEADM_CONFIG'
apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration:
  name: "@NODE_NAME@"
  criSocket: unix:///run/containerd/containerd.sock
  taints:
    - key: node-role.kubernetes.io/control-plane
      effect: NoSchedule
  kubeletExtraArgs:
    - name: cloud-provider
      value: external
    - name: node-ip
      value: "@NODE_IP@"
localAPIEndpoint:
  bindPort: 443
patches:
  directory: /etc/kubernetes/patches
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
clusterName: dev.k8s.local
kubernetesVersion: v1.35.4
controlPlaneEndpoint: api.internal.dev.k8s.local:443
apiServer:
  certSANs:
    - api.internal.dev.k8s.local
    - network-api-e0243ecb.elb.us-east-1.amazonaws.com.mock
  extraArgs:
    - name: kubelet-certificate-authority
      value: /etc/kubernetes/pki/ca.crt
    - name: encryption-provider-config
      value: /etc/kubernetes/apiserver/encryption.yaml
    - name: encryption-provider-config-automatic-reload
      value: "true"
    - name: admission-control-config-file
      value: /etc/kubernetes/apiserver/admission.yaml
    - name: authentication-config
      value: /etc/kubernetes/apiserver/authentication.yaml
    - name: audit-policy-file
      value: /etc/kubernetes/apiserver/audit-policy.yaml
    - name: authentication-token-webhook-config-file
      value: /etc/kubernetes/apiserver/authenticator-webhook.yaml
    - name: authentication-token-webhook-version
      value: v1beta1
    - name: audit-log-path
      value: /var/log/kubernetes/audit/audit.log
    - name: audit-log-maxsize
      value: "100"
    - name: audit-log-maxbackup
      value: "5"
    - name: audit-log-maxage
      value: "7"
  extraVolumes:
    - name: cilium-cluster-config
      hostPath: /etc/kubernetes/apiserver
      mountPath: /etc/kubernetes/apiserver
      readOnly: true
      pathType: Directory
    - name: audit-log
      hostPath: /var/log/kubernetes/audit
      mountPath: /var/log/kubernetes/audit
      readOnly: false
      pathType: DirectoryOrCreate
controllerManager:
  extraArgs:
    - name: cloud-provider
      value: external
networking:
  serviceSubnet: 100.64.0.0/13
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
serverTLSBootstrap: true
shutdownGracePeriod: 60s
shutdownGracePeriodCriticalPods: 20s
KUBEADM_CONFIG
}
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
  taints:
    - key: node-role.kubernetes.io/control-plane
      effect: NoSchedule
  kubeletExtraArgs:
    - name: cloud-provider
      value: external
    - name: node-ip
      value: "@NODE_IP@"
patches:
  directory: /etc/kubernetes/patches
controlPlane:
  localAPIEndpoint:
    bindPort: 443
timeouts:
  etcdAPICall: 240s
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

# bootstrap/parameters.sh

parameter_or_none() {
  local name=$1 errors value status=0
  shift
  errors=$(mktemp)
  value=$(aws ssm get-parameter --region "$REGION" --name "$name" "$@" --query Parameter.Value --output text 2>"$errors") ||
    status=$?
  if [ "$status" -eq 0 ]; then
    printf '%s\n' "$value"
  elif grep -q ParameterNotFound "$errors"; then
    echo none
    status=0
  else
    log "cannot read $name: $(cat "$errors")"
  fi
  rm -f "$errors"
  return "$status"
}

delete_parameter() {
  local errors status=0
  errors=$(mktemp)
  aws ssm delete-parameter --region "$REGION" --name "$1" 2>"$errors" || status=$?
  if [ "$status" -ne 0 ] && grep -q ParameterNotFound "$errors"; then status=0; fi
  if [ "$status" -ne 0 ]; then log "cannot delete $1: $(cat "$errors")"; fi
  rm -f "$errors"
  return "$status"
}

put_parameter() {
  local type=$1 name=$2 value=$3 file status=0 key=()
  shift 3
  if [ "$type" = SecureString ]; then key=(--key-id "$SECRETS_KEY"); fi
  file=$(mktemp)
  printf '%s' "$value" >"$file"
  aws ssm put-parameter --region "$REGION" --name "$name" --type "$type" "${key[@]}" --value "file://$file" "$@" \
    >/dev/null || status=$?
  rm -f "$file"
  return "$status"
}

put_secure_parameter() { put_parameter SecureString "$@"; }

# bootstrap/encryption.sh

new_encryption_key() {
  local secret
  secret=$(head -c 32 /dev/urandom | base64 -w0)
  printf 'key-%s %s\n' "$(date -u +%Y%m%dT%H%M%SZ)" "$secret"
}

encryption_keys() { secure_parameter "$ENCRYPTION_KEYS_PARAMETER"; }

put_encryption_keys() { put_secure_parameter "$ENCRYPTION_KEYS_PARAMETER" "$@"; }

encryption_config() {
  local name secret
  printf '%s\n' "apiVersion: apiserver.config.k8s.io/v1" "kind: EncryptionConfiguration" "resources:" \
    "  - resources: [secrets]" "    providers:" "      - secretbox:" "          keys:"
  while read -r name secret; do
    if [ -n "$name" ]; then printf '            - name: %s\n              secret: %s\n' "$name" "$secret"; fi
  done
}

write_encryption_config() {
  local keys
  keys=$(parameter_or_none "$ENCRYPTION_KEYS_PARAMETER" --with-decryption) || return 1
  if [ "$keys" = none ]; then
    if put_encryption_keys "$(new_encryption_key)"; then log "made the cluster's first encryption key"; fi
    keys=$(encryption_keys)
  fi
  encryption_config <<<"$keys" | write_file "$ENCRYPTION_CONFIG_FILE.new" 0600
  mv "${BOOTSTRAP_ROOT:-}$ENCRYPTION_CONFIG_FILE.new" "${BOOTSTRAP_ROOT:-}$ENCRYPTION_CONFIG_FILE"
}

rotate_encryption_key() {
  local keys
  keys=$(encryption_keys)
  case "$1" in
    add) put_encryption_keys "$keys"$'\n'"$(new_encryption_key)" --overwrite ;;
    promote) put_encryption_keys "$(tail -n 1 <<<"$keys")"$'\n'"$(head -n -1 <<<"$keys")" --overwrite ;;
    drop) put_encryption_keys "$(head -n 1 <<<"$keys")" --overwrite ;;
    *)
      log "rotate_encryption_key add|promote|drop"
      return 1
      ;;
  esac
  log "encryption keys now: $(encryption_keys | cut -d' ' -f1 | tr '\n' ' ')"
}

# bootstrap/authenticator.sh

prepare_authenticator() {
  local cert
  local state="${BOOTSTRAP_ROOT:-}$AUTHENTICATOR_STATE_DIR"
  if [ ! -s "$state/cert.pem" ] || [ ! -s "$state/key.pem" ]; then
    install -d -m 0700 -o "$AUTHENTICATOR_UID" -g "$AUTHENTICATOR_UID" "$state"
    (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj /CN=aws-iam-authenticator -addext "subjectAltName=IP:$AUTHENTICATOR_ADDRESS" \
      -keyout "$state/key.pem" -out "$state/cert.pem") || return 1
    chown "$AUTHENTICATOR_UID:$AUTHENTICATOR_UID" "$state/key.pem" "$state/cert.pem"
  fi
  cert=$(base64 -w0 <"$state/cert.pem")
  write_file "$AUTHENTICATOR_WEBHOOK_FILE" 0600 <<EOF_KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: aws-iam-authenticator
    cluster:
      server: https://$AUTHENTICATOR_ADDRESS:$AUTHENTICATOR_PORT/authenticate
      certificate-authority-data: $cert
users:
  - name: kube-apiserver
contexts:
  - name: webhook
    context:
      cluster: aws-iam-authenticator
      user: kube-apiserver
current-context: webhook
EOF_KUBECONFIG
}

start_authenticator() {
  install -m 0644 "${BOOTSTRAP_ROOT:-}$AUTHENTICATOR_POD_FILE" "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/manifests/aws-iam-authenticator.yaml"
  retry curl -sSfk --max-time 5 -o /dev/null "https://$AUTHENTICATOR_ADDRESS:$AUTHENTICATOR_PORT/healthz"
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

# bootstrap/etcd.sh


etcd_image() {
  local manifest="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/manifests/etcd.yaml" image
  if [ -f "$manifest" ]; then
    image=$(sed -n 's/^ *image: *//p' "$manifest" | head -n 1)
  else
    image=$(kubeadm config images list --kubernetes-version "v$KUBERNETES_VERSION" | grep '/etcd:' || true)
  fi
  if [ -z "$image" ]; then
    log "cannot tell which etcd image kubeadm runs"
    return 1
  fi
  echo "$image"
}

etcd_tools_install() {
  local mnt copy="$2.$$" status=0 tool
  if [ -z "$(ctr -n k8s.io images ls -q "name==$1" 2>/dev/null)" ]; then
    retry ctr -n k8s.io images pull "$1" >/dev/null || return 1
  fi
  mnt=$(mktemp -d)
  if ! ctr -n k8s.io images mount "$1" "$mnt" >/dev/null; then
    rmdir "$mnt"
    return 1
  fi
  mkdir -p "$copy"
  for tool in etcdctl etcdutl; do cp "$mnt/usr/local/bin/$tool" "$copy/" || status=1; done
  ctr -n k8s.io images unmount --rm "$mnt" >/dev/null || status=1
  rmdir "$mnt" || true
  if [ "$status" -eq 0 ] && ! mv -T "$copy" "$2" 2>/dev/null && [ ! -x "$2/etcdctl" ]; then status=1; fi
  rm -rf "$copy"
  if [ "$status" -ne 0 ]; then
    log "cannot copy etcd's tools out of $1"
    return 1
  fi
}

etcd_tools_dir() {
  if [ -n "${ETCD_TOOLS_DIR:-}" ]; then
    echo "$ETCD_TOOLS_DIR"
    return 0
  fi
  local image dir
  image=$(etcd_image) || return 1
  dir="${BOOTSTRAP_ROOT:-}$TOOLS_DIR/etcd/${image##*:}"
  if [ ! -x "$dir/etcdctl" ]; then etcd_tools_install "$image" "$dir" || return 1; fi
  echo "$dir"
}

etcdctl_at() {
  local dir pki="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki/etcd"
  dir=$(etcd_tools_dir) || return 1
  "$dir/etcdctl" --endpoints="$1" --cacert="$pki/ca.crt" --cert="$pki/healthcheck-client.crt" \
    --key="$pki/healthcheck-client.key" --dial-timeout=3s --command-timeout="${ETCD_COMMAND_SECONDS}s" "${@:2}"
}

etcd_client_certificate() {
  local pki="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki"
  if [ -e "$pki/etcd/healthcheck-client.crt" ]; then return 0; fi
  kubeadm init phase certs etcd-healthcheck-client --cert-dir "$pki" --kubernetes-version "v$KUBERNETES_VERSION" >/dev/null
}

etcd_json_rows() {
  python3 -c 'import json, sys
data = json.load(sys.stdin)
for row in eval(sys.argv[1]): print(*row)' "$1"
}

etcd_control_plane_addresses() {
  local rows
  rows=$(etcd_control_plane_instances) || return 1
  awk '$2 != "" && $2 != "None" { print $2 }' <<<"$rows"
}

etcd_control_plane_instances() {
  retry aws ec2 describe-instances --region "$REGION" \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=tag:$CONTROL_PLANE_TAG,Values=1" \
    "Name=instance-state-name,Values=pending,running" \
    --query 'Reservations[].Instances[].[InstanceId,PrivateIpAddress]' --output text
}

etcd_remove_members() {
  local own found addresses=" " address endpoints="" list id peer
  own=$(imds local-ipv4)
  found=$(etcd_control_plane_addresses) || return 1
  for address in $found; do
    addresses+="$address "
    if [ "$address" != "$own" ]; then endpoints+="${endpoints:+,}https://$address:$ETCD_CLIENT_PORT"; fi
  done
  if [ -z "$endpoints" ]; then return 0; fi
  etcd_client_certificate
  list=$(etcdctl_at "$endpoints" member list -w json --hex) || return 1
  while read -r id peer; do
    address=${peer#*://}
    address=${address%:*}
    case "$1" in
    departed) if [[ $addresses == *" $address "* ]]; then continue; fi ;;
    self) if [ "$address" != "$own" ]; then continue; fi ;;
    esac
    log "etcd member $id at $peer ($1): removing it"
    etcdctl_at "$endpoints" member remove "$id" >/dev/null || return 1
  done < <(etcd_json_rows '((m["ID"], m["peerURLs"][0]) for m in data["members"])' <<<"$list")
  if [ "$1" = self ]; then
    list=$(etcdctl_at "$endpoints" member list -w json --hex) || return 1
    if etcd_json_rows '((m["peerURLs"][0],) for m in data["members"])' <<<"$list" | grep -q "://$own:"; then
      log "this node's etcd member is still listed"
      return 1
    fi
  fi
}

reconcile_etcd_members() {
  local local_endpoint="${ETCD_LOCAL:-https://127.0.0.1:$ETCD_CLIENT_PORT}" leads instances list id peer learner
  local address instance first last now voters=0 answering=0 learners=0 removals=() replaced=no
  local unhealthy="${BOOTSTRAP_ROOT:-}$ETCD_UNHEALTHY_DIR"
  local -A instance_at=() listed=()
  if ! leads=$(etcd_leads "$local_endpoint"); then
    rm -rf "$unhealthy"
    log "this etcd member does not answer with a leader: it cannot reconcile the members"
    return 1
  fi
  if [ "$leads" = no ]; then
    rm -rf "$unhealthy"
    return 0
  fi
  instances=$(etcd_control_plane_instances) || return 1
  while read -r instance address; do
    if [ -n "$address" ] && [ "$address" != None ]; then instance_at[$address]=$instance; fi
  done <<<"$instances"
  list=$(etcdctl_at "$local_endpoint" member list -w json) || return 1
  mkdir -p "$unhealthy"
  now=$(date +%s)
  while read -r id peer learner; do
    listed[$id]=1
    if [ "$learner" = True ]; then
      learners=$((learners + 1))
      continue
    fi
    voters=$((voters + 1))
    address=${peer#*://}
    address=${address%:*}
    if etcd_leads "https://$address:$ETCD_CLIENT_PORT" >/dev/null 2>&1; then
      answering=$((answering + 1))
      rm -f "$unhealthy/$id"
      continue
    fi
    instance=${instance_at[$address]:-}
    if [ -z "$instance" ]; then
      removals+=("$id $peer -")
      continue
    fi
    read -r first last 2>/dev/null <"$unhealthy/$id" || first=""
    if [ -z "$first" ] || [ $((now - last)) -gt 180 ]; then first=$now; fi
    echo "$first $now" >"$unhealthy/$id"
    log "etcd member $id at $peer (instance $instance) has not answered for $((now - first))s"
    if [ $((now - first)) -ge $((ETCD_UNHEALTHY_MINUTES * 60)) ]; then removals+=("$id $peer $instance"); fi
  done < <(etcd_json_rows '((format(m["ID"], "x"), m["peerURLs"][0], m.get("isLearner", False)) for m in data["members"])' <<<"$list")
  for first in "$unhealthy"/*; do
    if [ -e "$first" ] && [ -z "${listed[${first##*/}]:-}" ]; then rm -f "$first"; fi
  done
  for row in "${removals[@]}"; do
    read -r id peer instance <<<"$row"
    if [ "$answering" -lt $(((voters - 1) / 2 + 1)) ]; then
      log "etcd member $id at $peer does not answer, but removing it would leave $answering answering of $((voters - 1)) voters: keeping it"
      return 1
    fi
    if [ "$instance" = - ]; then
      log "etcd member $id at $peer: no control-plane instance runs there: removing it"
    else
      if [ "$learners" -gt 0 ] || [ "$replaced" = yes ]; then continue; fi
      log "etcd member $id at $peer: not answering for ${ETCD_UNHEALTHY_MINUTES} minutes: marking instance $instance unhealthy, then removing the member"
      retry aws autoscaling set-instance-health --region "$REGION" --instance-id "$instance" \
        --health-status Unhealthy --no-should-respect-grace-period || return 1
      replaced=yes
    fi
    etcdctl_at "$local_endpoint" member remove "$id" >/dev/null || return 1
    voters=$((voters - 1))
    rm -f "$unhealthy/$id"
  done
}

etcd_leads() {
  local status member leader
  status=$(etcdctl_at "$1" endpoint status -w json) || return 1
  read -r member leader < <(etcd_json_rows '[(data[0]["Status"]["header"]["member_id"], data[0]["Status"].get("leader", ""))]' <<<"$status")
  if [ -z "$member" ] || [ -z "$leader" ]; then
    log "etcd at $1 names no leader"
    return 1
  fi
  if [ "$member" = "$leader" ]; then echo yes; else echo no; fi
}

etcd_backup() {
  local endpoint="${ETCD_LOCAL:-https://127.0.0.1:$ETCD_CLIENT_PORT}" leads dir file key
  leads=$(etcd_leads "$endpoint") || return 1
  if [ "$leads" = no ]; then
    log "this etcd member does not lead: no snapshot from here"
    return 0
  fi
  dir=$(mktemp -d)
  # shellcheck disable=SC2064 # the directory of this run, now
  trap "rm -rf '$dir'" EXIT
  file="$dir/snapshot.db"
  # shellcheck disable=SC2004 # with its $, the script's header defines the variable (shellHeader.ts)
  ETCD_COMMAND_SECONDS=$(($BACKUP_INTERVAL_MINUTES * 60)) etcdctl_at "$endpoint" snapshot save "$file" >/dev/null
  "$(etcd_tools_dir)/etcdutl" snapshot status "$file" -w json >/dev/null
  key="$SNAPSHOT_PREFIX$(date -u +%Y%m%dT%H%M%SZ).db"
  aws s3 cp --region "$REGION" --only-show-errors "$file" "s3://$BACKUP_BUCKET/$key"
  aws s3 cp --region "$REGION" --only-show-errors "$file" "s3://$BACKUP_BUCKET/$LATEST_SNAPSHOT_KEY"
  aws cloudwatch put-metric-data --region "$REGION" --namespace "$SNAPSHOT_METRIC_NAMESPACE_PREFIX/$CLUSTER_NAME" \
    --metric-name "$SNAPSHOT_METRIC_NAME" --dimensions "$SNAPSHOT_METRIC_DIMENSION=$CLUSTER_NAME" --value 1
  log "uploaded etcd snapshot $key (and as $LATEST_SNAPSHOT_KEY)"
}

latest_snapshot_exists() {
  local keys
  keys=$(retry aws s3api list-objects-v2 --region "$REGION" --bucket "$BACKUP_BUCKET" --prefix "$LATEST_SNAPSHOT_KEY" \
    --query 'Contents[].Key' --output text) || return 1
  if [[ " $keys " == *[[:space:]]"$LATEST_SNAPSHOT_KEY"[[:space:]]* ]]; then echo yes; else echo no; fi
}

etcd_sole_member() {
  local list
  list=$(etcdctl_at "https://127.0.0.1:$ETCD_CLIENT_PORT" member list -w json --hex) || return 1
  if [ "$(etcd_json_rows '((m["ID"],) for m in data["members"])' <<<"$list" | wc -l)" -eq 1 ]; then
    echo yes
  else
    echo no
  fi
}

etcd_restore() {
  local key=$1 dir tools name ip status=0 data="${BOOTSTRAP_ROOT:-}/var/lib/etcd"
  tools=$(etcd_tools_dir) || return 1
  name=$(node_name) || return 1
  ip=$(imds local-ipv4) || return 1
  dir=$(mktemp -d)
  retry aws s3 cp --region "$REGION" --only-show-errors "s3://$BACKUP_BUCKET/$key" "$dir/snapshot.db" &&
    "$tools/etcdutl" snapshot status "$dir/snapshot.db" -w json >/dev/null &&
    rm -rf "$data" &&
    "$tools/etcdutl" snapshot restore "$dir/snapshot.db" --data-dir "$data" --name "$name" \
      --initial-cluster "$name=https://$ip:$ETCD_PEER_PORT" --initial-advertise-peer-urls "https://$ip:$ETCD_PEER_PORT" \
      --bump-revision 1000000000 --mark-compacted >/dev/null || status=$?
  rm -rf "$dir"
  if [ "$status" -ne 0 ]; then
    log "cannot restore s3://$BACKUP_BUCKET/$key"
    rm -rf "$data"
    return "$status"
  fi
  log "restored s3://$BACKUP_BUCKET/$key into $data"
}

# bootstrap/drain.sh

kubectl_admin() {
  kubectl --kubeconfig "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" --request-timeout=10s "$@"
}

node_drained() {
  local node pods
  node=$(kubectl_admin get node "$1" --ignore-not-found -o json) || return 1
  if [ -z "$node" ]; then
    echo yes
    return 0
  fi
  pods=$(kubectl_admin get pods --all-namespaces --field-selector "spec.nodeName=$1" -o json) || return 1
  python3 -c 'import json, sys
node, pods = json.loads(sys.argv[2]), json.load(sys.stdin)["items"]
def stays(pod):
    meta = pod["metadata"]
    return (any(o.get("kind") == "DaemonSet" for o in meta.get("ownerReferences", []))
            or "kubernetes.io/config.mirror" in meta.get("annotations", {})
            or meta.get("labels", {}).get("app.kubernetes.io/name") == sys.argv[1])
held = sorted("{}/{}".format(p["metadata"].get("namespace", ""), p["metadata"]["name"]) for p in pods if not stays(p))
if not node.get("spec", {}).get("unschedulable", False):
    print("no: not cordoned")
elif held:
    print("no: " + " ".join(held))
else:
    print("yes")' "$DRAIN_HANDLER_NAME" "$node" <<<"$pods"
}

# bootstrap/node-credentials.sh

mint_node_credential() {
  local config status=0
  config=$(mktemp)
  kubeadm_config kubeadm_init_configuration >"$config" || status=$?
  if [ "$status" -eq 0 ]; then
    kubeadm kubeconfig user --config "$config" --client-name "system:node:$1" --org system:nodes \
      --validity-period "${NODE_CREDENTIAL_MINUTES:-60}m" || status=$?
  fi
  rm -f "$config"
  return "$status"
}

node_certificate() {
  local credential field
  credential=$(mint_node_credential "$1") || return 1
  for field in client-certificate-data client-key-data; do
    awk -v field="$field:" '$1 == field { print $2 }' <<<"$credential" | base64 -d || return 1
  done
}

join_credential() {
  local name
  name=$(node_name) || return 1
  mint_node_credential "$name"
}

credential_work() {
  local nodes=$1 issued=$2 id name parameter
  declare -A waiting=()
  while read -r id name; do
    if [ -z "$id" ] || [ -z "$name" ] || [ "$name" = None ]; then continue; fi
    name=$(tr '[:upper:]' '[:lower:]' <<<"$name")
    if grep -qxF "$name" <<<"$nodes"; then continue; fi
    waiting[$id]=1
    if ! grep -qxF "$NODE_CREDENTIALS_PREFIX$id" <<<"$issued"; then echo "issue $id $name"; fi
  done
  while read -r parameter; do
    if [ -n "$parameter" ] && [ -z "${waiting[${parameter#"$NODE_CREDENTIALS_PREFIX"}]:-}" ]; then
      echo "delete $parameter"
    fi
  done <<<"$issued"
}

worker_instances() {
  aws ec2 describe-instances --region "$REGION" --output text \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=tag:$NODE_TAG,Values=1" \
    "Name=instance-state-name,Values=pending,running" \
    --query 'Reservations[].Instances[].[InstanceId,PrivateDnsName]'
}

issued_credentials() {
  aws ssm get-parameters-by-path --region "$REGION" --path "${NODE_CREDENTIALS_PREFIX%/}" \
    --query 'Parameters[].Name' --output text | tr '\t' '\n'
}

issue_node_credentials() {
  local instances nodes issued work action target name role credential
  issued=$(issued_credentials) || return 1
  instances=$(worker_instances) || return 1
  nodes=$(kubectl_admin get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}') || return 1
  work=$(credential_work "$nodes" "$issued" <<<"$instances")
  while read -r action target name; do
    case "$action" in
    issue)
      if [ -z "${role:-}" ]; then
        role=$(aws iam get-role --role-name "$NODE_ROLE_NAME" --query Role.RoleId --output text) || return 1
      fi
      credential=$(node_certificate "$name") || return 1
      if put_secure_parameter "$NODE_CREDENTIALS_PREFIX$target" "$credential" \
        --tags "Key=$NODE_CREDENTIAL_SESSION_TAG,Value=$role:$target"; then
        log "issued instance $target its credential as node $name"
      fi
      ;;
    delete)
      aws ssm delete-parameter --region "$REGION" --name "$target" >/dev/null 2>&1 || true
      ;;
    esac
  done <<<"$work"
}

retire_bootstrap_tokens() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" tokens token
  tokens=$(kubeadm token list --kubeconfig "$admin" -o jsonpath='{.token}{"\n"}') || return 1
  for token in $tokens; do
    kubeadm token delete "${token%%.*}" --kubeconfig "$admin" >/dev/null || return 1
  done
  kubectl_admin delete clusterrolebinding kubeadm:node-autoapprove-bootstrap --ignore-not-found >/dev/null
}

issue_node_credentials_while_up() {
  while true; do
    issue_node_credentials || log "issuing node credentials failed; again in ${NODE_CREDENTIALS_INTERVAL}s"
    sleep "$NODE_CREDENTIALS_INTERVAL"
  done
}

# bootstrap/upgrade.sh

upgrade_mode() {
  local pattern='^([0-9]+)\.([0-9]+)\.([0-9]+)$' c n
  if [ "$#" -ne 2 ] || [[ ! $1 =~ $pattern ]]; then
    log "upgrade_mode: unknown input: $*"
    return 2
  fi
  c=("${BASH_REMATCH[@]:1}")
  if [[ ! $2 =~ $pattern ]]; then
    log "upgrade_mode: unknown input: $*"
    return 2
  fi
  n=("${BASH_REMATCH[@]:1}")
  if [ "$1" = "$2" ]; then
    echo none
  elif [ "${n[0]}" -ne "${c[0]}" ]; then
    echo refuse
  elif [ "${n[1]}" -lt "${c[1]}" ] || { [ "${n[1]}" -eq "${c[1]}" ] && [ "${n[2]}" -lt "${c[2]}" ]; }; then
    if [ "${c[1]}" -le $((n[1] + 1)) ]; then echo back; else echo refuse; fi
  elif [ "${n[1]}" -gt $((c[1] + 1)) ]; then
    echo refuse
  else
    echo upgrade
  fi
}

cluster_version() {
  local config version
  config=$(retry kubectl --kubeconfig "$1" -n kube-system get configmap kubeadm-config \
    -o jsonpath='{.data.ClusterConfiguration}') || return 1
  version=$(sed -n 's/^kubernetesVersion: *v\{0,1\}//p' <<<"$config")
  if [ -z "$version" ]; then
    log "the cluster's kubeadm-config names no kubernetesVersion"
    return 1
  fi
  echo "$version"
}

newest_control_plane() {
  local kubelets images
  kubelets=$(retry kubectl --kubeconfig "$1" get nodes -l node-role.kubernetes.io/control-plane \
    -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{"\n"}{end}') || return 1
  images=$(retry kubectl --kubeconfig "$1" -n kube-system get pods -l component=kube-apiserver,tier=control-plane \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}') || return 1
  { sed -n 's/^v//p' <<<"$kubelets"; sed -n 's/.*:v\([0-9][0-9.]*\)$/\1/p' <<<"$images"; } | sort -V | tail -n 1
}

kubeadm_config_annotation() {
  kubectl --kubeconfig "$1" -n kube-system get configmap kubeadm-config -o json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["metadata"].get("annotations", {}).get(sys.argv[1], ""))' "$2"
}

moved_recently() {
  local moved
  moved=$(kubeadm_config_annotation "$1" "$UPGRADE_MOVED_ANNOTATION") || return 0
  [[ $moved =~ ^[0-9]+$ ]] && [ $(($(date +%s) - moved)) -lt "$MOVE_BACK_AFTER_SECONDS" ]
}

cluster_documents() {
  kubeadm_init_configuration | awk 'BEGIN { RS = "---\n"; ORS = "" }
    !/(^|\n)kind: InitConfiguration\n/ { printf "%s%s", (n++ ? "---\n" : ""), $0 }'
}

upgrade_cluster() (
  local dir version mode newest
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  install -m 0600 /dev/null "$dir/kubeadm.yaml"
  kubeadm_config cluster_documents >"$dir/kubeadm.yaml"
  kubeadm kubeconfig user --config "$dir/kubeadm.yaml" --client-name cilium-cluster:upgrade --org "$ADMIN_GROUP" \
    --validity-period 1h >"$dir/admin.conf"
  version=$(cluster_version "$dir/admin.conf")
  mode=$(upgrade_mode "$version" "$KUBERNETES_VERSION")
  case "$mode" in
  none) ;;
  upgrade)
    log "the cluster runs Kubernetes $version: moving its configuration to $KUBERNETES_VERSION before joining"
    kubeadm init phase upload-config kubeadm --config "$dir/kubeadm.yaml" --kubeconfig "$dir/admin.conf"
    kubectl --kubeconfig "$dir/admin.conf" -n kube-system annotate configmap kubeadm-config --overwrite \
      "$UPGRADE_MOVED_ANNOTATION=$(date +%s)" >/dev/null
    ;;
  back)
    newest=$(newest_control_plane "$dir/admin.conf") || return 1
    if [ -n "$newest" ] && [ "$newest" != "$KUBERNETES_VERSION" ] &&
      [ "$(printf '%s\n' "$newest" "$KUBERNETES_VERSION" | sort -V | tail -n 1)" = "$newest" ]; then
      log "the cluster runs Kubernetes $version, and a control plane of $newest runs: a $KUBERNETES_VERSION node does not join it"
      return 1
    fi
    if moved_recently "$dir/admin.conf"; then
      log "the cluster's configuration names Kubernetes $version, which the node that moved it may still be joining: not moving it back yet"
      return 1
    fi
    log "the cluster's configuration names Kubernetes $version, which no control-plane node runs (an upgrade's first node failed): moving it back to $KUBERNETES_VERSION before joining"
    kubeadm init phase upload-config kubeadm --config "$dir/kubeadm.yaml" --kubeconfig "$dir/admin.conf"
    ;;
  *)
    log "the cluster runs Kubernetes $version, which a $KUBERNETES_VERSION node does not join (kubeadm upgrades one minor at a time, never down)"
    return 1
    ;;
  esac
)

control_plane_current() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" images image
  images=$(kubectl --kubeconfig "$admin" -n kube-system get pods -l component=kube-apiserver,tier=control-plane \
    -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}') || return 1
  if [ -z "$images" ]; then return 1; fi
  while read -r image; do
    if [ "${image##*:}" != "v$KUBERNETES_VERSION" ]; then return 1; fi
  done <<<"$images"
}

finish_upgrade() {
  local admin="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/admin.conf" version finished phase
  version=$(cluster_version "$admin")
  finished=$(kubeadm_config_annotation "$admin" "$UPGRADE_FINISHED_ANNOTATION") || return 1
  if [ "$version" != "$KUBERNETES_VERSION" ] || [ "$finished" = "$KUBERNETES_VERSION" ] || ! control_plane_current; then
    return 0
  fi
  log "every control-plane node runs Kubernetes $KUBERNETES_VERSION: kubeadm's cluster-wide upgrade phases and its addons"
  for phase in "upload-config kubelet" bootstrap-token post-upgrade; do
    # shellcheck disable=SC2086 # a phase and its sub-phase
    kubeadm upgrade apply phase $phase "v$KUBERNETES_VERSION" --kubeconfig "$admin" || return 1
    if [ "$phase" = bootstrap-token ]; then retire_bootstrap_tokens || return 1; fi
  done
  kubeadm upgrade node phase addon all --kubeconfig "$admin" || return 1
  kubectl --kubeconfig "$admin" -n kube-system annotate configmap kubeadm-config --overwrite \
    "$UPGRADE_FINISHED_ANNOTATION=$KUBERNETES_VERSION" >/dev/null
}

# bootstrap/kubelet-serving.sh

pending_serving_requests() {
  python3 -c 'import json, sys
for csr in json.load(sys.stdin)["items"]:
    if csr["spec"].get("signerName") == "kubernetes.io/kubelet-serving" and not csr.get("status", {}).get("conditions"):
        print(json.dumps(csr))'
}

serving_verdicts() {
  python3 -c 'import base64, ipaddress, json, re, sys
from cryptography import x509
from cryptography.x509.oid import ExtensionOID, NameOID
NODES, PREFIX = "system:nodes", "system:node:"
USAGES = {"digital signature", "key encipherment", "server auth"}
EXTENSION_REQUEST = "1.2.840.113549.1.9.14"
HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?")
instances = {i["PrivateDnsName"].lower(): i for i in json.loads(sys.argv[1]) if i.get("PrivateDnsName")}

def owned(instance):
    names = {n.lower() for n in (instance.get("PrivateDnsName"), instance.get("PublicDnsName")) if n}
    addresses = set()
    for eni in instance.get("NetworkInterfaces", []):
        for a in eni.get("PrivateIpAddresses", []):
            addresses.add(ipaddress.ip_address(a["PrivateIpAddress"]))
            if a.get("Association", {}).get("PublicIp"):
                addresses.add(ipaddress.ip_address(a["Association"]["PublicIp"]))
        for a in eni.get("Ipv6Addresses", []):
            addresses.add(ipaddress.ip_address(a["Ipv6Address"]))
    return names, addresses

def why_not(spec):
    user = spec.get("username", "")
    if not user.startswith(PREFIX) or NODES not in spec.get("groups", []):
        return "its requester is no node"
    usages = set(spec.get("usages", []))
    if "server auth" not in usages or not usages <= USAGES:
        return "usages other than a server certificate has"
    request = x509.load_pem_x509_csr(base64.b64decode(spec["request"]))
    if not request.is_signature_valid:
        return "its signature is not valid"
    subject = sorted((a.oid.dotted_string, a.value) for a in request.subject)
    if subject != sorted([(NameOID.COMMON_NAME.dotted_string, user), (NameOID.ORGANIZATION_NAME.dotted_string, NODES)]):
        return "its subject is not its requester"
    if any(a.oid.dotted_string != EXTENSION_REQUEST for a in request.attributes):
        return "attributes other than its extensions"
    extensions = list(request.extensions)
    if [e.oid for e in extensions] != [ExtensionOID.SUBJECT_ALTERNATIVE_NAME]:
        return "extensions other than its names, or no names"
    entries = list(extensions[0].value)
    names = [e.value.lower() for e in entries if isinstance(e, x509.DNSName)]
    addresses = {e.value for e in entries if isinstance(e, x509.IPAddress)}
    if not entries or len(names) + len(addresses) != len(entries):
        return "names other than DNS names and IP addresses"
    if not all(HOST_NAME.fullmatch(n) for n in names):
        return "a DNS name no host has"
    node = user[len(PREFIX):]
    instance = instances.get(node)
    if instance is None:
        return "no running instance of this cluster is named " + node
    own_names, own_addresses = owned(instance)
    foreign = sorted(set(names) - own_names) + sorted(str(a) for a in addresses - own_addresses)
    if foreign:
        return "not of its instance: " + " ".join(foreign)
    return None

for line in sys.stdin:
    csr = json.loads(line)
    try:
        reason = why_not(csr["spec"])
    except Exception:  # any request the parser refuses, whatever it raises
        reason = "its request cannot be read"
    print(*(["approve", csr["metadata"]["name"]] if reason is None else ["deny", csr["metadata"]["name"], reason]))' "$1"
}

cluster_instances_json() {
  aws ec2 describe-instances --region "$REGION" --output json \
    --filters "Name=tag:$CLUSTER_TAG,Values=$CLUSTER_NAME" "Name=instance-state-name,Values=running" \
    --query 'Reservations[].Instances[]'
}

approve_serving_certificates() {
  local pending instances verdicts verdict name reason
  pending=$(kubectl_admin get certificatesigningrequests -o json | pending_serving_requests) || return 1
  if [ -z "$pending" ]; then return 0; fi
  instances=$(cluster_instances_json) || return 1
  verdicts=$(serving_verdicts "$instances" <<<"$pending") || return 1
  while read -r verdict name reason; do
    case "$verdict" in
    approve)
      if kubectl_admin certificate approve "$name" >/dev/null 2>&1; then log "approved $name"; fi
      ;;
    deny)
      if kubectl_admin certificate deny "$name" >/dev/null 2>&1; then log "denied $name: $reason"; fi
      ;;
    esac
  done <<<"$verdicts"
}

approve_serving_certificates_while_up() {
  while true; do
    approve_serving_certificates || log "approving kubelet serving certificates failed; again in ${NODE_CREDENTIALS_INTERVAL}s"
    sleep "$NODE_CREDENTIALS_INTERVAL"
  done
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

# bootstrap/control-plane.sh


shared_pki_stored() {
  local value
  value=$(parameter_or_none "$CLUSTER_CA_PARAMETER") || return 1
  if [ "$value" = none ]; then echo no; else echo yes; fi
}

fetch_shared_pki() {
  local f value
  for f in $SHARED_PKI_FILES; do
    value=$(secure_parameter "$SHARED_PKI_PARAMETERS$f") || return 1
    write_file "$KUBERNETES_DIR/pki/$f" "$([[ $f == *.key ]] && echo 0600 || echo 0644)" <<<"$value"
  done
}

wait_for_shared_pki() {
  if ! retry shared_pki_ready; then
    log "the cluster's keys are not stored in $SHARED_PKI_PARAMETERS"
    return 1
  fi
  fetch_shared_pki
}

shared_pki_ready() { [ "$(shared_pki_stored)" = yes ]; }

share_control_plane_pki() {
  local f pki="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki" stored owner value
  stored=$(shared_pki_stored) || return 1
  if [ "$stored" = yes ]; then return 0; fi
  owner=$(init_record_owner) || return 1
  if [ "$owner" != "$(imds instance-id)" ]; then
    log "the cluster's keys are not stored, and this node did not create the cluster ($owner did)"
    return 1
  fi
  for f in $SHARED_PKI_FILES; do
    value=$(cat "$pki/$f") || return 1
    put_secure_parameter "$SHARED_PKI_PARAMETERS$f" "$value" --overwrite || return 1
  done
  value=$(cat "$pki/ca.crt") || return 1
  put_parameter String "$CLUSTER_CA_PARAMETER" "$value" --overwrite
  log "stored the cluster's keys in $SHARED_PKI_PARAMETERS"
}


init_record_value() { parameter_or_none "$INIT_RECORD"; }

init_record_owner() {
  local value
  value=$(init_record_value) || return 1
  echo "${value%% *}"
}

init_record_state() {
  local owner own state health addresses
  owner=$(init_record_owner) || return 1
  own=$(imds instance-id) || return 1
  case "$owner" in
  none | "$own")
    if [ "$owner" = none ]; then echo none; else echo own; fi
    return 0
    ;;
  esac
  state=$(retry aws ec2 describe-instances --region "$REGION" --filters "Name=instance-id,Values=$owner" \
    --query 'Reservations[].Instances[].State.Name' --output text) || return 1
  health=$(retry aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$owner" \
    --query 'AutoScalingInstances[].HealthStatus' --output text) || return 1
  if [[ $state =~ ^(pending|running)$ ]] && [ "$health" != UNHEALTHY ]; then
    echo held
    return 0
  fi
  addresses=$(etcd_control_plane_addresses) || return 1
  # shellcheck disable=SC2046,SC2086 # one word per address
  if etcd_answers_at $(others "$(imds local-ipv4)" $addresses); then echo held; else echo stale; fi
}

etcd_answers_at() {
  local address stored
  if [ "$#" -eq 0 ]; then return 1; fi
  stored=$(shared_pki_stored) || return 0
  if [ "$stored" = no ]; then return 1; fi
  fetch_shared_pki || return 0
  etcd_client_certificate || return 0
  for address in "$@"; do
    if etcdctl_at "https://$address:$ETCD_CLIENT_PORT" endpoint status -w json >/dev/null 2>&1; then
      log "the etcd member at $address answers: the cluster runs"
      return 0
    fi
  done
  return 1
}

others() {
  local word
  for word in "${@:2}"; do if [ "$word" != "$1" ]; then echo "$word"; fi; done
}

init_record_exists() {
  local state
  state=$(init_record_state) || return 1
  if [ "$state" = held ]; then echo yes; else echo no; fi
}

claim_init_record() {
  local state value owner succession winner snapshot request
  state=$(init_record_state) || return 1
  value="$(imds instance-id) $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  case "$state" in
  own)
    init_record_value
    return
    ;;
  held) return 1 ;;
  stale)
    if [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; then return 1; fi
    owner=$(init_record_owner) || return 1
    request=$(parameter_or_none "$RESTORE_REQUEST") || return 1
    if [ "$request" != none ] && ! [[ $request =~ $SNAPSHOT_KEY_PATTERN ]]; then
      log "the restore request $RESTORE_REQUEST names $request, not a snapshot of the backup timer's"
      return 1
    fi
    succession="$INIT_RECORD-succession-$owner"
    if ! put_parameter String "$succession" "$value" >/dev/null; then
      winner=$(parameter_or_none "$succession") || return 1
      [ "${winner%% *}" = "$(imds instance-id)" ] || return 1
    fi
    if [ "$request" != none ]; then
      snapshot=$request
      value+=" restore $request"
    else
      snapshot=$(latest_snapshot_exists) || return 1
      if [ "$snapshot" = yes ]; then value+=" restore"; fi
    fi
    log "every member of the cluster is lost (the init record's owner $owner is gone): taking the record over (snapshot: $snapshot)"
    put_parameter String "$INIT_RECORD" "$value" --overwrite || return 1
    ;;
  none)
    if ! put_parameter String "$INIT_RECORD" "$value"; then
      [ "$(init_record_owner)" = "$(imds instance-id)" ] || return 1
      init_record_value
      return
    fi
    ;;
  esac
  echo "$value"
}

kubeadm_init() {
  local stored value key="" ignore=()
  if ! value=$(claim_init_record); then
    log "the init record $INIT_RECORD is another node's, or AWS did not answer: not creating a cluster"
    return 1
  fi
  if [[ $value =~ \ restore(\ (.+))?$ ]]; then
    key=${BASH_REMATCH[2]:-$LATEST_SNAPSHOT_KEY}
    log "restoring the cluster from its snapshot $key"
    etcd_restore "$key" || return 1
    ignore=(--ignore-preflight-errors=DirAvailable--var-lib-etcd)
  else
    log "no cluster was ever created: creating it"
  fi
  stored=$(shared_pki_stored) || return 1
  if [ "$stored" = yes ]; then fetch_shared_pki; fi
  pin_api_endpoint
  kubeadm_config kubeadm_init_configuration | write_file "$KUBERNETES_DIR/kubeadm.yaml" 0600
  kubeadm init --skip-token-print --config "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/kubeadm.yaml" "${ignore[@]}" || return 1
  if [ -n "$key" ] && [ "$key" != "$LATEST_SNAPSHOT_KEY" ]; then
    retry delete_parameter "$RESTORE_REQUEST" || return 1
    log "the cluster runs on $key: its restore request is deleted"
  fi
}


pin_api_endpoint() {
  local hosts="${BOOTSTRAP_ROOT:-}/etc/hosts" rest
  rest=$(awk -v name="$API_ENDPOINT" -v mark="# $API_PIN_MARK" 'index($0, mark) == 0 {
    for (i = 2; i <= NF && $i !~ /^#/; i++) if ($i == name) next
    print }' "$hosts" 2>/dev/null || true)
  printf '127.0.0.1 %s # %s\n%s\n' "$API_ENDPOINT" "$API_PIN_MARK" "$rest" >"$hosts"
}

unpin_api_endpoint() {
  local hosts="${BOOTSTRAP_ROOT:-}/etc/hosts" rest
  if [ ! -e "$hosts" ]; then return 0; fi
  rest=$(grep -v "# $API_PIN_MARK\$" "$hosts" || true)
  printf '%s\n' "$rest" >"$hosts"
}

before_member_join() {
  wait_for_shared_pki
  etcd_remove_members departed
  upgrade_cluster
}

launch_hook_heartbeat() {
  local id found group state
  id=$(imds instance-id) || return 1
  found=$(launch_hook_state "$id") || return 1
  read -r group state <<<"$found"
  if [ "$state" != Pending:Wait ]; then return 1; fi
  aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$LAUNCH_HOOK" \
    --auto-scaling-group-name "$group" --instance-id "$id"
}

while_heartbeating() {
  local beat=() beats status=0
  while [ "$1" != -- ]; do
    beat+=("$1")
    shift
  done
  shift
  "${beat[@]}" || true
  (
    trap 'kill "$pause" 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$LAUNCH_HEARTBEAT_SECONDS" &
      pause=$!
      wait "$pause"
      "${beat[@]}" || true
    done
  ) &
  beats=$!
  "$@" || status=$?
  kill "$beats" 2>/dev/null || true
  wait "$beats" 2>/dev/null || true
  return "$status"
}

during_member_join() {
  local uptime
  read -r uptime _ <"${BOOTSTRAP_ROOT:-}/proc/uptime"
  if [ "${uptime%.*}" -ge "$LAUNCH_HEARTBEATS_SECONDS" ]; then
    "$@"
    return
  fi
  while_heartbeating launch_hook_heartbeat -- "$@" || return
  launch_hook_heartbeat || true
}

after_member_join() {
  pin_api_endpoint
}

before_member_reset() {
  unpin_api_endpoint
  if [ "$(init_record_owner)" = "$(imds instance-id)" ]; then return 0; fi
  if ! etcd_remove_members self; then
    log "cannot remove this node's etcd member: not resetting yet"
    return 1
  fi
}

leave_etcd_on_termination() {
  local id group last sole_tries
  until [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; do
    sleep "$TERMINATION_WATCH_SECONDS"
  done
  id=$(imds instance-id)
  group=$(retry aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$id" \
    --query 'AutoScalingInstances[0].AutoScalingGroupName' --output text)
  if [ ! -e "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki/etcd/ca.crt" ]; then
    log "instance $id terminating: it never had an etcd member"
  else
    log "instance $id terminating: its node is drained, then its etcd member leaves"
    wait_for_drain "$1" "$group" "$id"
    sole_tries=$BOOTSTRAP_TRIES
    if [ "$(etcd_control_plane_addresses 2>/dev/null | wc -l)" -gt 1 ]; then sole_tries=3; fi
    last=$(BOOTSTRAP_TRIES=$sole_tries retry etcd_sole_member) || last=no
    if [ "$last" = yes ]; then
      save_final_snapshot "$1" "$group" "$id"
    else
      until etcd_remove_members self; do
        log "the etcd member has not left: keeping the instance"
        hold_instance "$1" "$group" "$id"
      done
    fi
  fi
  retry aws autoscaling complete-lifecycle-action --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$group" --instance-id "$id" --lifecycle-action-result CONTINUE
}

arm_etcd_leave() {
  systemctl enable etcd-leave.service
  systemctl start --no-block etcd-leave.service
}

save_final_snapshot() {
  local try
  for ((try = 1; try <= FINAL_SNAPSHOT_TRIES; try++)); do
    if while_heartbeating termination_heartbeat "$@" -- systemctl start etcd-backup.service; then
      log "saved the last member's snapshot"
      return 0
    fi
    hold_instance "$@"
  done
  log "no final snapshot after $FINAL_SNAPSHOT_TRIES tries: the next node restores the timer's last one"
}

wait_for_drain() {
  local node drained seen="" deadline=$((SECONDS + DRAIN_WAIT_SECONDS))
  node=$(node_name)
  until drained=$(node_drained "$node" || echo "no: its API does not answer") && [ "$drained" = yes ]; do
    if [ "$drained" != "$seen" ]; then
      log "node $node is not drained yet (${drained#no: })"
      seen=$drained
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "node $node is not drained after ${DRAIN_WAIT_SECONDS}s: its etcd member leaves anyway"
      return 0
    fi
    hold_instance "$@"
  done
  log "node $node is drained"
}

hold_instance() {
  termination_heartbeat "$@" || true
  sleep "$ETCD_LEAVE_RETRY_SECONDS"
}

termination_heartbeat() {
  aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$2" --instance-id "$3"
}

renewal_turn() {
  local me names name count=0 mine=-1
  if ! me=$(node_name) || ! names=$(kubectl_admin get nodes -l node-role.kubernetes.io/control-plane -o name | sort); then
    echo yes
    return 0
  fi
  for name in $names; do
    if [ "${name#node/}" = "$me" ]; then mine=$count; fi
    count=$((count + 1))
  done
  if [ "$mine" -lt 0 ] || [ $(($1 / 86400 % count)) -eq "$mine" ]; then echo yes; else echo no; fi
}

renew_certificates_if_due() {
  local cert="${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki/apiserver.crt" name
  if openssl x509 -in "$cert" -noout -checkend $((${RENEW_BEFORE_DAYS:-90} * 86400)) >/dev/null; then return 0; fi
  if [ "$(renewal_turn "$(date -u +%s)")" = no ]; then
    log "the control plane's certificates are due, but today is another control-plane node's turn to renew"
    return 0
  fi
  log "the control plane's certificates expire within ${RENEW_BEFORE_DAYS:-90} days: renewing them"
  kubeadm certs renew all
  for name in kube-apiserver kube-controller-manager kube-scheduler etcd; do
    crictl ps --name "^$name\$" -q | xargs -r crictl stop >/dev/null
  done
}

start_control_plane_services() {
  local units
  read -ra units <<<"$CONTROL_PLANE_STARTED_UNITS"
  systemctl daemon-reload
  systemctl enable --now "${units[@]}"
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
  step encryption-config write_encryption_config
  step admin-authenticator prepare_authenticator
  step kubelet configure_kubelet
  step etcd-leave arm_etcd_leave
  step join join_cluster
  step bootstrap-tokens retire_bootstrap_tokens
  step shared-pki share_control_plane_pki
  step admin-authenticator-pod start_authenticator
  step control-plane-services start_control_plane_services
  step launch-hook complete_launch_hook
  mark_joined
  log "done"
}

if [ "$#" -gt 0 ]; then "$@"; else run_steps; fi
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/cilium-cluster-bootstrap.service"
cat >"$root/etc/systemd/system/cilium-cluster-bootstrap.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=cilium-cluster bootstrap of control-plane-us-east-1a: join this node to the cluster
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
install -D -m 0644 /dev/null "$root/etc/systemd/system/etcd-backup.service"
cat >"$root/etc/systemd/system/etcd-backup.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Upload an etcd snapshot to the cluster's backup bucket when this member leads

[Service]
Type=oneshot
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap etcd_backup
SyslogIdentifier=cilium-cluster-etcd-backup
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/etcd-backup.timer"
cat >"$root/etc/systemd/system/etcd-backup.timer" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=An etcd snapshot every 15 minutes

[Timer]
OnBootSec=5min
OnUnitActiveSec=15min
RandomizedDelaySec=30s

[Install]
WantedBy=timers.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/etcd-members.service"
cat >"$root/etc/systemd/system/etcd-members.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Remove etcd members whose instances are gone, or that stopped answering, when this member leads

[Service]
Type=oneshot
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap reconcile_etcd_members
SyslogIdentifier=cilium-cluster-reconcile-etcd-members
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/etcd-members.timer"
cat >"$root/etc/systemd/system/etcd-members.timer" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Reconcile the etcd members with the control-plane instances every minute

[Timer]
OnBootSec=2min
OnUnitActiveSec=1min

[Install]
WantedBy=timers.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/etcd-leave.service"
cat >"$root/etc/systemd/system/etcd-leave.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Remove this node's etcd member when Auto Scaling terminates the instance
Documentation=https://docs.aws.amazon.com/autoscaling/ec2/userguide/lifecycle-hooks.html
After=kubelet.service

[Service]
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap leave_etcd_on_termination etcd-member
SyslogIdentifier=cilium-cluster-leave-etcd-on-termination etcd-member
Restart=on-failure
RestartSec=10s

[Install]
WantedBy=multi-user.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/certificate-renewal.service"
cat >"$root/etc/systemd/system/certificate-renewal.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Renew the control plane's kubeadm certificates when they expire within 90 days

[Service]
Type=oneshot
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap renew_certificates_if_due
SyslogIdentifier=cilium-cluster-renew-certificates-if-due
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/certificate-renewal.timer"
cat >"$root/etc/systemd/system/certificate-renewal.timer" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Check the control plane's certificates daily

[Timer]
OnBootSec=1h
OnUnitActiveSec=1d
RandomizedDelaySec=1h

[Install]
WantedBy=timers.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/node-credentials.service"
cat >"$root/etc/systemd/system/node-credentials.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Issue each new worker instance its credential for its own node name
After=kubelet.service

[Service]
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap issue_node_credentials_while_up
SyslogIdentifier=cilium-cluster-issue-node-credentials-while-up
Restart=always
RestartSec=10s

[Install]
WantedBy=multi-user.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/kubelet-serving.service"
cat >"$root/etc/systemd/system/kubelet-serving.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Approve each kubelet's serving certificate for its own instance's names and addresses
After=kubelet.service

[Service]
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap approve_serving_certificates_while_up
SyslogIdentifier=cilium-cluster-approve-serving-certificates-while-up
Restart=always
RestartSec=10s

[Install]
WantedBy=multi-user.target
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/upgrade-finish.service"
cat >"$root/etc/systemd/system/upgrade-finish.service" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Finish an upgrade once every control-plane node runs this node's Kubernetes release: kubeadm's cluster-wide phases and addons

[Service]
Type=oneshot
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin
Environment=AWS_RETRY_MODE=standard
Environment=AWS_MAX_ATTEMPTS=10
Environment=AWS_METADATA_SERVICE_TIMEOUT=5
Environment=AWS_METADATA_SERVICE_NUM_ATTEMPTS=3
ExecStart=/usr/local/sbin/cilium-cluster-bootstrap finish_upgrade
SyslogIdentifier=cilium-cluster-finish-upgrade
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/systemd/system/upgrade-finish.timer"
cat >"$root/etc/systemd/system/upgrade-finish.timer" <<'CILIUM_CLUSTER_FILE'
[Unit]
Description=Check for an upgrade to finish every 10 minutes

[Timer]
OnBootSec=10min
OnUnitActiveSec=10min
RandomizedDelaySec=1min

[Install]
WantedBy=timers.target
CILIUM_CLUSTER_FILE
install -D -m 0600 /dev/null "$root/etc/kubernetes/apiserver/admission.yaml"
cat >"$root/etc/kubernetes/apiserver/admission.yaml" <<'CILIUM_CLUSTER_FILE'
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: PodSecurity
    configuration:
      apiVersion: pod-security.admission.config.k8s.io/v1
      kind: PodSecurityConfiguration
      defaults:
        enforce: baseline
        enforce-version: latest
        audit: restricted
        audit-version: latest
        warn: restricted
        warn-version: latest
      exemptions:
        usernames: []
        runtimeClasses: []
        namespaces:
          - kube-system
CILIUM_CLUSTER_FILE
install -D -m 0600 /dev/null "$root/etc/kubernetes/apiserver/authentication.yaml"
cat >"$root/etc/kubernetes/apiserver/authentication.yaml" <<'CILIUM_CLUSTER_FILE'
apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
anonymous:
  enabled: true
  conditions:
    - path: /livez
    - path: /readyz
    - path: /healthz
CILIUM_CLUSTER_FILE
install -D -m 0600 /dev/null "$root/etc/kubernetes/apiserver/audit-policy.yaml"
cat >"$root/etc/kubernetes/apiserver/audit-policy.yaml" <<'CILIUM_CLUSTER_FILE'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
  - RequestReceived
rules:
  - level: None
    nonResourceURLs:
      - /livez*
      - /readyz*
      - /healthz*
      - /version
  - level: None
    verbs:
      - get
      - update
      - watch
    resources:
      - group: coordination.k8s.io
        resources:
          - leases
  - level: None
    resources:
      - group: ""
        resources:
          - events
      - group: events.k8s.io
  - level: Metadata
    resources:
      - group: ""
        resources:
          - secrets
          - configmaps
          - serviceaccounts/token
      - group: authentication.k8s.io
        resources:
          - tokenreviews
  - level: RequestResponse
    verbs:
      - create
      - update
      - patch
      - delete
      - deletecollection
    resources:
      - group: rbac.authorization.k8s.io
      - group: certificates.k8s.io
  - level: Metadata
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/cilium-cluster/aws-iam-authenticator/config.yaml"
cat >"$root/etc/cilium-cluster/aws-iam-authenticator/config.yaml" <<'CILIUM_CLUSTER_FILE'
clusterID: dev.k8s.local
server:
  mapRoles:
    - roleARN: arn:aws:iam::000000000000:role/admins.dev.k8s.local
      username: admin:{{SessionNameRaw}}
      groups:
        - kubeadm:cluster-admins
CILIUM_CLUSTER_FILE
install -D -m 0644 /dev/null "$root/etc/cilium-cluster/aws-iam-authenticator/pod.yaml"
cat >"$root/etc/cilium-cluster/aws-iam-authenticator/pod.yaml" <<'CILIUM_CLUSTER_FILE'
apiVersion: v1
kind: Pod
metadata:
  name: aws-iam-authenticator
  namespace: kube-system
  labels:
    component: aws-iam-authenticator
    tier: control-plane
spec:
  hostNetwork: true
  priorityClassName: system-node-critical
  securityContext:
    runAsUser: 10000
    runAsGroup: 10000
    runAsNonRoot: true
    seccompProfile:
      type: RuntimeDefault
  containers:
    - name: aws-iam-authenticator
      image: public.ecr.aws/eks-distro/kubernetes-sigs/aws-iam-authenticator:v0.7.13-eks-1-35-9
      args:
        - server
        - --config=/etc/aws-iam-authenticator/config.yaml
        - --state-dir=/var/aws-iam-authenticator
        - --address=127.0.0.1
        - --port=21362
        - --partition=aws
        - --kubeconfig-pregenerated=true
      resources:
        requests:
          cpu: 10m
          memory: 20Mi
        limits:
          memory: 64Mi
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities:
          drop:
            - ALL
      livenessProbe:
        httpGet:
          scheme: HTTPS
          host: 127.0.0.1
          port: 21362
          path: /healthz
        initialDelaySeconds: 10
        periodSeconds: 10
      volumeMounts:
        - name: config
          mountPath: /etc/aws-iam-authenticator
          readOnly: true
        - name: state
          mountPath: /var/aws-iam-authenticator
          readOnly: true
  volumes:
    - name: config
      hostPath:
        path: /etc/cilium-cluster/aws-iam-authenticator
        type: Directory
    - name: state
      hostPath:
        path: /var/lib/cilium-cluster/aws-iam-authenticator
        type: Directory
CILIUM_CLUSTER_FILE
systemctl daemon-reload
systemctl enable cilium-cluster-bootstrap.service
systemctl start --no-block cilium-cluster-bootstrap.service
