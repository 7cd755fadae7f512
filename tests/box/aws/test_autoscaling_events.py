"""The lifecycle events the layer sends, through moto's EventBridge and the plan's own rules: the drain hook's
termination reaches the termination handler's queue with the token that completes it, and nothing else the
layer announces does."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
from moto import mock_aws

from autoscaling_events import lifecycle_event
from lifecycle import LAUNCHING, TERMINATING, Notice

PLAN = Path(__file__).parents[2] / "golden" / "eni" / "resources.json"
GROUP_ARN = "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:1:autoScalingGroupName/nodes.eni.example.com"


def _planned(kind: str) -> list[dict]:
    return [r["inputs"] for r in json.loads(PLAN.read_text()) if r["type"] == kind]


@mock_aws
def test_the_plan_s_rules_send_the_drain_hook_s_terminations_to_the_queue():
    sqs = boto3.client("sqs", region_name="us-east-1")
    events = boto3.client("events", region_name="us-east-1")
    (queue,) = _planned("aws:sqs/queue:Queue")
    url = sqs.create_queue(QueueName=queue["name"])["QueueUrl"]
    for rule in _planned("aws:cloudwatch/eventRule:EventRule"):
        events.put_rule(Name=rule["name"], EventPattern=rule["eventPattern"])
    for target in _planned("aws:cloudwatch/eventTarget:EventTarget"):
        events.put_targets(Rule=target["rule"], Targets=[{"Id": target["targetId"], "Arn": target["arn"]}])
    group = "nodes.eni.example.com"
    notices = [
        Notice("i-1", group, "nth-drain", LAUNCHING, "t-launch"),
        Notice("i-1", group, "etcd-member", TERMINATING, "t-etcd"),
        Notice("i-1", "nodes.other.example.com", "nth-drain", TERMINATING, "t-other"),
        Notice("i-1", group, "nth-drain", TERMINATING, "t-drain"),
    ]
    entries = [lifecycle_event(n, GROUP_ARN) for n in notices]
    assert events.put_events(Entries=entries)["FailedEntryCount"] == 0
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    bodies = [json.loads(m["Body"]) for m in received]
    assert [(b["source"], b["detail-type"], b["resources"]) for b in bodies] == [
        ("aws.autoscaling", "EC2 Instance-terminate Lifecycle Action", [GROUP_ARN])
    ]
    assert bodies[0]["detail"] == {
        "LifecycleActionToken": "t-drain",
        "AutoScalingGroupName": group,
        "LifecycleHookName": "nth-drain",
        "EC2InstanceId": "i-1",
        "LifecycleTransition": TERMINATING,
        "Origin": "AutoScalingGroup",
        "Destination": "EC2",
    }
