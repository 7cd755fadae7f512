# kubeadm.sh: creating or joining the cluster with the kubeadm configuration rendered from the bootstrap
# config (the kubeadm_*_configuration functions of the user data), its placeholders filled at boot.

# join_mode ROLE IN_INIT_ZONE API_READY: what this node does with kubeadm.
#   init: a control-plane node in the zone that creates the cluster, when no API server answers;
#   join: every other node (a worker, or a control-plane member once the API answers).
join_mode() {
  local role="${1:-}" in_init_zone="${2:-}" api_ready="${3:-}"
  case "$#/$role/$in_init_zone/$api_ready" in
  3/control-plane/yes/no) echo init ;;
  3/control-plane/yes/yes | 3/control-plane/no/yes | 3/control-plane/no/no | 3/node/yes/* | 3/node/no/*) echo join ;;
  *)
    log "join_mode: unknown input: $*"
    return 2
    ;;
  esac
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
  local text token hash ip fills=()
  text=$("$1")
  if [[ $text == *@BOOTSTRAP_TOKEN@* ]]; then
    token=$(secret bootstrap-token)
    fills+=("BOOTSTRAP_TOKEN=$token")
  fi
  if [[ $text == *@CA_CERT_HASH@* ]]; then
    hash=$(ca_cert_hash <"${BOOTSTRAP_ROOT:-}/etc/kubernetes/pki/ca.crt")
    fills+=("CA_CERT_HASH=$hash")
  fi
  if [[ $text == *@NODE_IP@* ]]; then
    ip=$(imds local-ipv4)
    fills+=("NODE_IP=$ip")
  fi
  fill_placeholders "${fills[@]}" <<<"$text"
}

kubeadm_join() {
  wait_for_api
  kubeadm_config kubeadm_join_configuration | write_file /etc/kubernetes/kubeadm.yaml 0600
  kubeadm join --config "${BOOTSTRAP_ROOT:-}/etc/kubernetes/kubeadm.yaml"
}

# join_cluster: runs kubeadm_<mode> for the mode join_mode decides. A worker's user data holds no
# kubeadm_init, so it cannot create a cluster.
join_cluster() {
  local zone in_init_zone=no ready=no mode
  zone=$(imds placement/availability-zone)
  if [ "$zone" = "$INIT_ZONE" ]; then in_init_zone=yes; fi
  if api_ready; then ready=yes; fi
  mode=$(join_mode "$ROLE" "$in_init_zone" "$ready")
  if ! declare -F "kubeadm_$mode" >/dev/null; then
    log "this node's bootstrap cannot $mode"
    return 1
  fi
  "kubeadm_$mode"
}
