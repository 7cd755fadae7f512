"""The Auto Scaling Query API calls the lifecycle layer answers in front of moto (lifecycle.py), and moto's
groups as the layer sees them. Everything else goes to moto unchanged."""

from __future__ import annotations

import io
import uuid
from typing import Any, Callable
from urllib.parse import parse_qs
from xml.etree import ElementTree

from moto.autoscaling.models import autoscaling_backends

from lifecycle import Hook, Lifecycle, LifecycleError

NAMESPACE = "http://autoscaling.amazonaws.com/doc/2011-01-01/"


class MotoGroups:
    """moto's Auto Scaling groups of one account and region."""

    def __init__(self, account: str, region: str):
        self._backend = autoscaling_backends[account][region]

    def instances(self) -> dict[str, str]:
        return {
            state.instance.id: group.name
            for group in list(self._backend.autoscaling_groups.values())
            for state in list(group.instance_states)
        }

    def hooks(self, group: str) -> list[Hook]:
        return [
            Hook(h.name, h.lifecycle_transition, int(h.heartbeat_timeout), h.default_result)
            for h in self._backend.describe_lifecycle_hooks(group)
        ]

    def terminate(self, instance_id: str, decrement: bool) -> None:
        self._backend.terminate_instance(instance_id, should_decrement=decrement)

    def sizes(self, group: str) -> tuple[int, int]:
        found = self._backend.autoscaling_groups[group]
        return found.min_size, found.desired_capacity

    def launch_replacement(self, group: str) -> None:
        self._backend.set_desired_capacity(group, self._backend.autoscaling_groups[group].desired_capacity + 1)

    def arn(self, group: str) -> str:
        return self._backend.autoscaling_groups[group].arn

    def target_groups(self, group: str) -> list[str]:
        return list(self._backend.autoscaling_groups[group].target_group_arns)


def _xml(action: str, result: str = "") -> bytes:
    return (
        f'<{action}Response xmlns="{NAMESPACE}"><{action}Result>{result}</{action}Result>'
        f"<ResponseMetadata><RequestId>{uuid.uuid4()}</RequestId></ResponseMetadata></{action}Response>"
    ).encode()


def _error(message: str) -> bytes:
    return (
        f'<ErrorResponse xmlns="{NAMESPACE}"><Error><Type>Sender</Type><Code>ValidationError</Code>'
        f"<Message>{message}</Message></Error><RequestId>{uuid.uuid4()}</RequestId></ErrorResponse>"
    ).encode()


class AutoScalingLayer:
    """WSGI: CompleteLifecycleAction, RecordLifecycleActionHeartbeat and TerminateInstanceInAutoScalingGroup
    by the layer; DescribeAutoScalingInstances and DescribeAutoScalingGroups by moto with each instance's
    lifecycle state the layer's (and, for DescribeAutoScalingInstances, its health status in AWS's capitals);
    SetInstanceHealth by moto, then an Unhealthy instance replaced by the layer."""

    def __init__(self, app: Callable[..., Any], lifecycle: Lifecycle):
        self._app = app
        self._lifecycle = lifecycle

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        host, scope = environ.get("HTTP_HOST", ""), environ.get("HTTP_AUTHORIZATION", "")
        autoscaling = host.startswith("autoscaling.") or "/autoscaling/aws4_request" in scope
        if not autoscaling or environ.get("REQUEST_METHOD") != "POST":
            return self._app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length)
        params = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        action = params.get("Action", "")
        try:
            answer = self._answer(action, params)
        except LifecycleError as error:
            start_response("400 Bad Request", [("Content-Type", "text/xml")])
            return [_error(str(error))]
        if answer is not None:
            start_response("200 OK", [("Content-Type", "text/xml")])
            return [answer]
        environ["wsgi.input"] = io.BytesIO(body)
        if action == "SetInstanceHealth":
            # moto records the health (DescribeAutoScalingInstances reports it); the layer replaces the instance.
            answer = self._app(environ, start_response)
            if params.get("HealthStatus") == "Unhealthy":
                self._lifecycle.unhealthy(params.get("InstanceId", ""))
            return answer
        if action not in ("DescribeAutoScalingInstances", "DescribeAutoScalingGroups"):
            return self._app(environ, start_response)
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured["status"], captured["headers"] = status, headers
            return lambda _data: None

        moto_body = b"".join(self._app(environ, capture))
        capitals = action == "DescribeAutoScalingInstances"
        rewritten = self._with_states(moto_body, capitals) if captured["status"].startswith("200") else moto_body
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], headers + [("Content-Length", str(len(rewritten)))])
        return [rewritten]

    def _answer(self, action: str, params: dict[str, str]) -> bytes | None:
        if action == "CompleteLifecycleAction":
            self._lifecycle.complete(
                params["AutoScalingGroupName"],
                params["LifecycleHookName"],
                params.get("LifecycleActionResult", ""),
                instance_id=params.get("InstanceId"),
                token=params.get("LifecycleActionToken"),
            )
            return _xml(action)
        if action == "RecordLifecycleActionHeartbeat":
            self._lifecycle.heartbeat(
                params["AutoScalingGroupName"],
                params["LifecycleHookName"],
                instance_id=params.get("InstanceId"),
                token=params.get("LifecycleActionToken"),
            )
            return _xml(action)
        if action == "TerminateInstanceInAutoScalingGroup":
            instance_id = params["InstanceId"]
            self._lifecycle.terminate(instance_id, params.get("ShouldDecrementDesiredCapacity") == "true")
            return _xml(
                action,
                f"<Activity><ActivityId>{uuid.uuid4()}</ActivityId><StatusCode>InProgress</StatusCode>"
                f"<Description>Terminating EC2 instance: {instance_id}</Description></Activity>",
            )
        return None

    def _with_states(self, body: bytes, capitals: bool) -> bytes:
        ElementTree.register_namespace("", NAMESPACE)
        root = ElementTree.fromstring(body)
        members = root.iter(f"{{{NAMESPACE}}}member")
        for member in list(members):
            instance = member.find(f"{{{NAMESPACE}}}InstanceId")
            state = member.find(f"{{{NAMESPACE}}}LifecycleState")
            health = member.find(f"{{{NAMESPACE}}}HealthStatus")
            # moto keeps what SetInstanceHealth was told (Healthy, Unhealthy); DescribeAutoScalingInstances
            # answers HEALTHY, UNHEALTHY, DescribeAutoScalingGroups as told (the API reference's Instance type).
            if capitals and health is not None and health.text:
                health.text = health.text.upper()
            if instance is None or state is None:
                continue
            known = self._lifecycle.state(instance.text or "")
            if known:
                state.text = known
        return ElementTree.tostring(root, xml_declaration=False)
