"""The events Auto Scaling sends EventBridge when a lifecycle action starts, as the Amazon EC2 Auto Scaling
user guide's event reference gives them ("EC2 Instance-launch Lifecycle Action" and "EC2 Instance-terminate
Lifecycle Action": source aws.autoscaling, the group's ARN as the resource, the action's token in the detail).
EventBridge (moto's) then matches them against the plan's rules and delivers them to the rules' targets, the
termination handler's queue among them."""

from __future__ import annotations

import json
from typing import Any

from lifecycle import LAUNCHING, TERMINATING, Notice

_DETAIL_TYPES = {
    LAUNCHING: "EC2 Instance-launch Lifecycle Action",
    TERMINATING: "EC2 Instance-terminate Lifecycle Action",
}


def lifecycle_event(notice: Notice, group_arn: str) -> dict[str, Any]:
    """NOTICE as a PutEvents entry on the default bus."""
    launching = notice.transition == LAUNCHING
    detail = {
        "LifecycleActionToken": notice.token,
        "AutoScalingGroupName": notice.group,
        "LifecycleHookName": notice.hook,
        "EC2InstanceId": notice.instance_id,
        "LifecycleTransition": notice.transition,
        "Origin": "EC2" if launching else "AutoScalingGroup",
        "Destination": "AutoScalingGroup" if launching else "EC2",
    }
    return {
        "Source": "aws.autoscaling",
        "DetailType": _DETAIL_TYPES[notice.transition],
        "Detail": json.dumps(detail),
        "Resources": [group_arn],
    }
