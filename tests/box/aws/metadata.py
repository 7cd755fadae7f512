"""Instance metadata (IMDSv2) for every instance moto holds, each caller answered as the instance whose
private address it calls from, as EC2 answers an instance at 169.254.169.254. A token from PUT
/latest/api/token is required (the launch templates require IMDSv2) and lasts its requested TTL.
Paths and answers: the EC2 user guide's "Instance metadata categories". The role's credentials are a session
of moto's STS named after the instance id, as EC2's are: the caller's `aws:userid` is then `<role id>:<instance
id>` (IAM user guide, "IAM policy elements: Variables"), which the SSM layer (ssm_api.py) enforces."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any, Callable

from moto.ec2.models import ec2_backends
from moto.iam.models import iam_backends
from moto.sts.models import sts_backends

from lifecycle import Lifecycle


class Metadata:
    def __init__(self, account: str, region: str, lifecycle: Lifecycle, role_of: Callable[[Any], str]):
        self._ec2 = ec2_backends[account][region]
        self._account = account
        self._region = region
        self._lifecycle = lifecycle
        self._role_of = role_of
        self._tokens: dict[str, float] = {}
        self._sessions: dict[str, Any] = {}

    def _session(self, instance: Any, role: str) -> Any:
        """The instance role's session for INSTANCE, made once: EC2 names it after the instance id."""
        if instance.id not in self._sessions:
            arn = iam_backends[self._account]["aws"].get_role(role).arn
            self._sessions[instance.id] = sts_backends[self._account]["aws"].assume_role(
                region_name=self._region,
                role_session_name=instance.id,
                role_arn=arn,
                policy="",
                duration=6 * 3600,
                external_id="",
            )
        return self._sessions[instance.id]

    def _instance(self, address: str) -> Any:
        for reservation in list(self._ec2.reservations.values()):
            for instance in reservation.instances:
                if instance.state == "running" and instance.private_ip == address:
                    return instance
        return None

    def _values(self, instance: Any) -> dict[str, str]:
        nic = instance.nics[0]
        mac = nic.mac_address
        subnet = self._ec2.get_subnet(nic.subnet.id)
        vpc = self._ec2.get_vpc(subnet.vpc_id)
        role = self._role_of(instance)
        session = self._session(instance, role)
        state = self._lifecycle.state(instance.id)
        prefix = f"network/interfaces/macs/{mac}/"
        values = {
            "ami-id": instance.image_id,
            "instance-id": instance.id,
            "instance-type": instance.instance_type,
            "local-ipv4": instance.private_ip,
            "local-hostname": instance.private_dns_name,
            "hostname": instance.private_dns_name,
            "mac": mac,
            "placement/availability-zone": instance.placement.zone,
            "placement/region": self._region,
            "services/domain": "amazonaws.com",
            "services/partition": "aws",
            "autoscaling/target-lifecycle-state": "Terminated" if state and state.startswith("Terminat") else "InService",
            "iam/info": json.dumps(
                {"Code": "Success", "InstanceProfileArn": f"arn:aws:iam::{self._account}:instance-profile/{role}"}
            ),
            "iam/security-credentials/": role,
            f"iam/security-credentials/{role}": json.dumps(
                {
                    "Code": "Success",
                    "Type": "AWS-HMAC",
                    "AccessKeyId": session.access_key_id,
                    "SecretAccessKey": session.secret_access_key,
                    "Token": session.session_token,
                    "Expiration": session.expiration.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "LastUpdated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            ),
            "network/interfaces/macs/": f"{mac}/",
            prefix + "device-number": "0",
            prefix + "interface-id": nic.id,
            prefix + "local-ipv4s": instance.private_ip,
            prefix + "mac": mac,
            prefix + "owner-id": self._account,
            prefix + "security-group-ids": "\n".join(g.id for g in nic.group_set),
            prefix + "subnet-id": subnet.id,
            prefix + "subnet-ipv4-cidr-block": subnet.cidr_block,
            prefix + "vpc-id": vpc.id,
            prefix + "vpc-ipv4-cidr-block": vpc.cidr_block,
            prefix + "vpc-ipv4-cidr-blocks": vpc.cidr_block,
        }
        document = {
            "accountId": self._account,
            "architecture": "x86_64",
            "availabilityZone": instance.placement.zone,
            "imageId": instance.image_id,
            "instanceId": instance.id,
            "instanceType": instance.instance_type,
            "privateIp": instance.private_ip,
            "region": self._region,
            "version": "2017-09-30",
        }
        values["dynamic/instance-identity/document"] = json.dumps(document)
        return values

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        def answer(status: str, text: str, headers: list[tuple[str, str]] | None = None) -> list[bytes]:
            body = text.encode()
            start_response(
                status, [("Content-Type", "text/plain"), ("Content-Length", str(len(body))), *(headers or [])]
            )
            return [body]

        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if method == "PUT" and path == "/latest/api/token":
            ttl = environ.get("HTTP_X_AWS_EC2_METADATA_TOKEN_TTL_SECONDS", "")
            if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                return answer("400 Bad Request", "")
            token = secrets.token_urlsafe(32)
            self._tokens[token] = time.monotonic() + int(ttl)
            # The SDKs read the token's lifetime back from this header (aws-sdk-go-v2 feature/ec2/imds).
            return answer("200 OK", token, [("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", ttl)])
        if method != "GET":
            return answer("405 Method Not Allowed", "")
        token = environ.get("HTTP_X_AWS_EC2_METADATA_TOKEN", "")
        if self._tokens.get(token, 0) < time.monotonic():
            return answer("401 Unauthorized", "")
        instance = self._instance(environ.get("REMOTE_ADDR", ""))
        if instance is None:
            return answer("404 Not Found", "")
        values = self._values(instance)
        for base in ("/latest/meta-data/", "/latest/"):
            if path.startswith(base):
                key = path[len(base) :]
                if key in values:
                    return answer("200 OK", values[key])
        return answer("404 Not Found", "")
