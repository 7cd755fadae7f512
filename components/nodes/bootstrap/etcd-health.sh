# etcd-health.sh: the gate of a control-plane node's launch hook, and the health of the other members a
# terminating node waits for. The bootstrap's last steps are etcd-healthy then launch-hook: the instance goes
# InService (and an instance refresh counts it) only once this node's member serves etcd with a quorum.
# Not every member: a member whose zone is out stays in the membership (its instance still exists), and a
# gate that waited for it would abandon every replacement of another member at its join deadline. Taking a
# second member down while one is down is refused where a member goes down: the termination watcher
# (etcd-lifecycle.sh) holds a replaced instance while another member is unhealthy.
# Tests run these functions against a real etcd.

# etcd_member_rows: `etcdctl member list` fetched once, one line per member: ID STATUS NAME PEER_URL
# CLIENT_URL IS_LEARNER (name and client URL "-" until the member started). Fails when etcd does not list
# its members or lists none: the callers then have checked nobody.
etcd_member_rows() {
  local list id status name peer client learner rows=0
  list=$(etcdctl_at "$ETCD_ENDPOINTS" member list -w simple) || return 1
  while IFS=', ' read -r id status name peer client learner; do
    [ -n "$id" ] || continue
    echo "$id $status ${name:--} $peer ${client:--} $learner"
    rows=$((rows + 1))
  done <<<"$list"
  [ "$rows" -gt 0 ]
}

# etcd_ready_with_member: whether this node's member (the one serving ETCD_LOCAL) has started (a name and
# client URLs in the membership), votes (is no learner), answers a health check, and a majority of the
# voting members answer one (quorum). Says in the log what is missing, and which members are down.
etcd_ready_with_member() {
  local self rows id status name peer client learner found=no total=0 healthy=0 self_healthy=no down=()
  if ! self=$(etcd_local_member "$ETCD_LOCAL" 2>/dev/null) || [ -z "$self" ]; then
    log "etcd does not answer at $ETCD_LOCAL"
    return 1
  fi
  if ! rows=$(etcd_member_rows); then
    log "etcd does not list its members"
    return 1
  fi
  # Quorum is a majority of the voting members; a learner (another node's, joining) does not count.
  while read -r id status name peer client learner; do
    if [ "$learner" = false ]; then
      total=$((total + 1))
      if etcd_member_healthy "$client"; then
        healthy=$((healthy + 1))
        if [ "$id" = "$self" ]; then self_healthy=yes; fi
      else
        down+=("$id ($peer)")
      fi
    fi
    [ "$id" = "$self" ] || continue
    found=yes
    if [ "$status" != started ] || [ "$name" = - ] || [ "$client" = - ]; then
      log "etcd member $self has not started ($status, name $name, client URLs $client)"
      return 1
    fi
    if [ "$learner" != false ]; then
      log "etcd member $self ($name) is a learner: not yet a voting member"
      return 1
    fi
  done <<<"$rows"
  if [ "$found" = no ]; then
    log "etcd member $self is not in the membership"
    return 1
  fi
  if [ "${#down[@]}" -gt 0 ]; then log "etcd members not healthy: ${down[*]}"; fi
  if [ "$healthy" -lt "$(etcd_quorum "$total")" ]; then
    log "etcd has no quorum: $healthy of $total members healthy"
    return 1
  fi
  if [ "$self_healthy" = no ]; then
    log "etcd member $self is not healthy"
    return 1
  fi
  log "etcd is healthy with member $self in it ($healthy of $total members healthy)"
}

# etcd_await_ready: waits until etcd_ready_with_member, checking every ETCD_READY_INTERVAL seconds (5) for
# ETCD_READY_SECONDS (300) of wall-clock time, then fails the step: the bootstrap service runs again, and
# the launch hook's join deadline abandons an instance that never gets there. A check started before the
# bound may take up to about 20 s more with members unreachable (etcdctl's timeouts).
etcd_await_ready() {
  local deadline=$((SECONDS + ${ETCD_READY_SECONDS:-300}))
  until etcd_ready_with_member; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "etcd not healthy with this node's member after ${ETCD_READY_SECONDS:-300} s"
      return 1
    fi
    sleep "${ETCD_READY_INTERVAL:-5}"
  done
}

# etcd_member_may_go_down: whether this node's member (the one serving ETCD_LOCAL) can go down without a
# second member down: every other member answers a health check, or this node's member does not answer (it
# is down already, its going takes nothing more down). Not when the membership cannot be listed. Says in the
# log which members are down.
etcd_member_may_go_down() {
  local self rows id peer client down=()
  if ! self=$(etcd_local_member "$ETCD_LOCAL" 2>/dev/null) || [ -z "$self" ]; then
    log "etcd does not answer at $ETCD_LOCAL: this member is down already"
    return 0
  fi
  rows=$(etcd_member_rows) || return 1
  while read -r id _ _ peer client _; do
    if [ "$id" != "$self" ] && ! etcd_member_healthy "$client"; then down+=("$id ($peer)"); fi
  done <<<"$rows"
  if [ "${#down[@]}" -gt 0 ]; then
    log "etcd members not healthy: ${down[*]}"
    return 1
  fi
}
