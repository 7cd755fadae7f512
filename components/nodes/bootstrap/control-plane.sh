# control-plane.sh: what only control-plane nodes do: share the cluster's keys, create the cluster once,
# reach their own API server, leave etcd when Auto Scaling terminates them (once drained), renew their
# certificates.

# The cluster's shared PKI (SHARED_PKI_FILES, paths below kubeadm's pki directory): its three CAs and the
# service-account key pair, which every control-plane node needs the same (kubeadm join --control-plane
# requires them; no certificateKey). kubeadm init makes them on the node that creates the cluster, which then
# shares them through SSM: a SecureString each under SHARED_PKI_PARAMETERS and the cluster's key, which only the
# control-plane role reads. Beyond the control-plane nodes they exist only there: not in the Pulumi state, not in
# user data. The cluster CA's certificate goes last, to CLUSTER_CA_PARAMETER, which workers and `pulumi up`
# read: once it exists, every file is stored. Only the init record's owner writes them (--overwrite: its own
# earlier half-done attempt), and only before that last one exists.

# shared_pki_stored: yes once the cluster's CA certificate is in CLUSTER_CA_PARAMETER. Fails when SSM cannot say.
shared_pki_stored() {
  local value
  value=$(parameter_or_none "$CLUSTER_CA_PARAMETER") || return 1
  if [ "$value" = none ]; then echo no; else echo yes; fi
}

# fetch_shared_pki: the stored files into kubeadm's pki directory, keys readable by root only.
fetch_shared_pki() {
  local f value
  for f in $SHARED_PKI_FILES; do
    value=$(secure_parameter "$SHARED_PKI_PARAMETERS$f") || return 1
    write_file "$KUBERNETES_DIR/pki/$f" "$([[ $f == *.key ]] && echo 0600 || echo 0644)" <<<"$value"
  done
}

# wait_for_shared_pki: a joining node's copy of the files. The node that created the cluster stores them
# before it goes in service, and the API's name reaches only nodes in service (the load balancer): once the
# API answers (wait_for_api) they are stored: retry's few tries, for SSM's read after write, and no second long
# wait. Before a restored cluster's keys are stored (docs/operations.md), the run fails and systemd starts it
# again.
wait_for_shared_pki() {
  if ! retry shared_pki_ready; then
    log "the cluster's keys are not stored in $SHARED_PKI_PARAMETERS"
    return 1
  fi
  fetch_shared_pki
}

shared_pki_ready() { [ "$(shared_pki_stored)" = yes ]; }

# share_control_plane_pki: the files kubeadm init made, stored by the node that created the cluster; nothing
# once they are stored (every later run, every other node).
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
  # Not secret: a String, which its readers need no key for.
  value=$(cat "$pki/ca.crt") || return 1
  put_parameter String "$CLUSTER_CA_PARAMETER" "$value" --overwrite
  log "stored the cluster's keys in $SHARED_PKI_PARAMETERS"
}

# The init record (INIT_RECORD, an SSM parameter): created by the one node that runs kubeadm init, without
# --overwrite, which SSM makes atomic: of two nodes racing, one creates it and the other fails. Once it
# exists no other node creates a cluster: with every member lost the cluster is restored by hand
# (docs/operations.md), never created again beside its backups.

# init_record_owner: the instance that created the init record, or "none". Fails when SSM cannot say
# (never taken for "none": that would create a second cluster).
init_record_owner() {
  local value
  value=$(parameter_or_none "$INIT_RECORD") || return 1
  echo "${value%% *}"
}

# init_record_exists: yes when another instance created the record. This instance's own record (its
# bootstrap retried after a kubeadm init that failed) lets it init again.
init_record_exists() {
  local owner
  owner=$(init_record_owner) || return 1
  if [ "$owner" = none ] || [ "$owner" = "$(imds instance-id)" ]; then echo no; else echo yes; fi
}

# claim_init_record: creates the record, or finds it this instance's own.
claim_init_record() {
  if aws ssm put-parameter --region "$REGION" --name "$INIT_RECORD" --type String \
    --value "$(imds instance-id) $(date -u +%Y-%m-%dT%H:%M:%SZ)" >/dev/null; then
    return 0
  fi
  [ "$(init_record_owner)" = "$(imds instance-id)" ]
}

kubeadm_init() {
  if ! claim_init_record; then
    log "another node holds the init record $INIT_RECORD: not creating a second cluster"
    return 1
  fi
  log "no cluster was ever created: creating it"
  # Stored already when the cluster is restored from a snapshot onto a new node (docs/operations.md, whose
  # runbook hands this node the init record), or when an init of this node's stopped after storing them: the
  # cluster's keys are those, and kubeadm init uses the CAs it finds.
  local stored
  stored=$(shared_pki_stored) || return 1
  if [ "$stored" = yes ]; then fetch_shared_pki; fi
  pin_api_endpoint
  kubeadm_config kubeadm_init_configuration | write_file "$KUBERNETES_DIR/kubeadm.yaml" 0600
  # The bootstrap token kubeadm makes is never used, and goes in the next step (retire_bootstrap_tokens):
  # kept out of the journal too.
  kubeadm init --skip-token-print --config "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/kubeadm.yaml"
}

# The API's name (API_ENDPOINT, kubeadm's controlPlaneEndpoint) is an alias of the API load balancer, which
# sends a connection only to an instance in service, registered once its launch hook is completed: the
# first node's kubeadm init would find no target at all. So a control-plane node reaches the name at its
# own API server, which listens on the same port (kOps does the same): kubeadm init's phases after the
# static pods start, and everything later that uses admin.conf. Written before kubeadm init, and after
# kubeadm join (which reaches the cluster through the load balancer, at the nodes in service). The pinning
# line ends with the comment API_PIN_MARK, which tells it from the lines of others.

