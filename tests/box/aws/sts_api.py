"""What STS does with a presigned GetCallerIdentity request and moto does not, enforced by a layer in front of
moto: the cluster admins' tokens (components/adminAccess/clusterToken.ts), which aws-iam-authenticator on
the control plane replays to STS (its pkg/token/token.go: a GET of the URL with the signed `x-k8s-aws-id`
header, `Accept: application/json`).

- The caller is the one the query's `X-Amz-Credential` names (AWS General Reference, "Signature Version 4:
  authenticating requests using query parameters"); moto reads only an Authorization header and answers for
  a default user.
- The signature is checked: Signature Version 4's canonical request (method, path, the query but the
  signature, the signed headers, the empty body's hash), signed with the session's secret key. A request whose
  `x-k8s-aws-id` differs from the one signed, or signed by another key, is refused (SignatureDoesNotMatch).
- The credential's scope is the request's date, the host's region and `sts`; a request dated more than 15
  minutes ahead is refused (the clock skew AWS allows).
- The request is good for 15 minutes from `X-Amz-Date`, whatever `X-Amz-Expires` says (aws-iam-authenticator's
  token.go: "presigned STS urls are valid for 15 minutes after timestamp in x-amz-date"; aws-sdk-go issue
  2167); an expired session's credentials are refused (ExpiredToken).
- The answer is JSON when the request accepts `application/json` (what the authenticator parses), XML else.
- It names the account the box's user data names (the plan's), where moto keeps that one account under its
  own default id: the nodes' authenticator maps the admin role by an ARN of the plan's account.

Every other request goes to moto unchanged.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
from typing import Any, Callable
from urllib.parse import parse_qsl, quote

VALID_FOR = datetime.timedelta(minutes=15)
# A GET has no body: its payload hash is the empty string's (S3 alone takes UNSIGNED-PAYLOAD).
EMPTY_PAYLOAD = hashlib.sha256(b"").hexdigest()


class Session:
    """An access key's holder, as STS knows it."""

    def __init__(self, secret_key: str, session_token: str | None, arn: str, user_id: str, account: str,
                 expires: datetime.datetime | None):
        self.secret_key = secret_key
        self.session_token = session_token
        self.arn = arn
        self.user_id = user_id
        self.account = account
        self.expires = expires


def _uri(text: str) -> str:
    return quote(text, safe="-_.~")


def canonical_request(method: str, path: str, query: list[tuple[str, str]], headers: dict[str, str],
                      signed: list[str]) -> str:
    pairs = sorted((_uri(k), _uri(v)) for k, v in query if k != "X-Amz-Signature")
    return "\n".join([
        method,
        path,
        "&".join(f"{k}={v}" for k, v in pairs),
        "".join(f"{h}:{' '.join(headers.get(h, '').split())}\n" for h in signed),
        ";".join(signed),
        EMPTY_PAYLOAD,
    ])


def signature(secret_key: str, amz_date: str, scope: str, canonical: str) -> str:
    date, region, service, terminator = scope.split("/")
    key = ("AWS4" + secret_key).encode()
    for part in (date, region, service, terminator):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


