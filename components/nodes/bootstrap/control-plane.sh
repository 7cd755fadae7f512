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

# The init record (INIT_RECORD, an SSM parameter): "INSTANCE TIME [restore [KEY]]", created by the one node that
# runs kubeadm init, without --overwrite, which SSM makes atomic: of two nodes racing, one creates it and the
# other fails. While the cluster it created may still run, no other node creates one. It is stale once every
# member is lost: its owner is not running healthy (terminated, stopped, unknown to EC2, or counted unhealthy
# by Auto Scaling, which replaces it), and the etcd of no other running control-plane instance answers (a
# member still in its launch hook, in standby or terminating counts). The first zone's next node then takes
# it over: a succession record named after the stale owner, created without --overwrite, picks one node of
# any that race; the winner overwrites the record, marked "restore" when the cluster's latest snapshot exists,
# or "restore KEY" when a restore request (RESTORE_REQUEST, which `npm run restore-snapshot` writes once every
# control-plane instance is gone) names an older one: kubeadm init then starts from that snapshot (kubeadm_init),
# and the request goes once the cluster runs on it. So a cluster that lost every member comes back with what it last saved, or with the
# snapshot its operator chose, and one whose first node never went into service is created again. A cluster with
# a member left but no quorum is not restored over: that member's data is newer (etcd's --force-new-cluster,
# by hand: docs/operations.md).

# init_record_value: the record's value, or "none". Fails when SSM cannot say (never taken for "none": that
# would create a second cluster).
init_record_value() { parameter_or_none "$INIT_RECORD"; }

# init_record_owner: the instance that created the init record, or "none".
init_record_owner() {
  local value
  value=$(init_record_value) || return 1
  echo "${value%% *}"
}

# init_record_state: "none" (no record), "own" (this instance's: its bootstrap retried after a kubeadm init
# that failed), "stale" (every member lost, above) or "held" (another instance's, whose cluster may run).
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

