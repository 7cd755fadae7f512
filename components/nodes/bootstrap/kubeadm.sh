# kubeadm.sh: creating or joining the cluster with the kubeadm configuration rendered from the bootstrap
# config (the kubeadm_*_configuration functions of the user data), its placeholders filled at boot.

# join_mode ROLE IN_INIT_ZONE API_READY INIT_RECORD ETCD_DATA SNAPSHOT: what this node does with kubeadm.
#   rejoin:  a control-plane node whose etcd volume holds a member's data comes back as that member;
#   join:    a worker; a control-plane node when the API answers, or that waits for it to answer;
#   init:    the init zone's control-plane node when no cluster was ever created (no init record);
#   restore: the init zone's control-plane node when the record says a cluster exists but no member
#            answers, its volume is empty and a snapshot exists.
# Once the record exists, no input gives init: a node never creates a second cluster.
join_mode() {
  local arg
  for arg in "${@:2}"; do
    if [[ $arg != yes && $arg != no ]] || [ "$#" -ne 6 ] || [[ $1 != node && $1 != control-plane ]]; then
      log "join_mode: unknown input: $*"
      return 2
    fi
  done
  local role=$1 in_init_zone=$2 api_ready=$3 record=$4 member_data=$5 snapshot=$6
  if [ "$#" -ne 6 ]; then
    log "join_mode: unknown input: $*"
    return 2
  elif [ "$role" = node ]; then echo join
  elif [ "$member_data" = yes ]; then echo rejoin
  elif [ "$api_ready" = yes ]; then echo join
  elif [ "$in_init_zone" = yes ] && [ "$record" = no ]; then echo init
  elif [ "$in_init_zone" = yes ] && [ "$snapshot" = yes ]; then echo restore
  else echo join; fi
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
  local zone in_init_zone=no ready=no mode state="no no no"
  zone=$(imds placement/availability-zone)
  if [ "$zone" = "$INIT_ZONE" ]; then in_init_zone=yes; fi
  if api_ready; then ready=yes; fi
  if [ "$ROLE" = control-plane ]; then state=$(cluster_state); fi
  # shellcheck disable=SC2086 # the three words of cluster_state
  mode=$(join_mode "$ROLE" "$in_init_zone" "$ready" $state)
  if ! declare -F "kubeadm_$mode" >/dev/null; then
    log "this node's bootstrap cannot $mode"
    return 1
  fi
  "kubeadm_$mode"
}