class StsLayer:
    """WSGI, in front of moto's application. SESSION(access key id) gives the key's holder (None if unknown);
    NOW() the time."""

    def __init__(self, app: Callable[..., Any], session: Callable[[str], Session | None],
                 now: Callable[[], datetime.datetime] = lambda: datetime.datetime.now(datetime.timezone.utc)):
        self._app = app
        self._session = session
        self._now = now

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        query = parse_qsl(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        params = dict(query)
        presigned = environ.get("REQUEST_METHOD") == "GET" and "X-Amz-Credential" in params
        if not presigned or params.get("Action") != "GetCallerIdentity":
            return self._app(environ, start_response)
        as_json = "application/json" in environ.get("HTTP_ACCEPT", "")
        refuse = lambda status, code, message: _error(start_response, as_json, status, code, message)  # noqa: E731
        key_id, _, scope = params["X-Amz-Credential"].partition("/")
        try:
            signed_at = datetime.datetime.strptime(params["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(
                tzinfo=datetime.timezone.utc)
        except (KeyError, ValueError):
            return refuse(400, "AuthorizationQueryParametersError", "X-Amz-Date must be in the ISO8601 basic format")
        host = environ.get("HTTP_HOST", "").split(":")[0]
        region = host.split(".")[1] if host.count(".") > 2 else "us-east-1"
        if scope.split("/") != [params["X-Amz-Date"][:8], region, "sts", "aws4_request"]:
            return refuse(403, "SignatureDoesNotMatch", f"Credential should be scoped to a valid region, service "
                          f"and date: {scope}")
        session = self._session(key_id)
        if session is None:
            return refuse(403, "InvalidClientTokenId", "The security token included in the request is invalid.")
        if (session.session_token or None) != (params.get("X-Amz-Security-Token") or None):
            return refuse(403, "InvalidClientTokenId", "The security token included in the request is invalid.")
        signed = params.get("X-Amz-SignedHeaders", "").split(";")
        headers = {"host": environ.get("HTTP_HOST", "")}
        for name in signed:
            if name != "host":
                headers[name] = environ.get("HTTP_" + name.upper().replace("-", "_"), "")
        canonical = canonical_request("GET", environ.get("PATH_INFO", "/") or "/", query, headers, signed)
        expected = signature(session.secret_key, params.get("X-Amz-Date", ""), scope, canonical)
        if not hmac.compare_digest(expected, params.get("X-Amz-Signature", "")):
            return refuse(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the "
                          "signature you provided.")
        now = self._now()
        if now > signed_at + VALID_FOR:
            return refuse(403, "AccessDenied", "Request has expired")
        if signed_at > now + VALID_FOR:
            return refuse(403, "SignatureDoesNotMatch", "Signature not yet current")
        if session.expires is not None and now > session.expires:
            return refuse(403, "ExpiredToken", "The security token included in the request is expired")
        result = {"Account": session.account, "Arn": session.arn, "UserId": session.user_id}
        if as_json:
            body = json.dumps({"GetCallerIdentityResponse": {"GetCallerIdentityResult": result,
                                                             "ResponseMetadata": {"RequestId": "box"}}})
            kind = "application/json"
        else:
            fields = "".join(f"<{k}>{v}</{k}>" for k, v in result.items())
            body = ('<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
                    f"<GetCallerIdentityResult>{fields}</GetCallerIdentityResult>"
                    "<ResponseMetadata><RequestId>box</RequestId></ResponseMetadata></GetCallerIdentityResponse>")
            kind = "text/xml"
        data = body.encode()
        start_response("200 OK", [("Content-Type", kind), ("Content-Length", str(len(data)))])
        return [data]


def _error(start_response: Callable[..., Any], as_json: bool, status: int, code: str, message: str) -> list[bytes]:
    if as_json:
        data = json.dumps({"Error": {"Code": code, "Message": message, "Type": "Sender"}}).encode()
        kind = "application/json"
    else:
        data = (f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error>"
                "<RequestId>box</RequestId></ErrorResponse>").encode()
        kind = "text/xml"
    reason = {403: "Forbidden"}.get(status, "Bad Request")
    start_response(f"{status} {reason}", [("Content-Type", kind), ("Content-Length", str(len(data)))])
    return [data]


def moto_sessions(sts_backends: Any, iam_backend: Any, moto_account: str, account: str) -> Callable[[str], Session | None]:
    """An access key's holder: a session moto's STS issued (AssumeRole, kept under the role's account: moto's
    own or the plan's), or a user of moto's IAM; its ARN in ACCOUNT, which moto keeps as MOTO_ACCOUNT."""

    def in_account(arn: str) -> str:
        return arn.replace(f"::{moto_account}:", f"::{account}:", 1)

    def assumed_role(access_key_id: str) -> Any:
        for owner in (moto_account, account):
            found = sts_backends[owner]["aws"].get_assumed_role_from_access_key(access_key_id)
            if found is not None:
                return found
        return None

    def session(access_key_id: str) -> Session | None:
        assumed = assumed_role(access_key_id)
        if assumed is not None:
            expires = assumed.expiration
            if expires.tzinfo is None:
                expires = expires.replace(tzinfo=datetime.timezone.utc)
            return Session(assumed.secret_access_key, assumed.session_token, in_account(assumed.arn),
                           assumed.user_id, account, expires)
        for user in iam_backend.users.values():
            for key in user.access_keys:
                if key.access_key_id == access_key_id:
                    return Session(key.secret_access_key, None, in_account(user.arn), user.id, account, None)
        return None

    return session
