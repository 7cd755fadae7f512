# etcd-members.sh: etcd membership changes that keep quorum. The bootstrap installs these functions on
# control-plane nodes (the termination hook's service runs them); tests run them against a real etcd.
# ETCD_ENDPOINTS lists the members to ask first; etcdctl reads its TLS files from ETCDCTL_CACERT, _CERT, _KEY.

# etcdctl_at ENDPOINTS ARGS...: etcdctl against those comma-separated client URLs.
etcdctl_at() { ETCDCTL_API=3 etcdctl --endpoints="$1" --command-timeout=5s "${@:2}"; }

# etcd_quorum MEMBERS: how many members must be healthy for a cluster of MEMBERS to accept writes.
etcd_quorum() { echo $(($1 / 2 + 1)); }

# etcd_members: one line per member: ID PEER_URL CLIENT_URL (CLIENT_URL is "-" until the member started).
etcd_members() {
  local id peer client
  etcdctl_at "$ETCD_ENDPOINTS" member list -w simple | while IFS=', ' read -r id _ _ peer client _; do
    echo "$id $peer ${client:--}"
  done
}

# etcd_change ARGS...: a membership change through the healthy members. etcd refuses changes until its
# members have been connected a few seconds; those refusals are retried. Returns etcdctl's failure, also
# when called where errexit does not apply.
etcd_change() {
  local tries=0
  until etcdctl_at "$(etcd_healthy_endpoints)" member "$@" >/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge "${ETCD_RETRIES:-10}" ]; then return 1; fi
    sleep 2
  done
}

# etcd_member_healthy CLIENT_URL: whether the member at CLIENT_URL answers a quorum read.
etcd_member_healthy() {
  [ "$1" != - ] && etcdctl_at "$1" --dial-timeout=2s --command-timeout=2s endpoint health >/dev/null 2>&1
}

# etcd_healthy_endpoints: the client URLs of the members that answer, comma separated.
etcd_healthy_endpoints() {
  local id peer client healthy=()
  while read -r id peer client; do
    if etcd_member_healthy "$client"; then healthy+=("$client"); fi
  done < <(etcd_members)
  local IFS=,
  echo "${healthy[*]}"
}

# etcd_member_remove ID: removes member ID through a healthy member, only when the members left keep quorum.
# Returns 2 when ID is not a member, 3 when the removal would lose quorum.
etcd_member_remove() {
  local target="$1" id peer client total=0 healthy_left=0 found=no
  while read -r id peer client; do
    total=$((total + 1))
    if [ "$id" = "$target" ]; then
      found=yes
    elif etcd_member_healthy "$client"; then
      healthy_left=$((healthy_left + 1))
    fi
  done < <(etcd_members)
  if [ "$found" = no ]; then
    log "etcd member $target is not a member"
    return 2
  fi
  if [ "$healthy_left" -lt "$(etcd_quorum $((total - 1)))" ]; then
    log "refusing to remove etcd member $target: $healthy_left healthy members would be left of $((total - 1))"
    return 3
  fi
  etcd_change remove "$target" || return 1
  log "removed etcd member $target"
}

# etcd_member_add NAME PEER_URL: adds a member, only when the cluster keeps quorum while the new one starts.
etcd_member_add() {
  local endpoints healthy total
  endpoints=$(etcd_healthy_endpoints)
  healthy=$(tr , '\n' <<<"$endpoints" | grep -c . || true)
  total=$(etcd_members | wc -l)
  if [ "$healthy" -lt "$(etcd_quorum $((total + 1)))" ]; then
    log "refusing to add etcd member $1: $healthy of $total members are healthy"
    return 3
  fi
  etcd_change add "$1" --peer-urls="$2" || return 1
  log "added etcd member $1 at $2"
}

# etcd_member_update_peer ID PEER_URL: a member that comes back on a new address (its volume moved).
etcd_member_update_peer() {
  etcd_change update "$1" --peer-urls="$2"
}

# etcd_local_member CLIENT_URL: the ID of the member serving CLIENT_URL (this node's: https://127.0.0.1:2379).
# Fails when that member does not answer: callers tell their own member from others by this ID, and an empty
# one would make this node's member look like any other (a predecessor, a departed member) and remove it.
etcd_local_member() {
  local status id
  status=$(etcdctl_at "$1" endpoint status -w simple) || return 1
  IFS=', ' read -r _ id _ <<<"$status"
  if [ -z "$id" ]; then
    log "the etcd member at $1 did not give its ID"
    return 1
  fi
  echo "$id"
}

