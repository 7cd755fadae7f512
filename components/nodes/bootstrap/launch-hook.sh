# launch-hook.sh: tells Auto Scaling this instance has joined, so it goes InService. Until then it waits on
# its group's launch lifecycle hook, which abandons (terminates) it at the join deadline (lifecycleHooks.ts).

# launch_hook_state ID: "GROUP STATE" of instance ID once Auto Scaling has it past Pending. Fails while the
# instance is in no group yet, or Pending: Auto Scaling has not put it in its launch hook yet, and would
# take a completion now as nothing to complete (retry asks again).
launch_hook_state() {
  local found group state
  found=$(aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$1" \
    --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text) || return 1
  read -r group state <<<"$found"
  if [ -z "$group" ] || [ "$group" = None ]; then
    log "instance $1 is in no Auto Scaling group yet"
    return 1
  fi
  if [ "$state" = Pending ]; then
    log "instance $1 of $group is Pending: its launch hook does not wait yet"
    return 1
  fi
  echo "$group $state"
}

# complete_launch_hook: completes the hook if this instance waits on it. The group comes from Auto Scaling
# itself, asked by instance id: the aws:autoscaling:groupName tag could be read from instance metadata only
# with metadata tags enabled, which EC2 refuses for instances whose tag keys hold a "/" (the cluster's do).
# The lifecycle state makes it safe to run again: a node that rejoins after a reboot is InService already,
# and Auto Scaling would refuse a second completion.
complete_launch_hook() {
  local id found group state
  id=$(imds instance-id)
  found=$(retry launch_hook_state "$id") || return 1
  read -r group state <<<"$found"
  if [ "$state" != Pending:Wait ]; then
    log "instance $id of $group is $state: no launch hook to complete"
    return 0
  fi
  log "instance $id has joined: completing the launch hook $LAUNCH_HOOK of $group"
  retry complete_launch_action "$group" "$id"
}

# complete_launch_action GROUP ID: CompleteLifecycleAction. Auto Scaling answers ValidationError "No active
# Lifecycle Action found with instance ID ..." when it finds no action of that hook of that group for the
# instance: the action was completed already (by hand, or by a run whose answer was lost), but also a wrong
# group or hook name, or an action not yet visible (Auto Scaling is eventually consistent). Only the first
# is done: the instance's lifecycle state is read again and the answer accepted only if it has left
# Pending:Wait; otherwise it fails (retried, then systemd runs the bootstrap again).
complete_launch_action() {
  local err found state
  if err=$(aws autoscaling complete-lifecycle-action --region "$REGION" --auto-scaling-group-name "$1" \
    --lifecycle-hook-name "$LAUNCH_HOOK" --instance-id "$2" --lifecycle-action-result CONTINUE 2>&1 >/dev/null); then
    return 0
  fi
  case "$err" in
  *"No active Lifecycle Action found"*)
    found=$(aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$2" \
      --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text) || return 1
    read -r _ state <<<"$found"
    if [ -n "$state" ] && [ "$state" != Pending:Wait ]; then
      log "instance $2 is $state: its launch hook $LAUNCH_HOOK was completed already"
      return 0
    fi
    log "instance $2 is ${state:-in no state} yet Auto Scaling finds no action of the launch hook $LAUNCH_HOOK of $1"
    ;;
  esac
  printf '%s\n' "$err" >&2
  return 1
}
