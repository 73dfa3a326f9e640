"""The error envelope everywhere: unknown routes, wrong methods, unexpected failures, rate limits, health."""

from __future__ import annotations

import logging

import httpx
import pytest
from service_helpers import RATE_LIMIT_BURST, World, assert_error, bearer

from assay.backend.errors import ERROR_CODES, STATUS_BY_CODE


def test_every_contract_code_has_a_status() -> None:
    assert set(STATUS_BY_CODE) == set(ERROR_CODES)
    assert len(ERROR_CODES) == 17


@pytest.mark.parametrize("path", ["/nope", "/api/v1/nope", "/api/v1/systems/", "/api/v2/systems"])
async def test_unknown_routes_are_enveloped_404s(client: httpx.AsyncClient, world: World, path: str) -> None:
    assert_error(await client.get(path), 404, "RESOURCE_NOT_FOUND")
    assert_error(await client.get(path, headers=bearer(world.agent_key_a)), 404, "RESOURCE_NOT_FOUND")


async def test_wrong_method_is_an_enveloped_405(client: httpx.AsyncClient, world: World) -> None:
    response = await client.delete("/api/v1/systems", headers=bearer(world.agent_key_a))
    assert_error(response, 405, "INVALID_REQUEST")
    assert "GET" in response.headers["allow"]
    assert_error(await client.get("/api/v1/scans", headers=bearer(world.agent_key_a)), 405, "INVALID_REQUEST")


async def test_unexpected_exception_is_500_without_internals(
    client: httpx.AsyncClient, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = await client.get("/api/v1/_test/boom", headers=bearer(world.agent_key_a))
    error = assert_error(response, 500, "INTERNAL_ERROR")
    assert error["retryable"] is True
    assert "7c1f" not in response.text and "Traceback" not in response.text and "RuntimeError" not in response.text
    # The log names the failure's type, route and stack, never its message (messages quote request values).
    failed = [r for r in caplog.records if getattr(r, "event", None) == "request.failed"]
    assert (
        len(failed) == 1 and "RuntimeError" in failed[0].getMessage() and "/api/v1/_test/boom" in failed[0].getMessage()
    )
    assert "_boom" in failed[0].__dict__["stack"]
    # The stack shows code lines (the test's own literal among them), never the exception's message.
    assert not any("7c1f" in r.getMessage() or r.exc_info for r in caplog.records)


async def test_rate_limit_is_per_key_with_retry_after(client: httpx.AsyncClient, world: World) -> None:
    key = await world.key(["system:read"])
    for _ in range(RATE_LIMIT_BURST):
        assert (await client.get("/api/v1/_test/limited", headers=bearer(key))).status_code == 200
    refused = await client.get("/api/v1/_test/limited", headers=bearer(key))
    error = assert_error(refused, 429, "RATE_LIMITED")
    assert error["retryable"] is True
    assert int(refused.headers["retry-after"]) >= 1
    other = await world.key(["system:read"])
    assert (await client.get("/api/v1/_test/limited", headers=bearer(other))).status_code == 200
    # Routes the contract does not rate-limit are not counted.
    for _ in range(RATE_LIMIT_BURST + 2):
        assert (await client.get("/api/v1/systems", headers=bearer(key))).status_code == 200


async def test_healthz_is_public(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok"}


async def test_oversized_headers_are_an_enveloped_431(client: httpx.AsyncClient, world: World) -> None:
    headers = {**bearer(world.agent_key_a), "X-Padding": "a" * 17_000}
    error = assert_error(await client.get("/api/v1/systems", headers=headers), 431, "INVALID_REQUEST")
    assert "16384 bytes" in error["message"] and "a" * 100 not in error["message"]
    assert_error(await client.get("/healthz", headers={"X-Padding": "a" * 17_000}), 431, "INVALID_REQUEST")
    headers = {**bearer(world.agent_key_a), "X-Padding": "a" * 15_000}
    assert (await client.get("/api/v1/systems", headers=headers)).status_code == 200
