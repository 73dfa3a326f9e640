"""Remote failure modes become clear, bounded tool errors: 401, 429 with Retry-After, 5xx, connection
refused, answers without the error envelope. Driven by httpx.MockTransport (and one closed loopback port);
waits are recorded, never slept."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.types import CallToolResult
from mcp_helpers import data, error_text

from assay.server.embedded import open_remote
from assay.server.mcp_app import build_mcp_server
from assay.tools.client import AssayClient, AssayError, RetryPolicy, retry_after_seconds
from mcp import Client

Handler = Callable[[httpx.Request], httpx.Response]
SYSTEMS = {"systems": [{"aiSystemId": "sys_1", "name": "ops", "createdAt": "2026-01-01T00:00:00Z"}]}


def _error(status: int, code: str, message: str, retryable: bool = False, **headers: str) -> httpx.Response:
    return httpx.Response(
        status, json={"error": {"code": code, "message": message, "retryable": retryable}}, headers=headers
    )


def _sequence(*responses: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handler, seen


async def _call(
    tmp_path: Path, handler: Handler, tool: str = "assay_list_systems", arguments: dict[str, object] | None = None
) -> tuple[CallToolResult, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with (
        open_remote(
            "http://remote.test",
            "svc_live_" + "k" * 43,
            workspace=tmp_path,
            ai_system_id="sys_1",
            transport=httpx.MockTransport(handler),
            sleep=sleep,
        ) as bound,
        Client(build_mcp_server(bound)) as client,
    ):
        return await client.call_tool(tool, arguments or {}), waits


async def test_401_is_a_tool_error_with_the_next_step(tmp_path: Path) -> None:
    handler, seen = _sequence(
        _error(401, "UNAUTHORIZED", "The API key is not valid: it is unknown, revoked or expired.")
    )
    result, waits = await _call(tmp_path, handler)
    assert result.is_error
    text = error_text(result)
    assert "UNAUTHORIZED: The API key is not valid: it is unknown, revoked or expired. Next: " in text
    assert "ASSAY_API_KEY" in text
    assert len(seen) == 1 and waits == []  # never retried
    assert seen[0].headers["Authorization"] == "Bearer svc_live_" + "k" * 43


async def test_429_waits_for_retry_after_then_succeeds(tmp_path: Path) -> None:
    handler, seen = _sequence(
        _error(429, "RATE_LIMITED", "Too many requests.", True, **{"Retry-After": "2"}),
        httpx.Response(200, json=SYSTEMS),
    )
    result, waits = await _call(tmp_path, handler)
    assert data(result)["systems"][0]["aiSystemId"] == "sys_1"
    assert waits == [2.0] and len(seen) == 2


async def test_429_retries_are_bounded_and_long_waits_are_reported(tmp_path: Path) -> None:
    limited = _error(429, "RATE_LIMITED", "Too many requests.", True, **{"Retry-After": "1"})
    handler, seen = _sequence(limited)
    result, waits = await _call(tmp_path, handler)
    text = error_text(result)
    assert text.endswith("RATE_LIMITED: Too many requests; retry after 1 s. Next: " + text.split("Next: ")[1])
    assert waits == [1.0, 1.0] and len(seen) == 3  # two retries, then the error

    long_wait = _error(429, "RATE_LIMITED", "Too many requests.", True, **{"Retry-After": "120"})
    handler, seen = _sequence(long_wait)
    result, waits = await _call(tmp_path, handler)
    assert "retry after 120 s" in error_text(result)
    assert waits == [] and len(seen) == 1  # not slept through


async def test_5xx_is_retried_with_backoff_for_reads_only(tmp_path: Path) -> None:
    handler, seen = _sequence(httpx.Response(502, text="bad gateway"), httpx.Response(200, json=SYSTEMS))
    result, waits = await _call(tmp_path, handler)
    assert not result.is_error and waits == [0.25] and len(seen) == 2

    handler, seen = _sequence(_error(500, "INTERNAL_ERROR", "The service failed.", True))
    result, waits = await _call(tmp_path, handler)
    assert "INTERNAL_ERROR: The service failed. Next: " in error_text(result)
    assert waits == [0.25, 0.5] and len(seen) == 3


async def test_a_post_without_idempotency_key_is_not_repeated_after_a_5xx() -> None:
    handler, seen = _sequence(httpx.Response(503, text="unavailable"))
    client = AssayClient("http://remote.test", "k", transport=httpx.MockTransport(handler), sleep=_no_sleep)
    with pytest.raises(AssayError) as error:
        await client.post_json("/api/v1/scans", {})
    assert error.value.code == "INTERNAL_ERROR" and error.value.status == 503 and error.value.retryable
    assert "without the contract's error envelope" in error.value.message
    assert len(seen) == 1
    handler, seen = _sequence(httpx.Response(503, text="unavailable"), httpx.Response(202, json={"runId": "r"}))
    client = AssayClient("http://remote.test", "k", transport=httpx.MockTransport(handler), sleep=_no_sleep)
    assert await client.post_json("/api/v1/assurance/runs", {}, idempotency_key="same") == {"runId": "r"}
    assert [r.headers["Idempotency-Key"] for r in seen] == ["same", "same"]
    await client.aclose()


async def _no_sleep(seconds: float) -> None:
    return None


async def test_connection_refused_is_retried_then_reported(tmp_path: Path) -> None:
    handler, seen = _sequence(httpx.ConnectError("[Errno 111] Connection refused"))
    result, waits = await _call(tmp_path, handler)
    text = error_text(result)
    assert "CONNECTION_FAILED: The Assay service at http://remote.test could not be reached" in text
    assert "Next: check that the service is running" in text
    assert len(seen) == 3 and waits == [0.25, 0.5]


async def test_connection_refused_on_a_real_closed_port(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    async with (
        open_remote(f"http://127.0.0.1:{port}", "svc_live_x", retry=RetryPolicy(retries=0)) as bound,
        Client(build_mcp_server(bound)) as client,
    ):
        result = await client.call_tool("assay_list_runs", {})
    assert result.is_error and error_text(result).startswith("Error executing tool assay_list_runs: CONNECTION_FAILED")


async def test_a_service_down_is_reported_with_its_url_when_no_system_was_named(tmp_path: Path) -> None:
    # Remote stdio with no system id: the workspace's system is looked up when a call needs it, so a service
    # that is down says so (with its URL) instead of asking for an ai_system_id.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "agent.py").write_text("print('hi')\n")
    async with (
        open_remote(
            f"http://127.0.0.1:{port}", "svc_live_x", workspace=tmp_path, retry=RetryPolicy(retries=0)
        ) as bound,
        Client(build_mcp_server(bound)) as client,
    ):
        for tool in ("assay_assess_workspace", "assay_create_run", "assay_get_evaluation_sources"):
            text = error_text(await client.call_tool(tool, {}))
            assert f"CONNECTION_FAILED: The Assay service at http://127.0.0.1:{port}" in text, text
            assert "ai_system_id" not in text


async def test_the_workspace_system_is_found_on_the_first_call_that_needs_it(tmp_path: Path) -> None:
    workspace = str(await anyio.Path(tmp_path).resolve())
    sources = {"sources": [{"sourceAssetId": "src_1", "repo": workspace, "repoKind": "local"}]}
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/api/v1/systems":
            return httpx.Response(200, json=SYSTEMS)
        return httpx.Response(200, json={"aiSystemId": "sys_1", **sources})

    async with (
        open_remote(
            "http://remote.test", "svc_live_x", workspace=tmp_path, transport=httpx.MockTransport(handler)
        ) as bound,
        Client(build_mcp_server(bound)) as client,
    ):
        assert data(await client.call_tool("assay_get_evaluation_sources", {}))["aiSystemId"] == "sys_1"
        await client.call_tool("assay_get_evaluation_sources", {})
    # Discovery ran once; the second call reused the system it found.
    assert seen.count("/api/v1/systems") == 1 and seen.count("/api/v1/systems/sys_1/evaluation-sources") == 3


async def test_routes_a_service_lacks_answer_with_its_error(tmp_path: Path) -> None:
    handler, _ = _sequence(_error(404, "RESOURCE_NOT_FOUND", "The resource was not found."))
    result, _ = await _call(tmp_path, handler, "assay_get_passport", {"evaluation_id": "eval_1"})
    assert "RESOURCE_NOT_FOUND: The resource was not found. Next: " in error_text(result)
    handler, _ = _sequence(httpx.Response(404, text="Not Found"))
    result, _ = await _call(tmp_path, handler, "assay_get_passport", {"evaluation_id": "eval_1"})
    text = error_text(result)
    assert (
        "RESOURCE_NOT_FOUND: The service answered GET /api/v1/assurance/evaluations/eval_1/passport with HTTP 404"
        in text
    )


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("3", now) == 3.0
    assert retry_after_seconds("Thu, 01 Jan 2026 12:00:05 GMT", now) == 5.0
    assert retry_after_seconds("Thu, 01 Jan 2026 11:00:00 GMT", now) == 0.0
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None) is None
    assert retry_after_seconds("nan") is None


async def test_a_large_body_goes_to_a_remote_service_gzip_compressed() -> None:
    import gzip
    import json

    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"ok": True})

    api = AssayClient("http://remote.test", "svc_live_" + "k" * 43, transport=httpx.MockTransport(handler))
    large = {"bundle": ["x" * 100] * 20_000}  # about 2 MB of JSON
    await api.post_json("/api/v1/scans", large, idempotency_key="k1")
    await api.post_json("/api/v1/scans", {"small": True})
    await api.aclose()
    assert seen[0].headers["Content-Encoding"] == "gzip" and seen[0].headers["Idempotency-Key"] == "k1"
    assert seen[0].headers["Content-Type"] == "application/json"
    assert json.loads(gzip.decompress(seen[0].content)) == large and len(seen[0].content) < 100_000
    assert "Content-Encoding" not in seen[1].headers and json.loads(seen[1].content) == {"small": True}


async def test_a_413_advises_on_the_size_limit_not_the_arguments(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    message = (
        "The body, decompressed, is larger than the limit of 167772160 bytes (160 MiB); the service's operator "
        "can raise it with ASSAY_MAX_SCAN_BODY_BYTES."
    )
    handler, _ = _sequence(_error(413, "INVALID_REQUEST", message))
    result, _ = await _call(tmp_path, handler, "assay_assess_workspace")
    assert result.is_error
    text = error_text(result)
    assert "ASSAY_MAX_SCAN_BODY_BYTES" in text and "size limit" in text and "operator" in text
    assert "correct the arguments" not in text
    # Without the envelope (a proxy's 413) the advice is the same.
    handler, _ = _sequence(httpx.Response(413, text="Request Entity Too Large"))
    result, _ = await _call(tmp_path, handler, "assay_assess_workspace")
    assert "size limit" in error_text(result) and "correct the arguments" not in error_text(result)


async def test_a_refused_bundle_is_not_blamed_on_the_arguments(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    handler, _ = _sequence(_error(400, "INVALID_REQUEST", "The bundle does not match Evidence Bundle v1.0.0."))
    result, _ = await _call(tmp_path, handler, "assay_assess_workspace")
    text = error_text(result)
    assert "not your arguments" in text and "correct the arguments" not in text
