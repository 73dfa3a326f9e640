"""One HTTP client for the MCP tools, embedded (in-process ASGI) or remote (a running service).

Every failure becomes an :class:`AssayError` with the contract's error code (or ``CONNECTION_FAILED``),
its message and the next step an agent can take. Retries are bounded: 429 waits for ``Retry-After``
(at most ``MAX_RETRY_AFTER`` seconds, ``RETRIES`` times); 5xx and connection errors on GETs are
retried with a short backoff.
"""

from __future__ import annotations

from typing import Any

import anyio
import httpx
from mcp.server.mcpserver.exceptions import ToolError

RETRIES = 2
MAX_RETRY_AFTER = 10.0

NEXT_STEPS = {
    "UNAUTHORIZED": "check ASSAY_API_KEY (revoked or expired keys are refused); create a key with `assay admin key create`.",
    "INSUFFICIENT_SCOPE": "use a key with the scope named in the message (an assurance-agent key has them all but evidence:ingest).",
    "AI_SYSTEM_NOT_FOUND": "list systems with assay_list_systems and use one of their aiSystemId values.",
    "RUN_NOT_FOUND": "list runs with assay_list_runs; runs of other organizations are not visible.",
    "RESOURCE_NOT_FOUND": "check the id; evaluation ids come from a completed run (assay_get_run) or assay_assess_workspace.",
    "RATE_LIMITED": "wait and call again.",
    "SOURCE_NOT_VERIFIED": "bind and verify the source (`assay admin source add` / `verify`), or attach a qualified scan.",
    "SOURCE_AMBIGUOUS": "name the source with sourceAssetId (see assay_get_evaluation_sources).",
    "INVALID_REQUEST": "fix the arguments as the message says and call again.",
    "CONNECTION_FAILED": "check ASSAY_BASE_URL and that the service is running (`assay serve`).",
    "INTERNAL_ERROR": "call again later; if it persists, check the service logs.",
}


class AssayError(ToolError):
    """A ToolError, so the model reads the code, the message and the next step (never a masked error)."""

    def __init__(self, code: str, message: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retryable = retryable

    @property
    def next_step(self) -> str:
        return NEXT_STEPS.get(self.code, "read the message and adjust the call.")

    def __str__(self) -> str:
        return f"{self.code}: {self.message} Next: {self.next_step}"


class AssayClient:
    """Speaks the Assurance Service API with one bearer key."""

    def __init__(
        self, base_url: str, api_key: str, *, transport: httpx.AsyncBaseTransport | None = None, timeout: float = 60.0
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            transport=transport,
            timeout=timeout,
            headers={"Authorization": f"Bearer {api_key}", "User-Agent": "assay-mcp"},
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.request(method, path, json=json, params=params, headers=headers)
            except httpx.HTTPError as exc:
                if method == "GET" and attempt <= RETRIES:
                    await anyio.sleep(0.2 * attempt)
                    continue
                raise AssayError(
                    "CONNECTION_FAILED",
                    f"The Assay service could not be reached ({type(exc).__name__}).",
                    retryable=True,
                ) from exc
            if response.status_code == 429 and attempt <= RETRIES:
                await anyio.sleep(min(_retry_after(response), MAX_RETRY_AFTER))
                continue
            if response.status_code >= 500 and method == "GET" and attempt <= RETRIES:
                await anyio.sleep(0.2 * attempt)
                continue
            if response.status_code >= 400:
                raise _error(response)
            return response

    async def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return (await self.request("GET", path, params=params)).json()

    async def post_json(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        return (await self.request("POST", path, json=body, headers=headers)).json()


def _retry_after(response: httpx.Response) -> float:
    try:
        return max(float(response.headers.get("Retry-After", "1")), 0.0)
    except ValueError:
        return 1.0


def _error(response: httpx.Response) -> AssayError:
    try:
        error = response.json()["error"]
        return AssayError(str(error["code"]), str(error["message"]), response.status_code, bool(error["retryable"]))
    except (ValueError, KeyError, TypeError):
        return AssayError(
            "INTERNAL_ERROR",
            f"The service answered HTTP {response.status_code} without an error envelope.",
            response.status_code,
            response.status_code >= 500,
        )
