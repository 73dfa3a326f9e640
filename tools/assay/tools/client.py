"""One HTTP client for the MCP tools: embedded (in-process ASGI) or remote (a running service).

Both modes speak the Assurance Service API through the same :class:`AssayClient`; only the httpx
transport differs. Every failure becomes an :class:`AssayError` carrying the contract's error code (or one
of the client's own: ``CONNECTION_FAILED``, ``TIMEOUT``), the message, the HTTP status, whether a retry
may help, and the next step an agent can take.

Retries are bounded (:class:`RetryPolicy`):
- 429: wait for ``Retry-After`` when it is at most ``max_retry_after`` seconds, then try again; a longer
  wait is not slept through, it is reported (the agent decides).
- 5xx and read failures: retried with exponential backoff only when the request is idempotent (a GET, or
  a POST carrying an ``Idempotency-Key``).
- connection refused: retried for any request (nothing reached the service).
"""

from __future__ import annotations

import email.utils
import gzip
import json as jsonlib
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx
import orjson
from mcp.server.mcpserver.exceptions import ToolError

Sleep = Callable[[float], Awaitable[None]]

EMBEDDED_BASE_URL = "http://assay.embedded"
# JSON bodies over this many bytes go to a remote service gzip-compressed (a scan submission of a large
# tree: about 111 bytes a line, 9 times smaller compressed). In process (embedded) nothing is compressed.
COMPRESS_OVER_BYTES = 1024 * 1024
# gzip level 3: within 20% of level 6's size at less than half its time on bundle JSON.
GZIP_LEVEL = 3

# Codes of the client itself, next to the contract's (errors.py of the service lists those).
CONNECTION_FAILED = "CONNECTION_FAILED"
TIMEOUT = "TIMEOUT"

NEXT_STEPS: Mapping[str, str] = {
    "UNAUTHORIZED": "use a valid API key (ASSAY_API_KEY, or the bearer key of this MCP connection); revoked or "
    "expired keys are refused. An operator issues one with `assay admin key create --purpose assurance-agent`.",
    "INSUFFICIENT_SCOPE": "use a key with the scope named in the message; an assurance-agent key has every scope "
    "these tools need.",
    "INVALID_REQUEST": "correct the arguments as the message says, then call again.",
    "AI_SYSTEM_NOT_FOUND": "call assay_list_systems and pass one of its aiSystemId values.",
    "SOURCE_NOT_VERIFIED": "call assay_get_evaluation_sources; or use assay_assess_workspace, which scans locally "
    "and needs no verified source.",
    "SOURCE_CONFLICTED": "call assay_get_evaluation_sources for the reason; or use assay_assess_workspace.",
    "SOURCE_UNAVAILABLE": "call assay_get_evaluation_sources for the reason; or use assay_assess_workspace.",
    "SOURCE_AMBIGUOUS": "pass source_asset_id (one of assay_get_evaluation_sources).",
    "BRANCH_REQUIRED": "check out the bound branch, or use assay_assess_workspace.",
    "CONSENT_REQUIRED": "the runtime engine needs authorization in the dashboard; run the static engine only.",
    "RATE_LIMITED": "wait the number of seconds the message gives, then call again.",
    "RUN_NOT_FOUND": "call assay_list_runs and use one of its runId values.",
    "RUN_FAILED": "read the failure, fix its cause, then create a NEW run (assay_assess_workspace).",
    "RUN_CONFLICT": "call assay_get_run for the run's current state.",
    "IDEMPOTENCY_CONFLICT": "use a new idempotency_key for different arguments, or repeat the original arguments.",
    "RESOURCE_NOT_FOUND": "use an exact evaluationId from assay_get_run or assay_assess_workspace (there is no "
    "'latest'; another organization's Evaluation is never visible).",
    "INTERNAL_ERROR": "call again later; if it persists, the service logs say why.",
    CONNECTION_FAILED: "check that the service is running and ASSAY_BASE_URL points at it (`assay serve`).",
    TIMEOUT: "the service is slow to answer; call again later.",
}
DEFAULT_NEXT_STEP = "read the message, adjust the call, and try again."
# A 413 is about the body's size, never about the arguments: no call of the same tool fits better.
TOO_LARGE_NEXT_STEP = (
    "the submission is over the service's size limit, which the message names with the setting that raises it: "
    "ask the service's operator to raise it, or assess a smaller folder (path=a sub-folder)."
)


