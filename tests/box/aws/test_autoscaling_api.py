"""The Auto Scaling layer's answers: each instance's lifecycle state is the lifecycle layer's, in both
calls that list instances (DescribeAutoScalingInstances and DescribeAutoScalingGroups' Instances), as AWS
reports an instance waiting in its termination hook in either."""

from __future__ import annotations

import io
from typing import Any

from autoscaling_api import NAMESPACE, AutoScalingLayer

GROUPS = (
    f'<DescribeAutoScalingGroupsResponse xmlns="{NAMESPACE}"><DescribeAutoScalingGroupsResult><AutoScalingGroups>'
    "<member><AutoScalingGroupName>cp</AutoScalingGroupName><Instances><member><InstanceId>i-1</InstanceId>"
    "<LifecycleState>InService</LifecycleState><HealthStatus>Healthy</HealthStatus></member></Instances>"
    "</member></AutoScalingGroups></DescribeAutoScalingGroupsResult></DescribeAutoScalingGroupsResponse>"
).encode()


class Terminating:
    def state(self, instance_id: str) -> str | None:
        return "Terminating:Wait" if instance_id == "i-1" else None


def moto(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """moto's answer: the instance InService, as moto knows nothing of hooks."""
    start_response("200 OK", [("Content-Type", "text/xml"), ("Content-Length", str(len(GROUPS)))])
    return [GROUPS]


def test_describe_auto_scaling_groups_shows_the_layer_s_lifecycle_state_and_health_as_told():
    layer = AutoScalingLayer(moto, Terminating())  # type: ignore[arg-type]
    request = b"Action=DescribeAutoScalingGroups&Version=2011-01-01"
    environ = {
        "HTTP_HOST": "autoscaling.us-east-1.amazonaws.com",
        "REQUEST_METHOD": "POST",
        "CONTENT_LENGTH": str(len(request)),
        "wsgi.input": io.BytesIO(request),
    }
    body = b"".join(layer(environ, lambda status, headers, exc_info=None: None)).decode()
    assert "<LifecycleState>Terminating:Wait</LifecycleState>" in body
    assert "<HealthStatus>Healthy</HealthStatus>" in body
    assert "<AutoScalingGroupName>cp</AutoScalingGroupName>" in body
