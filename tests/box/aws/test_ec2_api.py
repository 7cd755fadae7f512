"""The EC2 layer against the API reference (ec2_api.py's docstring), through boto3 as Cilium's operator calls
it. Each test also runs against moto alone, and must fail there."""

from __future__ import annotations

import threading
from typing import Any, Iterator

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ec2.models import ec2_backends
from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

from ec2_api import Ec2Layer, moto_addresses


@pytest.fixture(params=["layer", "moto-alone"])
def ec2(request: pytest.FixtureRequest) -> Iterator[tuple[Any, bool]]:
    moto = DomainDispatcherApplication(create_backend_app)
    backend = ec2_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    app = Ec2Layer(moto, moto_addresses(backend)) if request.param == "layer" else moto
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = boto3.client(
        "ec2",
        region_name="us-east-1",
        endpoint_url=f"http://127.0.0.1:{server.server_port}",
        aws_access_key_id="box",
        aws_secret_access_key="box",
    )
    yield client, request.param == "layer"
    server.shutdown()


def test_assign_private_ip_addresses_answers_the_addresses_it_assigned(ec2):
    client, real = ec2
    vpc = client.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    subnet = client.create_subnet(VpcId=vpc, CidrBlock="10.1.0.0/24")["Subnet"]["SubnetId"]
    eni = client.create_network_interface(SubnetId=subnet)["NetworkInterface"]["NetworkInterfaceId"]
    first = client.assign_private_ip_addresses(NetworkInterfaceId=eni, SecondaryPrivateIpAddressCount=2)
    second = client.assign_private_ip_addresses(NetworkInterfaceId=eni, SecondaryPrivateIpAddressCount=3)
    answered = [[a["PrivateIpAddress"] for a in r["AssignedPrivateIpAddresses"]] for r in (first, second)]
    held = client.describe_network_interfaces(NetworkInterfaceIds=[eni])["NetworkInterfaces"][0]
    secondary = {a["PrivateIpAddress"] for a in held["PrivateIpAddresses"] if not a["Primary"]}
    exact = [len(a) for a in answered] == [2, 3] and set(answered[0]) | set(answered[1]) == secondary
    assert exact is real


def test_describe_instance_topology_answers_no_topology_for_types_without_one(ec2):
    client, real = ec2
    vpc = client.create_vpc(CidrBlock="10.2.0.0/16")["Vpc"]["VpcId"]
    subnet = client.create_subnet(VpcId=vpc, CidrBlock="10.2.0.0/24")["Subnet"]["SubnetId"]
    instance = client.run_instances(
        ImageId="ami-12345678", MinCount=1, MaxCount=1, InstanceType="t3.medium", SubnetId=subnet
    )["Instances"][0]["InstanceId"]
    try:
        answered = client.describe_instance_topology(InstanceIds=[instance])["Instances"] == []
    except Exception:  # moto alone: not implemented, a 500 the SDK gives up on
        answered = False
    assert answered is real
