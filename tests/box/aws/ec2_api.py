"""EC2 Query API answers the layer corrects in front of moto, by the Amazon EC2 API reference. Everything else
goes to moto unchanged.

- AssignPrivateIpAddresses: AssignedPrivateIpAddresses, "the private IP addresses assigned to the network
  interface", holds the secondary addresses this call assigned, as the clients written against EC2 read it:
  Cilium's operator copies it into a slice as long as its request (pkg/aws/api/api.go,
  AssignPrivateIpAddresses). moto 5.2.1 lists every address of the interface, its primary and earlier ones
  too, and the operator panicked on it. The layer keeps the answer's new addresses only.
- DescribeInstanceTopology: "the physical host placement" of instances, returned only for the instance types
  the API reference lists under its prerequisites (HPC, P and Trn families, none of the ones here). moto 5.2.1
  does not implement it and answers 500, which the AWS cloud controller manager retries for about 5 s on
  every node it initialises. The layer answers as EC2 does for those types: an empty instanceSet.
"""

from __future__ import annotations

import io
import threading
import uuid
from typing import Any, Callable
from urllib.parse import parse_qs
from xml.etree import ElementTree


def moto_addresses(backend: Any) -> Callable[[str], set[str]]:
    """An interface's private addresses now, in moto's EC2 BACKEND (none for an unknown one)."""

    def addresses(eni: str) -> set[str]:
        known = backend.enis.get(eni)
        return {a["PrivateIpAddress"] for a in known.private_ip_addresses} if known else set()

    return addresses


class Ec2Layer:
    """WSGI, in front of moto's application; ADDRESSES(eni) gives an interface's private addresses now."""

    def __init__(self, app: Callable[..., Any], addresses: Callable[[str], set[str]]):
        self._app = app
        self._addresses = addresses
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        host, scope = environ.get("HTTP_HOST", ""), environ.get("HTTP_AUTHORIZATION", "")
        ec2 = host.startswith("ec2.") or "/ec2/aws4_request" in scope
        if not ec2 or environ.get("REQUEST_METHOD") != "POST":
            return self._app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        params = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if params.get("Action") == "DescribeInstanceTopology":
            return _no_topology(start_response)
        if params.get("Action") != "AssignPrivateIpAddresses":
            return self._app(environ, start_response)
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured["status"], captured["headers"] = status, headers
            return lambda _data: None

        # One at a time: the addresses before and after a call are that call's alone.
        with self._lock:
            before = self._addresses(params.get("NetworkInterfaceId", ""))
            answer = b"".join(self._app(environ, capture))
        if captured["status"].startswith("200"):
            answer = _only_new(answer, before)
        headers = [(k, v) for k, v in captured["headers"] if k.lower() != "content-length"]
        start_response(captured["status"], headers + [("Content-Length", str(len(answer)))])
        return [answer]


def _no_topology(start_response: Callable[..., Any]) -> list[bytes]:
    answer = (
        b'<DescribeInstanceTopologyResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
        b"<requestId>" + str(uuid.uuid4()).encode() + b"</requestId><instanceSet/></DescribeInstanceTopologyResponse>"
    )
    start_response("200 OK", [("Content-Type", "text/xml"), ("Content-Length", str(len(answer)))])
    return [answer]


def _only_new(answer: bytes, before: set[str]) -> bytes:
    root = ElementTree.fromstring(answer)
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    if namespace:
        ElementTree.register_namespace("", namespace[1:-1])
    for assigned in root.iter(f"{namespace}assignedPrivateIpAddressesSet"):
        for item in list(assigned):
            address = item.find(f"{namespace}privateIpAddress")
            if address is not None and address.text in before:
                assigned.remove(item)
    return ElementTree.tostring(root, xml_declaration=False)