# pin_api_endpoint: the name at 127.0.0.1 in /etc/hosts, which wins over DNS (nsswitch "files dns"), and
# nowhere else there: a resolver that finds the name in the file returns every address it has for it.
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

# before_member_join: a control-plane node's part before kubeadm join (kubeadm.sh). The cluster's keys first:
# the etcd client below, this node's own credential and kubeadm's join need them. kubeadm's check-etcd phase
# needs every voting member to answer: members whose instances are gone leave first. An older cluster moves
# to this node's release first (upgrade.sh), whose static pods the join deploys.
before_member_join() {
  wait_for_shared_pki
  etcd_remove_members departed
  upgrade_cluster
}

# after_member_join: the API's name pinned to this node's own API server, once the join no longer needs the
# load balancer.
after_member_join() {
  pin_api_endpoint
}

# before_member_reset: the name of the API goes back to the load balancer, for the next join; and a
# joining node removes its etcd member. kubeadm reset removes it only when it can read the node's
# configuration from the cluster, which a join stopped before the kubelet registered cannot give, and a
# member left without its data (reset wipes /var/lib/etcd) fails every later join's check-etcd. So no reset
# while the member cannot be removed. The node that created the cluster (its init record) has no one to leave.
before_member_reset() {
  unpin_api_endpoint
  if [ "$(init_record_owner)" = "$(imds instance-id)" ]; then return 0; fi
  if ! etcd_remove_members self; then
    log "cannot remove this node's etcd member: not resetting yet"
    return 1
  fi
}

# leave_etcd_on_termination HOOK: waits until Auto Scaling terminates this instance (it then waits in the
# group's termination hook HOOK, and in its drain hook), waits for the node's drain, removes this node's etcd
# member through the other members and checks it gone, then lets the termination go on. A replacement joined
# before (instance refresh and instance maintenance launch first), so the member count is back to the group's.
# While the member cannot leave (etcd does not answer, no quorum) the instance stays, with a heartbeat every
# ETCD_LEAVE_RETRY_SECONDS: going anyway would leave a dead voter that a two-member cluster (a one-node
# control plane mid-refresh) cannot lose. Auto Scaling ends the wait at the hook's global timeout.
leave_etcd_on_termination() {
  local id group
  # Not retry's: these loops have no bound (the instance's life, then the hook's timeout), and the others
  # send a heartbeat each time round.
  until [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; do
    sleep "$TERMINATION_WATCH_SECONDS"
  done
  id=$(imds instance-id)
  group=$(retry aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$id" \
    --query 'AutoScalingInstances[0].AutoScalingGroupName' --output text)
  log "instance $id terminating: its node is drained, then its etcd member leaves"
  wait_for_drain "$1" "$group" "$id"
  until etcd_remove_members self; do
    log "the etcd member has not left: keeping the instance"
    hold_instance "$1" "$group" "$id"
  done
  retry aws autoscaling complete-lifecycle-action --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$group" --instance-id "$id" --lifecycle-action-result CONTINUE
}

# wait_for_drain HOOK GROUP ID: waits until the termination handler has drained this node (drain.sh), the
# instance held in HOOK meanwhile, at most DRAIN_WAIT_SECONDS: the drain hook's own wait, after which Auto
# Scaling goes on without the drain and the member leaves anyway. An API that does not answer is a drain
# not seen yet.
wait_for_drain() {
  local node drained deadline=$((SECONDS + DRAIN_WAIT_SECONDS))
  node=$(node_name)
  until drained=$(node_drained "$node") && [ "$drained" = yes ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "node $node is not drained after ${DRAIN_WAIT_SECONDS}s: its etcd member leaves anyway"
      return 0
    fi
    hold_instance "$@"
  done
  log "node $node is drained"
}

# hold_instance HOOK GROUP ID: a heartbeat of the instance's termination hook HOOK (it restarts the hook's
# timeout), then a pause of ETCD_LEAVE_RETRY_SECONDS. A heartbeat that fails is tried again next time round.
hold_instance() {
  aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$2" --instance-id "$3" || true
  sleep "$ETCD_LEAVE_RETRY_SECONDS"
}

# renewal_turn NOW: "yes" when the UTC day of NOW (seconds since the epoch) is this node's turn to renew its
# certificates. Control-plane nodes take turns by day, in the order of their Node names, so no two restart
# etcd and the API server on the same day, however close together they were created (and their certificates
# issued); each renews within as many days of its certificates falling due as there are control-plane nodes.
# "yes" when the API cannot say: an expiring certificate is worse than a shared day.
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

# renew_certificates_if_due: kubeadm's leaf certificates last a year (certificateValidityPeriod). When the
# API server's expires within RENEW_BEFORE_DAYS (the timer checks daily) and it is this node's turn,
# `kubeadm certs renew all` renews every one of them and the kubeconfigs, and the static pods' containers
# are stopped so that the kubelet starts them again on the new files (kubeadm's documented step after a
# renewal).
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

# start_control_plane_services: the units user data installed for the control plane (systemdUnits.ts): the
# backup timer, the termination watcher, the certificate renewal timer and the node credentials' issuer.
start_control_plane_services() {
  local units
  read -ra units <<<"$CONTROL_PLANE_STARTED_UNITS"
  systemctl daemon-reload
  systemctl enable --now "${units[@]}"
}
