# etcd-health.sh: the gate of a control-plane node's launch hook. The bootstrap's last steps are
# etcd-healthy then launch-hook: the instance goes InService (and an instance refresh counts it) only once
# etcd is healthy with this node's member in it. The next control-plane group's refresh takes one member
# down, so every other member must be up first: all of them answer, not just a quorum.
# Tests run these functions against a real etcd.

# etcd_ready_with_member: whether this node's member (the one serving ETCD_LOCAL) has started (a name and
# client URLs in the membership), votes (is no learner), and every member of the cluster answers a health
# check. Says in the log what is missing.
etcd_ready_with_member() {
  local self list id status name peer client learner found=no down=()
  if ! self=$(etcd_local_member "$ETCD_LOCAL" 2>/dev/null) || [ -z "$self" ]; then
    log "etcd does not answer at $ETCD_LOCAL"
    return 1
  fi
  if ! list=$(etcdctl_at "$ETCD_ENDPOINTS" member list -w simple); then
    log "etcd does not list its members"
    return 1
  fi
  # Rows: ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER (name and client URLs empty until started).
  while IFS=', ' read -r id status name peer client learner; do
    [ "$id" = "$self" ] || continue
    found=yes
    if [ "$status" != started ] || [ -z "$name" ] || [ -z "$client" ]; then
      log "etcd member $self has not started (${status:-no status}, name '${name}', client URLs '${client}')"
      return 1
    fi
    if [ "$learner" != false ]; then
      log "etcd member $self ($name) is a learner: not yet a voting member"
      return 1
    fi
  done <<<"$list"
  if [ "$found" = no ]; then
    log "etcd member $self is not in the membership"
    return 1
  fi
  while read -r id peer client; do
    if ! etcd_member_healthy "$client"; then down+=("$id ($peer)"); fi
  done < <(etcd_members)
  if [ "${#down[@]}" -gt 0 ]; then
    log "etcd members not healthy: ${down[*]}"
    return 1
  fi
  log "etcd is healthy with member $self in it"
}

# etcd_await_ready: waits until etcd_ready_with_member, ETCD_READY_TRIES times (60) ETCD_READY_INTERVAL
# seconds (5) apart, then fails the step: the bootstrap service runs again, and the launch hook's join
# deadline abandons an instance that never gets there.
etcd_await_ready() {
  local try=1
  until etcd_ready_with_member; do
    if [ "$try" -ge "${ETCD_READY_TRIES:-60}" ]; then
      log "etcd not healthy with this node's member after $try checks"
      return 1
    fi
    try=$((try + 1))
    sleep "${ETCD_READY_INTERVAL:-5}"
  done
}
