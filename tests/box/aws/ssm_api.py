"""What SSM and IAM refuse and moto accepts, enforced by the layer in front of moto:

- a parameter tagged with the session tag is readable (GetParameter, GetParameters) by that session alone,
  the caller whose `aws:userid` is the tag's value. That is the node role's statement for the workers'
  credentials (components/iam/sources/nodeCredentials.ts: `ssm:resourceTag/<tag>` equals `${aws:userid}`;
  IAM user guide, "IAM policy elements: Variables": an instance role's session is `<role id>:<instance id>`).
  moto checks no policy;
- a standard-tier parameter's value holds at most 4,096 characters (PutParameter, "Value": "Standard tier
  parameters support a maximum parameter value of 4096 characters"; the advanced tier 8 KB). moto takes any.

Everything else goes to moto unchanged.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, Callable

READS = {"AmazonSSM.GetParameter", "AmazonSSM.GetParameters"}
STANDARD_VALUE_LIMIT = 4096


class SsmLayer:
    """WSGI, in front of moto's application. TAGS(name) gives a parameter's tags, USER_ID(access key id) the
    caller's aws:userid (None when unknown)."""

    def __init__(
        self,
        app: Callable[..., Any],
        session_tag: str,
        tags: Callable[[str], dict[str, str]],
        user_id: Callable[[str], str | None],
    ):
        self._app = app
        self._session_tag = session_tag
        self._tags = tags
        self._user_id = user_id

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        target = environ.get("HTTP_X_AMZ_TARGET")
        if target not in READS and target != "AmazonSSM.PutParameter":
            return self._app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        request = json.loads(body or b"{}")
        if target == "AmazonSSM.PutParameter":
            standard = request.get("Tier", "Standard") == "Standard"
            if standard and len(request.get("Value", "")) > STANDARD_VALUE_LIMIT:
                return _refuse(
                    start_response,
                    "ValidationException",
                    f"Standard tier parameters support a maximum parameter value of {STANDARD_VALUE_LIMIT} characters.",
                )
            return self._app(environ, start_response)
        names = [request["Name"]] if "Name" in request else request.get("Names", [])
        key = re.search(r"Credential=([^/]+)/", environ.get("HTTP_AUTHORIZATION", ""))
        caller = self._user_id(key.group(1)) if key else None
        for name in names:
            session = self._tags(name).get(self._session_tag)
            if session is not None and session != caller:
                return _refuse(start_response, "AccessDeniedException", f"{caller} is not authorized to read {name}")
        return self._app(environ, start_response)


def _refuse(start_response: Callable[..., Any], error: str, message: str) -> list[bytes]:
    text = json.dumps({"__type": error, "message": message}).encode()
    start_response(
        "400 Bad Request", [("Content-Type", "application/x-amz-json-1.1"), ("Content-Length", str(len(text)))]
    )
    return [text]


def moto_ssm_tags(backend: Any) -> Callable[[str], dict[str, str]]:
    """A parameter's tags in moto's SSM BACKEND (none for an unknown parameter)."""

    def tags(name: str) -> dict[str, str]:
        return dict(backend.list_tags_for_resource("Parameter", name)) if backend.get_parameter(name) else {}

    return tags


def moto_user_id(backend: Any) -> Callable[[str], str | None]:
    """The aws:userid of an access key of moto's STS BACKEND's sessions."""

    def user_id(access_key_id: str) -> str | None:
        session = backend.get_assumed_role_from_access_key(access_key_id)
        return session.user_id if session else None

    return user_id
