"""The STS layer against what it enforces (sts_api.py's docstring), with tokens presigned by botocore as
`aws eks get-token` presigns them, replayed as aws-iam-authenticator replays them. Each test also runs
against moto alone, and must fail there."""

from __future__ import annotations

import datetime
import json
import threading
import urllib.error
import urllib.request
from typing import Any, Iterator
from unittest import mock
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from moto.core import DEFAULT_ACCOUNT_ID
from moto.iam.models import iam_backends
from moto.server import DomainDispatcherApplication, create_backend_app
from moto.sts.models import sts_backends
from werkzeug.serving import make_server

from sts_api import StsLayer, moto_sessions

PLAN_ACCOUNT = "000000000000"

CLUSTER = "box.k8s.local"
HOST = "sts.us-east-1.amazonaws.com"


@pytest.fixture(params=["layer", "moto-alone"])
def sts(request: pytest.FixtureRequest) -> Iterator[tuple[Any, bool]]:
    moto = DomainDispatcherApplication(create_backend_app)
    backend = sts_backends[DEFAULT_ACCOUNT_ID]["aws"]
    iam = iam_backends[DEFAULT_ACCOUNT_ID]["aws"]
    real = request.param == "layer"
    app = StsLayer(moto, moto_sessions(sts_backends, iam, DEFAULT_ACCOUNT_ID, PLAN_ACCOUNT)) if real else moto
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    known = [r for r in iam.get_roles() if r.name == "admins.box"]
    role = known[0] if known else iam.create_role(
        role_name="admins.box", assume_role_policy_document="{}", path="/", permissions_boundary=None,
        description="", tags=[], max_session_duration=3600, linked_service=None,
    )
    session = backend.assume_role(region_name="us-east-1", role_session_name="alice", role_arn=role.arn,
                                  policy="", duration=900, external_id="")
    yield (server.server_port, session, role), real
    server.shutdown()


def presigned(session: Any, cluster: str = CLUSTER, at: datetime.datetime | None = None, service: str = "sts") -> str:
    """A GetCallerIdentity URL presigned with X-K8s-Aws-Id signed, as botocore signs one."""
    credentials = Credentials(session.access_key_id, session.secret_access_key, session.session_token)
    request = AWSRequest(method="GET", url=f"https://{HOST}/?Action=GetCallerIdentity&Version=2011-06-15",
                         headers={"x-k8s-aws-id": cluster})
    signer = SigV4QueryAuth(credentials, service, "us-east-1", expires=60)
    with mock.patch("botocore.auth.get_current_datetime", lambda: at or datetime.datetime.now(datetime.timezone.utc)):
        signer.add_auth(request)
    return request.url


def replay(port: int, url: str, cluster: str = CLUSTER) -> tuple[int, str]:
    """The authenticator's request: GET of the URL, with the cluster id and Accept: application/json."""
    parts = urlsplit(url)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/?{parts.query}",
                                     headers={"Host": HOST, "x-k8s-aws-id": cluster, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def identity(status: int, body: str) -> dict[str, str] | None:
    """The GetCallerIdentityResult of a JSON answer; None for a refusal or another shape."""
    try:
        return json.loads(body)["GetCallerIdentityResponse"]["GetCallerIdentityResult"] if status == 200 else None
    except (ValueError, KeyError):
        return None


def test_names_the_signer_in_json(sts):
    (port, session, role), real = sts
    expected = {"Account": PLAN_ACCOUNT, "Arn": f"arn:aws:sts::{PLAN_ACCOUNT}:assumed-role/admins.box/alice",
                "UserId": f"{role.id}:alice"}
    assert (identity(*replay(port, presigned(session))) == expected) is real


def test_refuses_an_unknown_key(sts):
    (port, session, _), real = sts
    session_copy = type("S", (), {"access_key_id": "ASIAUNKNOWN000000000", "secret_access_key": "x",
                                   "session_token": session.session_token})
    status, _ = replay(port, presigned(session_copy))
    assert (status == 403) is real


def test_names_a_session_of_a_role_in_the_plans_account(sts):
    (port, _, _), real = sts
    # moto keeps a session under its role's account: here the plan's, as the cluster's admin role is there.
    session = sts_backends[PLAN_ACCOUNT]["aws"].assume_role(
        region_name="us-east-1", role_session_name="alice", role_arn=f"arn:aws:iam::{PLAN_ACCOUNT}:role/admins.box",
        policy="", duration=900, external_id="",
    )
    named = identity(*replay(port, presigned(session)))
    assert (named is not None and named["Arn"] == f"arn:aws:sts::{PLAN_ACCOUNT}:assumed-role/admins.box/alice") is real


@pytest.mark.parametrize(
    "signed",
    [
        pytest.param({"cluster": "other.k8s.local"}, id="another cluster id than the one signed"),
        pytest.param({"minutes": -16}, id="signed over 15 minutes ago"),
        pytest.param({"minutes": 20}, id="dated ahead"),
        pytest.param({"service": "s3"}, id="a signature scoped to another service"),
    ],
)
def test_refuses(sts, signed):
    (port, session, _), real = sts
    at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=signed.get("minutes", 0))
    rest = {k: v for k, v in signed.items() if k != "minutes"}
    status, _ = replay(port, presigned(session, at=at, **rest))
    assert (status == 403) is real
