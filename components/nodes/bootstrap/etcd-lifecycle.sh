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
# group no longer wants an instance; a replacement of the same member keeps it.
etcd_leave_if_scaled_down() {
  local group capacity id
  read -r group capacity <<<"$(etcd_group_capacity)"
  if [ "$capacity" != 0 ]; then
    log "group $group keeps $capacity instance: its replacement takes over this etcd member"
    return 0
  fi
  id=$(etcd_local_member "$ETCD_LOCAL")
  etcd_member_remove "$id"
}

# etcd_lifecycle_watch HOOK: waits for the termination hook, handles the member, lets the termination go on.
etcd_lifecycle_watch() {
  local group capacity
  until [ "$(imds autoscaling/target-lifecycle-state 2>/dev/null || true)" = Terminated ]; do sleep 5; done
  log "instance terminating"
  etcd_leave_if_scaled_down || log "etcd member not removed; remove it by hand (docs/operations.md)"
  read -r group capacity <<<"$(etcd_group_capacity)"
  aws autoscaling complete-lifecycle-action --region "$REGION" --lifecycle-hook-name "$1" \
    --auto-scaling-group-name "$group" --instance-id "$(imds instance-id)" --lifecycle-action-result CONTINUE
}
