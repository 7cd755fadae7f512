"""The SSM rule of IAM the layer enforces in front of moto, which checks no policy: a parameter tagged with
the session tag is readable (GetParameter, GetParameters) by that session alone, the caller whose `aws:userid`
is the tag's value. That is the node role's statement for the workers' credentials
(components/iam/sources/nodeCredentials.ts: `ssm:resourceTag/<tag>` equals `${aws:userid}`; IAM user guide,
"IAM policy elements: Variables": an instance role's session is `<role id>:<instance id>`). Everything else
goes to moto unchanged.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, Callable

READS = {"AmazonSSM.GetParameter", "AmazonSSM.GetParameters"}


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
        if environ.get("HTTP_X_AMZ_TARGET") not in READS:
            return self._app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        request = json.loads(body or b"{}")
        names = [request["Name"]] if "Name" in request else request.get("Names", [])
        key = re.search(r"Credential=([^/]+)/", environ.get("HTTP_AUTHORIZATION", ""))
        caller = self._user_id(key.group(1)) if key else None
        for name in names:
            session = self._tags(name).get(self._session_tag)
            if session is not None and session != caller:
                text = json.dumps(
                    {"__type": "AccessDeniedException", "message": f"{caller} is not authorized to read {name}"}
                ).encode()
                start_response(
                    "400 Bad Request",
                    [("Content-Type", "application/x-amz-json-1.1"), ("Content-Length", str(len(text)))],
                )
                return [text]
        return self._app(environ, start_response)


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
