"""What protects every dashboard page: response headers (a Content-Security-Policy among them), cookies,
bounded form bodies, CSRF checks and the ``next=`` target of sign-in.

CSRF has two layers: every form carries a token that must match a server-side value (the session's token
once signed in; before sign-in, a random cookie the form must echo, so nobody can sign a victim in to the
attacker's account), and a POST whose ``Origin`` (or ``Sec-Fetch-Site``) says another site sent it is
refused before the token is even compared. SameSite=Lax cookies add a third.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/dashboard"
# Pages use only the stylesheet of /dashboard/static: no script, no inline style, no frames, forms only to us.
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
MAX_FORM_BYTES = 8 * 1024
MAX_FORM_FIELDS = 20
CSRF_FIELD = "csrf_token"


class FormError(Exception):
    """A form body the dashboard refuses, with the status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class SecurityHeaders:
    """Pure ASGI middleware: the security headers of every dashboard response (a response that sets its own
    Content-Security-Policy or Cache-Control keeps it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", CSP)
                headers.setdefault("Cache-Control", "no-store")
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                headers["Referrer-Policy"] = "same-origin"
                headers["Cross-Origin-Opener-Policy"] = "same-origin"
                headers["Permissions-Policy"] = "camera=(), microphone=(), geolocation=()"
                if secure:
                    headers["Strict-Transport-Security"] = "max-age=31536000"
            await send(message)

        await self.app(scope, receive, send_with_headers)


def is_secure(request: Request) -> bool:
    """Whether the browser reached us over TLS (directly, or through a proxy uvicorn trusts)."""
    return request.url.scheme == "https"


def cookie_name(request: Request, base: str) -> str:
    """``__Host-`` names over TLS: the browser then refuses the cookie unless it is Secure, host-only and
    Path=/, so a sibling subdomain cannot plant one."""
    return f"__Host-{base}" if is_secure(request) else base


def set_cookie(response: Response, request: Request, base: str, value: str, *, max_age: int | None = None) -> None:
    """An HttpOnly, SameSite=Lax cookie for the whole site, Secure behind TLS."""
    response.set_cookie(
        cookie_name(request, base),
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_secure(request),
    )


def clear_cookie(response: Response, request: Request, base: str) -> None:
    response.delete_cookie(
        cookie_name(request, base), path="/", httponly=True, samesite="lax", secure=is_secure(request)
    )


def read_cookie(request: Request, base: str) -> str | None:
    return request.cookies.get(cookie_name(request, base))


def safe_next(target: str | None) -> str:
    """Where to go after sign-in: ``target`` when it is a path of the dashboard on this site, else the
    dashboard's home. Never another host: no scheme, no ``//host``, no backslash (browsers read ``/\\host``
    as ``//host``), no control characters, no dot segments that would climb out of /dashboard."""
    home = PREFIX
    if not target or len(target) > 2000:
        return home
    if any(c in target for c in "\\\r\n\t\x00") or any(ord(c) < 0x20 or ord(c) == 0x7F for c in target):
        return home
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return home
    if target.startswith("//") or "/../" in f"{parts.path}/" or "/./" in f"{parts.path}/":
        return home
    if parts.path != PREFIX and not parts.path.startswith(PREFIX + "/"):
        return home
    if parts.path.startswith(PREFIX + "/login") or parts.path.startswith(PREFIX + "/logout"):
        return home
    return target


def tokens_match(expected: str | None, given: str | None) -> bool:
    """Constant-time comparison of two CSRF tokens; False when either is missing."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


def cross_site(request: Request) -> bool:
    """Whether the browser says another site sent this request (Origin or Sec-Fetch-Site)."""
    if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
        return True
    origin = request.headers.get("origin")
    if origin is None:
        return False
    own = f"{request.url.scheme}://{request.url.netloc}"
    return origin.rstrip("/").lower() != own.lower()


async def read_form(request: Request) -> Mapping[str, str]:
    """An ``application/x-www-form-urlencoded`` body of at most MAX_FORM_BYTES and MAX_FORM_FIELDS fields,
    read without ever holding more than that in memory. The last value of a repeated field wins."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise FormError(415, "This form must be sent as application/x-www-form-urlencoded.")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_FORM_BYTES):
        raise FormError(413, "The form is too large.")
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_FORM_BYTES:
            raise FormError(413, "The form is too large.")
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS, errors="strict")
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormError(400, "The form could not be read.") from exc
    if any("\x00" in key or "\x00" in value for key, value in pairs):
        raise FormError(400, "The form could not be read.")
    return dict(pairs)