# etcd_answers_at ADDRESS...: succeeds when the etcd member at one of the addresses answers (its status, which
# a member gives without quorum too), asked with the cluster's etcd CA; fails when none does. No member can
# have joined before the cluster's keys were stored: then none is asked.
etcd_answers_at() {
  local address stored
  if [ "$#" -eq 0 ]; then return 1; fi
  stored=$(shared_pki_stored) || return 0
  if [ "$stored" = no ]; then return 1; fi
  # Unsure is "answers": never taken for a cluster gone.
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

# others SELF WORD...: the words that are not SELF, one a line.
others() {
  local word
  for word in "${@:2}"; do if [ "$word" != "$1" ]; then echo "$word"; fi; done
}

# init_record_exists: "yes" when another instance holds the record (join_mode never inits then); "no" when
# there is none, it is this instance's, or it is stale.
init_record_exists() {
  local state
  state=$(init_record_state) || return 1
  if [ "$state" = held ]; then echo yes; else echo no; fi
}

# claim_init_record: prints the record this node holds: it creates it, takes over a stale one (marked
# "restore" when the latest snapshot exists, "restore KEY" when a restore request names one), or finds it its
# own. Fails when another instance holds it, when another node won the takeover, when a restore request names
# no snapshot of the timer's (restoring anything else would be a guess), or when this instance is being
# terminated.
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
    # Read before the succession is won: a node that refuses the request must not hold the succession, which
    # no node after it could take.
    request=$(parameter_or_none "$RESTORE_REQUEST") || return 1
    if [ "$request" != none ] && ! [[ $request =~ $SNAPSHOT_KEY_PATTERN ]]; then
      log "the restore request $RESTORE_REQUEST names $request, not a snapshot of the backup timer's"
      return 1
    fi
    succession="$INIT_RECORD-succession-$owner"
    if ! put_parameter String "$succession" "$value" >/dev/null; then
      # Won before by this instance (a run that stopped after it), or by another.
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
      # A creation whose answer was lost, and the CLI's retry refused as ParameterAlreadyExists.
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
    # kubeadm init's preflight wants an empty /var/lib/etcd; etcd starts from the restored one.
    ignore=(--ignore-preflight-errors=DirAvailable--var-lib-etcd)
  else
    log "no cluster was ever created: creating it"
  fi
  # Stored already when the cluster is created again (every member lost), or when an init of this node's
  # stopped after storing them: the cluster's keys are those, and kubeadm init uses the CAs it finds.
  stored=$(shared_pki_stored) || return 1
  if [ "$stored" = yes ]; then fetch_shared_pki; fi
  pin_api_endpoint
  kubeadm_config kubeadm_init_configuration | write_file "$KUBERNETES_DIR/kubeadm.yaml" 0600
  # The bootstrap token kubeadm makes is never used, and goes in the next step (retire_bootstrap_tokens):
  # kept out of the journal too.
  kubeadm init --skip-token-print --config "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/kubeadm.yaml" "${ignore[@]}" || return 1
  # The requested snapshot's request goes only once the cluster runs on it: a node that fails before leaves it
  # for the next, which restores the same snapshot; kept after, the next loss of every member would restore it
  # again.
  if [ -n "$key" ] && [ "$key" != "$LATEST_SNAPSHOT_KEY" ]; then
    retry delete_parameter "$RESTORE_REQUEST" || return 1
    log "the cluster runs on $key: its restore request is deleted"
  fi
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

# launch_hook_heartbeat: restarts the timeout of this instance's launch hook while it waits there
# (RecordLifecycleActionHeartbeat). Fails once it no longer waits (or Auto Scaling does not answer).
launch_hook_heartbeat() {
  local id found group state
  id=$(imds instance-id) || return 1
  found=$(launch_hook_state "$id") || return 1
  read -r group state <<<"$found"
  if [ "$state" != Pending:Wait ]; then return 1; fi
  aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$LAUNCH_HOOK" \
    --auto-scaling-group-name "$group" --instance-id "$id"
}

# while_heartbeating BEAT... -- COMMAND...: runs COMMAND, with BEAT (one heartbeat of a lifecycle hook) before it
# and every LAUNCH_HEARTBEAT_SECONDS while it runs; a heartbeat that fails is tried again next time round.
while_heartbeating() {
  local beat=() beats status=0
  while [ "$1" != -- ]; do
    beat+=("$1")
    shift
  done
  shift
  "${beat[@]}" || true
  # The pause is a child the loop waits for, so that the loop's TERM ends it too.
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

# during_member_join COMMAND...: runs COMMAND (kubeadm join) while_heartbeating this instance's launch hook,
# and one heartbeat after. kubeadm adds this node's member as a learner and promotes it inside the join; were
# the join deadline to fall between the promotion and the hook's completion, Auto Scaling would terminate a
# voting member, and with one control-plane node mid-refresh (two voters) take quorum with it. Within
# LAUNCH_HEARTBEATS_SECONDS of boot only: a node whose joins keep failing is still abandoned.
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
  local id group last sole_tries
  # Not retry's: these loops have no bound (the instance's life, then the hook's timeout), and the others
  # send a heartbeat each time round.
  until [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; do
    sleep "$TERMINATION_WATCH_SECONDS"
  done
  id=$(imds instance-id)
  group=$(retry aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$id" \
    --query 'AutoScalingInstances[0].AutoScalingGroupName' --output text)
  # Armed at boot (arm_etcd_leave): without the etcd CA, which a node has before kubeadm adds its member
  # (fetched before the join, made by kubeadm init), it has no member to remove.
  if [ ! -e "${BOOTSTRAP_ROOT:-}$KUBERNETES_DIR/pki/etcd/ca.crt" ]; then
    log "instance $id terminating: it never had an etcd member"
  else
    log "instance $id terminating: its node is drained, then its etcd member leaves"
    wait_for_drain "$1" "$group" "$id"
    # The last member has no one to leave: its snapshot is what the next node restores. Asked of the member
    # itself: a replacement Auto Scaling launches meanwhile is no member yet.
    # While another control-plane instance runs, a few tries only: a member that does not answer cannot save
    # a snapshot, and may have been removed as dead already (reconcile_etcd_members); with none, retry's
    # full bound, so that a short outage of its etcd never skips the last member's snapshot.
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

# arm_etcd_leave: the etcd-leave service started before the join, so that an instance terminated at any
# point after kubeadm added its member (its join deadline, an instance refresh rolled back) removes it.
arm_etcd_leave() {
  systemctl enable etcd-leave.service
  systemctl start --no-block etcd-leave.service
}

# save_final_snapshot HOOK GROUP ID: the last member's snapshot, through the etcd-backup unit, before its
# instance goes, the termination hook HOOK kept alive meanwhile (a large database takes longer than its
# heartbeat timeout): the next node restores it (kubeadm_init), so a one-node control plane terminated through
# Auto Scaling loses only what its API took after this. FINAL_SNAPSHOT_TRIES tries; then it goes anyway, and
# the next node restores the timer's last snapshot.
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

# wait_for_drain HOOK GROUP ID: waits until the termination handler has drained this node (drain.sh), the
# instance held in HOOK meanwhile, at most DRAIN_WAIT_SECONDS: the drain hook's own wait, after which Auto
# Scaling goes on without the drain and the member leaves anyway. An API that does not answer is a drain
# not seen yet. What holds the drain is logged each time it changes: the journal says why a member waits.
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

# hold_instance HOOK GROUP ID: a heartbeat of the instance's termination hook HOOK (it restarts the hook's
# timeout), then a pause of ETCD_LEAVE_RETRY_SECONDS. A heartbeat that fails is tried again next time round.
hold_instance() {
  termination_heartbeat "$@" || true
  sleep "$ETCD_LEAVE_RETRY_SECONDS"
}

# termination_heartbeat HOOK GROUP ID: one heartbeat of the instance's termination hook HOOK.
termination_heartbeat() {
  aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$2" --instance-id "$3"
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
# backup timer, the certificate renewal timer, the addons' upgrade timer and the node credentials' issuer.
start_control_plane_services() {
  local units
  read -ra units <<<"$CONTROL_PLANE_STARTED_UNITS"
  systemctl daemon-reload
  systemctl enable --now "${units[@]}"
}
