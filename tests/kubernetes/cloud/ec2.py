"""EC2 for the real AWS cloud controller manager beside the real control plane (tests/kubernetes/cloud.ts),
run inside the control plane's host:

- moto's AWS on 127.0.0.1:PORT, behind the box's EC2 layer (tests/box/aws/ec2_api.py), with the cluster's VPC
  and one subnet per SUBNET (in ZONE); the harness runs each node's instance in it with the AWS CLI;
- the box's instance metadata (tests/box/aws/metadata.py) at METADATA, the host's own address: it answers each
  caller as the instance at the caller's address, as EC2 answers at 169.254.169.254. The manager on the host
  calls from the first node's address, so it is that node's instance, as its pod on that node would be.

Prints one JSON line, {"ready": true, "vpc": ..., "subnets": {cidr: id}}, once both answer; stops on SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "box" / "aws"))

import boto3  # noqa: E402
from moto.core import DEFAULT_ACCOUNT_ID  # noqa: E402
from moto.ec2.models import ec2_backends  # noqa: E402
from moto.server import DomainDispatcherApplication, create_backend_app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from autoscaling_api import MotoGroups  # noqa: E402
from ec2_api import Ec2Layer, moto_addresses  # noqa: E402
from lifecycle import Lifecycle  # noqa: E402
from metadata import Metadata  # noqa: E402

REGION = "us-east-1"
# The instances' role, which the metadata's credentials are a session of.
ROLE = "nodes"
EC2_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--metadata", required=True, help="ADDRESS:PORT")
    parser.add_argument("--zone", required=True)
    parser.add_argument("--subnet", required=True, action="append", help="a subnet's CIDR")
    args = parser.parse_args()

    metadata_host, metadata_port = args.metadata.rsplit(":", 1)
    moto = DomainDispatcherApplication(create_backend_app)
    backend = ec2_backends[DEFAULT_ACCOUNT_ID][REGION]
    metadata = Metadata(DEFAULT_ACCOUNT_ID, REGION, Lifecycle(MotoGroups(DEFAULT_ACCOUNT_ID, REGION)), lambda _i: ROLE)
    servers = [
        make_server("127.0.0.1", args.port, Ec2Layer(moto, moto_addresses(backend)), threaded=True),
        make_server(metadata_host, int(metadata_port), metadata, threaded=True),
    ]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()

    session = boto3.Session(aws_access_key_id="cloud", aws_secret_access_key="cloud", region_name=REGION)
    endpoint = f"http://127.0.0.1:{args.port}"
    session.client("iam", endpoint_url=endpoint).create_role(
        RoleName=ROLE, AssumeRolePolicyDocument=json.dumps(EC2_TRUST)
    )
    ec2: Any = session.client("ec2", endpoint_url=endpoint)
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = {
        cidr: ec2.create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone=args.zone)["Subnet"]["SubnetId"]
        for cidr in args.subnet
    }
    print(json.dumps({"ready": True, "vpc": vpc, "subnets": subnets}), flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    for server in servers:
        server.shutdown()


if __name__ == "__main__":
    main()
