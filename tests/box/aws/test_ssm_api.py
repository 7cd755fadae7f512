"""The SSM layer against IAM's rule it enforces (ssm_api.py's docstring), through boto3 as the AWS CLI on a
node calls it, with sessions of moto's STS as instance metadata hands them out. Each test also runs against
moto alone, and must fail there."""

from __future__ import annotations

import threading
from typing import Any, Iterator

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.iam.models import iam_backends
from moto.server import DomainDispatcherApplication, create_backend_app
from moto.ssm.models import ssm_backends
from moto.sts.models import sts_backends
from werkzeug.serving import make_server

from ssm_api import SsmLayer, moto_ssm_tags, moto_user_id

TAG = "cilium-cluster/session"
PREFIX = "/cilium-cluster/box.k8s.local/instance/"


@pytest.fixture(params=["layer", "moto-alone"])
def aws(request: pytest.FixtureRequest) -> Iterator[tuple[Any, bool]]:
    moto = DomainDispatcherApplication(create_backend_app)
    ssm = ssm_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    sts = sts_backends[DEFAULT_ACCOUNT_ID]["aws"]
    app = SsmLayer(moto, TAG, moto_ssm_tags(ssm), moto_user_id(sts)) if request.param == "layer" else moto
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    iam = iam_backends[DEFAULT_ACCOUNT_ID]["aws"]
    known = [r for r in iam.get_roles() if r.name == "nodes.box"]
    role = known[0] if known else iam.create_role(
        role_name="nodes.box",
        assume_role_policy_document="{}",
        path="/",
        permissions_boundary=None,
        description="",
        tags=[],
        max_session_duration=3600,
        linked_service=None,
    )

    def client(instance: str) -> Any:
        """SSM as INSTANCE's role session calls it (EC2 names the session after the instance)."""
        session = sts.assume_role(
            region_name="us-east-1",
            role_session_name=instance,
            role_arn=role.arn,
            policy="",
            duration=3600,
            external_id="",
        )
        return boto3.client(
            "ssm",
            region_name="us-east-1",
            endpoint_url=f"http://127.0.0.1:{server.server_port}",
            aws_access_key_id=session.access_key_id,
            aws_secret_access_key=session.secret_access_key,
            aws_session_token=session.session_token,
        ), session.user_id

    yield client, request.param == "layer"
    server.shutdown()
    for name in list(ssm._parameters):
        ssm.delete_parameter(name)


def test_a_tagged_parameter_is_read_by_its_session_alone(aws):
    client, real = aws
    own, own_id = client("i-0000000000000000a")
    other, _ = client("i-0000000000000000b")
    own.put_parameter(
        Name=f"{PREFIX}i-0000000000000000a", Value="credential", Type="SecureString", Tags=[{"Key": TAG, "Value": own_id}]
    )
    read = own.get_parameter(Name=f"{PREFIX}i-0000000000000000a", WithDecryption=True)["Parameter"]["Value"]
    assert read == "credential"
    refused = []
    for call in (
        lambda: other.get_parameter(Name=f"{PREFIX}i-0000000000000000a", WithDecryption=True),
        lambda: other.get_parameters(Names=[f"{PREFIX}i-0000000000000000a"], WithDecryption=True),
    ):
        try:
            call()
            refused.append(False)
        except other.exceptions.ClientError as e:
            refused.append(e.response["Error"]["Code"] == "AccessDeniedException")
    assert refused == [real, real]


def test_an_untagged_parameter_is_left_to_moto(aws):
    client, _ = aws
    writer, _ = client("i-0000000000000000a")
    reader, _ = client("i-0000000000000000b")
    writer.put_parameter(Name="/cilium-cluster/box.k8s.local/node/ca.crt", Value="ca", Type="String")
    assert reader.get_parameter(Name="/cilium-cluster/box.k8s.local/node/ca.crt")["Parameter"]["Value"] == "ca"


def test_a_standard_parameter_holds_at_most_4096_characters(aws):
    client, real = aws
    writer, _ = client("i-0000000000000000a")
    writer.put_parameter(Name="/box/fits", Value="x" * 4096, Type="SecureString")
    writer.put_parameter(Name="/box/advanced", Value="x" * 6000, Type="SecureString", Tier="Advanced")
    try:
        writer.put_parameter(Name="/box/too-long", Value="x" * 4097, Type="SecureString")
        refused = False
    except writer.exceptions.ClientError as e:
        refused = e.response["Error"]["Code"] == "ValidationException"
    assert refused is real