class AssayError(ToolError):
    """A failed call to the service, as the model reads it: ``CODE: message. Next: step``.

    A :class:`ToolError`, so the MCP SDK returns it on the tool-error channel (``is_error=True``) with this
    text instead of masking it.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        next_step: str | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable
        self.next_step = next_step or NEXT_STEPS.get(code, DEFAULT_NEXT_STEP)
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.code}: {self.message.rstrip('. ')}. Next: {self.next_step}"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard the client tries before it reports a failure."""

    retries: int = 2
    max_retry_after: float = 10.0
    backoff: float = 0.25
    max_backoff: float = 2.0

    def delay(self, attempt: int) -> float:
        """Backoff before retry number ``attempt`` (1-based)."""
        return float(min(self.backoff * 2.0 ** (attempt - 1), self.max_backoff))


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date); ``None`` when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(float(seconds), 0.0)


class AssayClient:
    """The Assurance Service API with one bearer key, over any httpx transport.

    :meth:`with_key` gives a client for another key that shares the connection pool (the MCP HTTP
    transport acts with each caller's own key). Only the owner (``aclose``) closes the pool.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep = anyio.sleep,
        http: httpx.AsyncClient | None = None,
        compress_over: int | None = COMPRESS_OVER_BYTES,
    ) -> None:
        self._http = http or httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            transport=transport,
            timeout=timeout,
            headers={"User-Agent": "assay-mcp", "Accept": "application/json"},
        )
        self._owner = http is None
        self.compress_over = compress_over
        self._api_key = api_key
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    @classmethod
    def embedded(cls, app: Any, api_key: str, **options: Any) -> AssayClient:
        """A client for an in-process ASGI app (whose lifespan the caller has entered)."""
        options.setdefault("compress_over", None)  # nothing crosses a network in process
        return cls(EMBEDDED_BASE_URL, api_key, transport=httpx.ASGITransport(app=app), **options)

    def with_key(self, api_key: str) -> AssayClient:
        """The same service and connection pool, acting with ``api_key``."""
        return AssayClient(
            "", api_key, retry=self.retry, sleep=self._sleep, http=self._http, compress_over=self.compress_over
        )

    @property
    def base_url(self) -> str:
        return str(self._http.base_url)

    async def aclose(self) -> None:
        if self._owner:
            await self._http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        content: bytes | None = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One call with bounded retries; a non-2xx answer or a transport failure raises :class:`AssayError`."""
        sent = {"Authorization": f"Bearer {self._api_key}", **(headers or {})}
        idempotent = method == "GET" or "Idempotency-Key" in sent
        attempt = 0
        while True:
            attempt += 1
            can_retry = attempt <= self.retry.retries
            try:
                response = await self._http.request(
                    method, path, json=json, content=content, params=params, headers=sent
                )
            except httpx.ConnectError as exc:
                # Nothing reached the service: safe to repeat whatever the method.
                if can_retry:
                    await self._sleep(self.retry.delay(attempt))
                    continue
                raise AssayError(
                    CONNECTION_FAILED,
                    f"The Assay service at {self.base_url} could not be reached ({type(exc).__name__}: {exc})",
                    retryable=True,
                ) from exc
            except httpx.TimeoutException as exc:
                if can_retry and idempotent:
                    await self._sleep(self.retry.delay(attempt))
                    continue
                raise AssayError(
                    TIMEOUT,
                    f"The Assay service at {self.base_url} did not answer {method} {path} in time",
                    retryable=True,
                ) from exc
            except httpx.TransportError as exc:
                if can_retry and idempotent:
                    await self._sleep(self.retry.delay(attempt))
                    continue
                raise AssayError(
                    CONNECTION_FAILED,
                    f"The connection to the Assay service at {self.base_url} failed during {method} {path} "
                    f"({type(exc).__name__})",
                    retryable=True,
                ) from exc
            if response.status_code == 429:
                wait = retry_after_seconds(response.headers.get("Retry-After"))
                if can_retry and wait is not None and wait <= self.retry.max_retry_after:
                    await self._sleep(wait)
                    continue
                raise rate_limited(response, wait)
            if response.status_code >= 500 and can_retry and idempotent:
                await self._sleep(self.retry.delay(attempt))
                continue
            if response.status_code >= 400:
                raise error_from_response(response)
            return response

    async def get_json(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET a JSON document."""
        return _json(await self.request("GET", path, params=params))

    async def get_json_waiting(self, path: str, seconds: int) -> tuple[Any, bool]:
        """GET a JSON document with ``Prefer: wait=seconds`` (RFC 7240): the service may hold the answer
        until the resource changes. The document, and whether the service honoured the wait."""
        response = await self.request("GET", path, headers={"Prefer": f"wait={seconds}"})
        return _json(response), "Preference-Applied" in response.headers

    async def post_json(self, path: str, body: Any, *, idempotency_key: str | None = None) -> Any:
        """POST a JSON body and read the JSON answer."""
        headers = {"Content-Type": "application/json"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        # Encoding (and compressing) a bundle of tens of megabytes is CPU work: off the event loop.
        data = await anyio.to_thread.run_sync(_encode_json, body)
        if self.compress_over is not None and len(data) > self.compress_over:
            data = await anyio.to_thread.run_sync(gzip.compress, data, GZIP_LEVEL)
            headers["Content-Encoding"] = "gzip"
        return _json(await self.request("POST", path, content=data, headers=headers))

    async def put_json(self, path: str, body: Any) -> Any:
        """PUT a JSON body and read the JSON answer."""
        return _json(await self.request("PUT", path, json=body))

    async def post_content(
        self, path: str, content: bytes, content_type: str, params: Mapping[str, Any] | None = None
    ) -> Any:
        """POST a body as it is (a CSV file) and read the JSON answer."""
        return _json(
            await self.request("POST", path, content=content, params=params, headers={"Content-Type": content_type})
        )

    async def get_bytes(self, path: str) -> bytes:
        """GET a binary document (a PDF)."""
        return (await self.request("GET", path)).content


def _encode_json(body: Any) -> bytes:
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:  # integers past 64 bits: the standard encoder writes them
        return jsonlib.dumps(body, separators=(",", ":")).encode("utf-8")


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise AssayError(
            "INTERNAL_ERROR",
            f"The service answered HTTP {response.status_code} with a body that is not JSON",
            status=response.status_code,
            retryable=False,
        ) from exc


def _envelope(response: httpx.Response) -> tuple[str, str, bool] | None:
    try:
        error = response.json()["error"]
        return str(error["code"]), str(error["message"]), bool(error.get("retryable", False))
    except (ValueError, KeyError, TypeError):
        return None


_CODE_BY_STATUS: Mapping[int, str] = {
    400: "INVALID_REQUEST",
    401: "UNAUTHORIZED",
    403: "INSUFFICIENT_SCOPE",
    404: "RESOURCE_NOT_FOUND",
    409: "RUN_CONFLICT",
    413: "INVALID_REQUEST",
    429: "RATE_LIMITED",
}


def error_from_response(response: httpx.Response) -> AssayError:
    """The :class:`AssayError` for a 4xx/5xx answer: the contract's envelope, or the status when there is none."""
    envelope = _envelope(response)
    next_step = TOO_LARGE_NEXT_STEP if response.status_code == 413 else None
    if envelope is not None:
        code, message, retryable = envelope
        return AssayError(code, message, status=response.status_code, retryable=retryable, next_step=next_step)
    status = response.status_code
    return AssayError(
        _CODE_BY_STATUS.get(status, "INTERNAL_ERROR"),
        f"The service answered {response.request.method} {response.request.url.path} with HTTP {status} "
        "without the contract's error envelope",
        status=status,
        retryable=status >= 500,
        next_step=next_step,
    )


def rate_limited(response: httpx.Response, wait: float | None) -> AssayError:
    """429 after the bounded retries: says how long to wait when the service said so."""
    envelope = _envelope(response)
    message = envelope[1] if envelope else "The service refused the request: too many requests"
    if wait is not None:
        message = f"{message.rstrip('. ')}; retry after {math.ceil(wait)} s"
    return AssayError("RATE_LIMITED", message, status=429, retryable=True)
