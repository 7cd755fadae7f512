# launch-hook.sh: tells Auto Scaling this instance has joined, so it goes InService. Until then it waits on
# its group's launch lifecycle hook, which abandons (terminates) it at the join deadline (launchHook.ts).

# complete_launch_hook: completes the hook if this instance still waits on it. The group comes from Auto
# Scaling itself, asked by instance id: the aws:autoscaling:groupName tag could be read from instance
# metadata only with metadata tags enabled, which EC2 refuses for instances whose tag keys hold a "/" (the
# cluster's do). The lifecycle state makes it safe to run again: a node that rejoins after a reboot is
# InService already, and Auto Scaling would refuse a second completion.
complete_launch_hook() {
  local id found group state
  id=$(imds instance-id)
  found=$(retry aws autoscaling describe-auto-scaling-instances --region "$REGION" --instance-ids "$id" \
    --query 'AutoScalingInstances[0].[AutoScalingGroupName,LifecycleState]' --output text)
  read -r group state <<<"$found"
  if [ -z "$group" ] || [ "$group" = None ]; then
    log "instance $id is in no Auto Scaling group yet"
    return 1
  fi
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
