"""The box's AWS and the outside world the nodes reach, in one process inside the box's network namespace:

- moto in server mode, behind the lifecycle layer (lifecycle.py, autoscaling_api.py), which tells moto's
  EventBridge of each lifecycle action (autoscaling_events.py), the EC2 answers it corrects (ec2_api.py),
  the SSM reads IAM would refuse (ssm_api.py) and STS's presigned GetCallerIdentity (sts_api.py), over HTTPS at the
  region's real endpoint names (the nodes' /etc/hosts send them to ROUTER), with the box CA's certificate;
- pkgs.k8s.io's Kubernetes repository (the box image's apt/), on the same listener, by host name;
- instance metadata at 169.254.169.254 (metadata.py), per caller;
- the internal API load balancer (nlb.py) at NLB;
- the same AWS for the harness on 127.0.0.1:PORT, plain HTTP.

On start it creates what the plan declares (declare.py) and prints one JSON line: {"ready": true}.
Stops on SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import signal
import ssl
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, Callable

from moto.core import DEFAULT_ACCOUNT_ID
from moto.ec2.models import ec2_backends
from moto.events.models import events_backends
from moto.iam.models import iam_backends
from moto.server import DomainDispatcherApplication, create_backend_app
from moto.ssm.models import ssm_backends
from moto.sts.models import sts_backends
from werkzeug.serving import make_server

from autoscaling_api import AutoScalingLayer, MotoGroups
from autoscaling_events import lifecycle_event
from ec2_api import Ec2Layer, moto_addresses
from ssm_api import SsmLayer, moto_ssm_tags, moto_user_id
from sts_api import StsLayer, moto_sessions
from declare import PLAN_ACCOUNT, Declared
from lifecycle import Lifecycle
from metadata import Metadata
from nlb import LoadBalancer

REGION = "us-east-1"


def static_site(root: Path) -> Callable[..., Any]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = (root / environ.get("PATH_INFO", "/").lstrip("/")).resolve()
        if not str(path).startswith(str(root.resolve())) or not path.is_file():
            start_response("404 Not Found", [("Content-Length", "0")])
            return [b""]
        body = path.read_bytes()
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        start_response("200 OK", [("Content-Type", kind), ("Content-Length", str(len(body)))])
        return [body] if environ["REQUEST_METHOD"] != "HEAD" else [b""]

    return app


def by_host(sites: dict[str, Callable[..., Any]], default: Callable[..., Any]) -> Callable[..., Any]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        host = environ.get("HTTP_HOST", "").split(":")[0]
        return sites.get(host, default)(environ, start_response)

    return app


def logged(app: Callable[..., Any]) -> Callable[..., Any]:
    """APP, with the traceback of an answer that failed on standard error (the box's emulator.log)."""

    def wrapper(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        try:
            return app(environ, start_response)
        except Exception:
            traceback.print_exc()
            raise

    return wrapper


def serve(server: Any) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plan", required=True, type=Path)
    parser.add_argument("--image", required=True, type=Path, help="the box image's cache (apt/, tls/)")
    parser.add_argument("--router", required=True, action="append", help="a subnet's router address (each subnet's)")
    parser.add_argument("--nlb", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--session-tag", required=True, help="the tag naming the one session that reads a parameter")
    args = parser.parse_args()

    groups = MotoGroups(DEFAULT_ACCOUNT_ID, REGION)
    events = events_backends[DEFAULT_ACCOUNT_ID][REGION]
    lifecycle = Lifecycle(groups, notify=lambda notice: events.put_events([lifecycle_event(notice, groups.arn(notice.group))]))
    ec2 = ec2_backends[DEFAULT_ACCOUNT_ID][REGION]
    sts = sts_backends[DEFAULT_ACCOUNT_ID]["aws"]
    moto = DomainDispatcherApplication(create_backend_app)
    ssm = SsmLayer(
        StsLayer(moto, moto_sessions(sts_backends, iam_backends[DEFAULT_ACCOUNT_ID]["aws"], DEFAULT_ACCOUNT_ID, PLAN_ACCOUNT)),
        args.session_tag,
        moto_ssm_tags(ssm_backends[DEFAULT_ACCOUNT_ID][REGION]),
        moto_user_id(sts),
    )
    aws = AutoScalingLayer(Ec2Layer(ssm, moto_addresses(ec2)), lifecycle)

    declared = Declared(args.plan, f"http://127.0.0.1:{args.port}")

    def role_of(instance: Any) -> str:
        tags = {t["key"]: t["value"] for t in instance.get_tags()}
        return declared.roles[tags["aws:ec2launchtemplate:id"]]

    metadata = Metadata(DEFAULT_ACCOUNT_ID, REGION, lifecycle, role_of)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.image / "tls" / "server.crt", args.image / "tls" / "server.key")
    public = by_host({"pkgs.k8s.io": static_site(args.image / "apt")}, aws)
    servers = [
        make_server("127.0.0.1", args.port, aws, threaded=True),
        # AWS's endpoints and pkgs.k8s.io answer at each subnet's router: a node reaches them from its own subnet.
        *(make_server(router, 443, logged(public), threaded=True, ssl_context=context) for router in args.router),
        make_server("169.254.169.254", 80, logged(metadata), threaded=True),
    ]
    for server in servers:
        serve(server)

    declared.declare()
    target_groups = set(declared.internal_target_groups())

    def api_targets() -> list[str]:
        in_service = lifecycle.in_service()
        addresses = []
        for instance_id, group in sorted(in_service.items()):
            if target_groups & set(groups.target_groups(group)):
                addresses.append(ec2.get_instance(instance_id).private_ip)
        return addresses

    balancer = LoadBalancer(args.nlb, 443, api_targets)
    threading.Thread(target=balancer.serve, daemon=True).start()

    def tick() -> None:
        while True:
            lifecycle.sync()
            stopped.wait(1)

    stopped = threading.Event()
    threading.Thread(target=tick, daemon=True).start()
    print(json.dumps({"ready": True}), flush=True)

    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    balancer.stop()
    for server in servers:
        server.shutdown()
    sys.exit(0)


if __name__ == "__main__":
    main()