# etcd_instance_states IP: "STATE ZONE" of each of this cluster's instances at the private address IP.
etcd_instance_states() {
  retry aws ec2 describe-instances --region "$REGION" --filters "Name=private-ip-address,Values=$1" \
    "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" \
    --query 'Reservations[].Instances[].[State.Name,Placement.AvailabilityZone]' --output text
}

# etcd_zone_has_control_plane ZONE: whether a pending or running control-plane instance of this cluster is in
# ZONE; fails when EC2 does not answer.
etcd_zone_has_control_plane() {
  local states
  states=$(retry aws ec2 describe-instances --region "$REGION" --filters "Name=availability-zone,Values=$1" \
    "Name=tag:KubernetesCluster,Values=$CLUSTER_NAME" "Name=tag:k8s.io/role/control-plane,Values=1" \
    --query 'Reservations[].Instances[].[State.Name,Placement.AvailabilityZone]' --output text) || return 2
  grep -qE '^(pending|running)[[:space:]]' <<<"$states"
}

# etcd_peer_departed PEER_URL ZONE: whether the member at PEER_URL is gone for good, seen from the member
# of ZONE. A member at a name that is no current member's and whose zone has no pending or running
# control-plane instance (its zone left the control plane before the termination hook could remove it; while
# an instance still runs there, as during a scale-down whose groups are still being replaced, its own
# termination hook removes it). A member at an address (from before stable names) whose instance no
# longer exists, is going, or is in ZONE (the one this node replaces: one member a zone). When EC2 does not
# answer, no member is departed this time: an empty answer would look like every instance gone.
etcd_peer_departed() {
  local host=${1#*://} states state zone live=0
  host=${host%:*}
  if [[ ! $host =~ ^[0-9.]+$ ]]; then
    if etcd_member_names | grep -qxF "$host"; then return 1; fi
    zone=${host#etcd-}
    zone=${zone%%.*}
    etcd_zone_has_control_plane "$zone" || live=$?
    case $live in
    0) return 1 ;;
    1) return 0 ;;
    *)
      log "could not list the control-plane instances in $zone: its etcd member is kept this time"
      return 1
      ;;
    esac
  fi
  if ! states=$(etcd_instance_states "$host"); then
    log "could not list the instances at $host: its etcd member is kept this time"
    return 1
  fi
  while read -r state zone; do
    case "$state" in
    pending | running | stopping | stopped) if [ "$zone" != "$2" ]; then return 1; fi ;;
    esac
  done <<<"$states"
  return 0
}

# etcd_remove_departed: after this node's member joined and settled, removes every departed member other
# than itself, one at a time, each only while quorum holds. A removal refused for quorum is tried again
# (ETCD_DEPARTED_TRIES passes, ETCD_DEPARTED_INTERVAL seconds apart: peers still starting), then left to the
# operator with an error in the log, and the bootstrap goes on: failing it would have the launch hook
# abandon this instance, a healthy member, and leave the cluster with fewer still.
etcd_remove_departed() {
  local zone self id peer refused tries=0
  zone=$(imds placement/availability-zone)
  self=$(etcd_local_member "$ETCD_LOCAL") || return 1
  while :; do
    refused=()
    while read -r id peer _; do
      if [ "$id" = "$self" ] || ! etcd_peer_departed "$peer" "$zone"; then continue; fi
      log "etcd member $id at $peer has departed"
      if ! etcd_member_remove "$id"; then refused+=("$id"); fi
    done < <(etcd_members)
    if [ "${#refused[@]}" -eq 0 ]; then return 0; fi
    tries=$((tries + 1))
    if [ "$tries" -ge "${ETCD_DEPARTED_TRIES:-6}" ]; then
      log "ERROR: departed etcd members ${refused[*]} stay: removing them would lose quorum; remove them with etcdctl member remove once their peers are healthy (docs/operations.md)"
      return 0
    fi
    sleep "${ETCD_DEPARTED_INTERVAL:-10}"
  done
}
