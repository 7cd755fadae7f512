# etcd-lifecycle.sh: this node's etcd member when its instance goes. A reboot or a stop leaves etcd alone;
# only the Auto Scaling termination hook (the instance in Terminating:Wait) can take the member out, and only
# when no replacement will bring the member's data back (the group is scaled to zero or deleted).

# etcd_group_capacity: the desired capacity of this instance's Auto Scaling group (0 while it is deleted).
etcd_group_capacity() {
  local group
  group=$(aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$(imds instance-id)" \
    --query 'AutoScalingInstances[0].AutoScalingGroupName' --output text)
  aws autoscaling describe-auto-scaling-groups --region "$REGION" --auto-scaling-group-names "$group" \
    --query 'AutoScalingGroups[0].[AutoScalingGroupName,DesiredCapacity]' --output text
}

# etcd_leave_if_scaled_down: removes this node's member (through a healthy peer, keeping quorum) when its
# group no longer wants an instance, and marks its volume removed; a replacement of the same member keeps it.
# Fails when either is not done, so the watcher tries again. A removed member stops serving, so a later try
# cannot ask it its ID: the removal (or finding the member already gone) is remembered (ETCD_MEMBER_REMOVED,
# in the watcher's shell) and a try after it only marks the volume.
etcd_leave_if_scaled_down() {
  local group capacity
  read -r group capacity <<<"$(etcd_group_capacity)"
  if [ "$capacity" != 0 ]; then
    log "group $group keeps $capacity instance: its replacement takes over this etcd member"
    return 0
  fi
  if [ -z "${ETCD_MEMBER_REMOVED:-}" ]; then
    etcd_leave || return
    ETCD_MEMBER_REMOVED=yes
  fi
  etcd_volume_mark removed
}

# etcd_leave: removes this node's member; done too when it is no longer a member (a peer removed it, as a
# joining node does with a member whose zone left the control plane): its etcd then stops answering, and a
# peer, asked by name, no longer lists it.
etcd_leave() {
  local id rc=0
  if id=$(etcd_local_member "$ETCD_LOCAL"); then
    etcd_member_remove "$id" || rc=$?
  else
    # Still listed, or no peer answered: not done.
    etcd_own_member_listed || rc=$?
    if [ "$rc" != 1 ]; then return 1; fi
    rc=2
  fi
  if [ "$rc" = 2 ]; then
    log "this node's etcd member is no longer a member: nothing to remove"
    return 0
  fi
  return "$rc"
}

# etcd_peer_client_urls: the other members' client URLs, by name, comma separated (ETCD_PEER_ENDPOINTS in
# tests, where names do not resolve).
etcd_peer_client_urls() {
  if [ -n "${ETCD_PEER_ENDPOINTS:-}" ]; then
    echo "$ETCD_PEER_ENDPOINTS"
    return 0
  fi
  local own name urls=()
  own=$(etcd_member_name "$(imds placement/availability-zone)") || own=
  while read -r name; do
    if [ "$name" != "$own" ]; then urls+=("https://$name:2379"); fi
  done < <(etcd_member_names)
  local IFS=,
  echo "${urls[*]}"
}

# etcd_own_member_listed: whether a peer lists this node's member (its peer URL by name or by address):
# 0 listed, 1 not listed, 2 no peer answered.
etcd_own_member_listed() {
  local list by_name by_address
  list=$(etcdctl_at "$(etcd_peer_client_urls)" member list -w simple) || return 2
  by_name=$(etcd_own_peer_url 2>/dev/null) || by_name=-
  by_address=$(etcd_peer_url "$(imds local-ipv4)")
  awk -F', ' -v a="$by_name" -v b="$by_address" '$4 == a || $4 == b { found = 1 } END { exit !found }' <<<"$list"
}

# etcd_hold_while_peers_down HOOK GROUP: a group that keeps capacity replaces this instance, and its member
# is down until the replacement comes back on the volume. While another member is down too (a zone out, or
# another group's replacement still joining) that would leave three members without quorum, so the instance
# stays in Terminating:Wait (heartbeats) until every other member answers. Bounded by ETCD_PEERS_WAIT_SECONDS
# (1800: six of the hook's 300 s heartbeat timeouts, more than a replacement's 20-minute join deadline),
# then it goes on: a member down for longer (a zone out for hours) must not block every replacement forever,
# and going on costs quorum only until the replacement is back, no data.
etcd_hold_while_peers_down() {
  local deadline=$((SECONDS + ${ETCD_PEERS_WAIT_SECONDS:-1800}))
  until etcd_member_may_go_down; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "another etcd member still down: letting the instance go anyway"
      return 0
    fi
    log "keeping the instance until the other etcd members are back"
    aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$1" \
      --auto-scaling-group-name "$2" --instance-id "$(imds instance-id)"
    sleep "${ETCD_LEAVE_RETRY_SECONDS:-30}"
  done
}

# etcd_lifecycle_watch HOOK: waits for the termination hook, handles the member, lets the termination go on.
# While the member cannot leave (its removal would lose quorum, or etcd does not answer) the instance stays
# in Terminating:Wait: a heartbeat restarts the hook's timeout and the removal is tried again. If the
# heartbeats stop (the node is gone), the hook's timeout runs out and Auto Scaling goes on (defaultResult
# CONTINUE).
etcd_lifecycle_watch() {
  local group capacity
  until [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; do sleep 5; done
  log "instance terminating"
  read -r group capacity <<<"$(etcd_group_capacity)"
  if [ "$capacity" != 0 ]; then etcd_hold_while_peers_down "$1" "$group"; fi
  until etcd_leave_if_scaled_down; do
    log "etcd member not removed yet: keeping the instance, trying again"
    aws autoscaling record-lifecycle-action-heartbeat --region "$REGION" --lifecycle-hook-name "$1" \
      --auto-scaling-group-name "$group" --instance-id "$(imds instance-id)"
    sleep "${ETCD_LEAVE_RETRY_SECONDS:-30}"
  done
  aws autoscaling complete-lifecycle-action --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$group" --instance-id "$(imds instance-id)" --lifecycle-action-result CONTINUE
}
