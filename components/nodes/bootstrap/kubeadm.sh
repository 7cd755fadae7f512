# kubeadm.sh: creating or joining the cluster with the kubeadm configuration rendered from the bootstrap
# config (the kubeadm_*_configuration functions of the script), its placeholders filled at boot. Safe to run
# again: a node that joined does nothing, a half-done join is reset first. Two markers: KUBEADM_JOINED_MARKER,
# written once kubeadm joined (or created) the cluster, which kubeadm_state trusts; JOINED_MARKER, written last
# by run_steps (mark_joined) with the config hash, so a step that failed after the join (the control plane's
# services, the launch hook) runs again at the next try.

# join_mode ROLE IN_INIT_ZONE API_READY STATE RECORD: what this node does with kubeadm. STATE is
# kubeadm_state's; RECORD is init_record_exists's on the control plane ("no" on a worker).
#   none:  it has joined (STATE joined);
#   reset: a join or init stopped half-way (STATE partial) and is undone before it is tried again;
#   join:  a worker; a control-plane node when the API answers, or that waits for it to answer;
#   init:  the init zone's control-plane node when no API answers and no cluster was ever created.
# Once the record exists, no input gives init: a node never creates a second cluster.
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

# kubeadm_state ROLE: joined, partial (kubeadm left files behind but did not finish) or fresh. The CA a
# control-plane node fetches itself does not count; on a worker only kubeadm writes it.
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

# joined_with_this_config: every step succeeded, told what this node is told now (a reboot runs the service
# again), and kubeadm's state is still there.
joined_with_this_config() {
  [ "$(kubeadm_state "$ROLE")" = joined ] && [ "$(cat "${BOOTSTRAP_ROOT:-}$JOINED_MARKER" 2>/dev/null)" = "$BOOTSTRAP_CONFIG_HASH" ]
}

mark_joined() {
  write_file "$JOINED_MARKER" <<<"$BOOTSTRAP_CONFIG_HASH"
}

# api_ready: the API's /readyz answers 2xx (with -f, curl fails on a 401 or a 500: an API not ready).
api_ready() {
  curl -skf --max-time "$API_WAIT_ATTEMPT_SECONDS" "https://$API_ENDPOINT:$API_PORT/readyz" >/dev/null
}

# wait_for_api: `retry` at a steady pace, API_WAIT_TRIES tries, each up to API_WAIT_ATTEMPT_SECONDS of curl
# and API_WAIT_INTERVAL of sleep: with kubeadm join's own timeouts (5 minutes of discovery, 5 of TLS
# bootstrap) the join step ends well within the service's TimeoutStartSec (systemdUnits.ts; the sum is
# tests/timeouts.test.ts's), and a run that times out is a hung one.
wait_for_api() {
  if ! BOOTSTRAP_TRIES="$API_WAIT_TRIES" BOOTSTRAP_RETRY_DELAY="$API_WAIT_INTERVAL" \
    BOOTSTRAP_RETRY_MAX_DELAY="$API_WAIT_INTERVAL" retry api_ready; then
    log "the API at $API_ENDPOINT:$API_PORT did not answer"
    return 1
  fi
}

# fill_placeholders NAME=VALUE...: standard input with every @NAME@ replaced by VALUE. Fails if a
# placeholder is left, so kubeadm never gets a half-filled configuration.
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

# kubeadm_config FUNCTION: the configuration FUNCTION prints, with what exists only at boot filled in.
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

# role_part FUNCTION: runs FUNCTION where this node's role defines it, and does nothing where it does not.
# control-plane.sh defines the control plane's parts of a join and a reset (before_member_join,
# after_member_join, before_member_reset) and init_record_exists; a worker's script holds none of them.
role_part() {
  if declare -F "$1" >/dev/null; then "$1"; fi
}

# role_around FUNCTION COMMAND...: COMMAND, run by FUNCTION where this node's role defines it (control-plane.sh:
# during_member_join), else as it is.
role_around() {
  if declare -F "$1" >/dev/null; then "$@"; else "${@:2}"; fi
}

# kubeadm_join: join_credential is this node's credential for its own name, which its role's module defines: a
# worker reads the one the control plane issued to its instance (join-credential.sh), a control-plane node
# signs its own (node-credentials.sh).
kubeadm_join() {
  wait_for_api
  role_part before_member_join
  # The credential is kubeadm's discovery file: the cluster's CA and address, and the client certificate the
  # kubelet requests its own with. Gone once kubeadm has read it, whether the join succeeded or not.
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

# A half-done join or init is undone by `kubeadm reset`: the static pods' containers (which would hold the
# control plane's ports), kubeadm's files and certificates, /var/lib/etcd and the kubelet's state; a
# control-plane node first hands back what only it holds (before_member_reset). This run then fails:
# the service starts again from the first step, and the join fetches again what was removed.
kubeadm_reset() {
  log "kubeadm stopped half-way before: undoing what it left with kubeadm reset"
  role_part before_member_reset || return 1
  kubeadm reset --force
  return 1
}

# join_cluster: runs kubeadm_<mode> for the mode join_mode decides. A worker's script holds no
# kubeadm_init, so it cannot create a cluster.
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
