"""Over stdio the service behind the tools is opened by the first request that needs it (OnDemandBinding):
`initialize` and the listings are answered without it; a service that cannot be opened is each call's error.

In process through the SDK's client, and once through the real `assay mcp` as a client starts it: one
request at a time, each answered before the next is written, every wait bounded."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp_helpers import copy_example, data, error_text
from subprocesses import ASSAY, child_env

from assay.backend.settings import ServiceSettings
from assay.server.embedded import STATE_FILE, open_embedded
from assay.server.mcp_app import OnDemandBinding, build_mcp_server
from assay.tools.context import AssayBinding
from mcp import Client, MCPError

# A start-up on a loaded machine (the SDK's import alone is seconds there): generous, and still bounded.
ANSWER_SECONDS = 120


class Opener:
    """Opens the embedded service over ``workspace``, counting how often it was opened and closed."""

    def __init__(self, settings: ServiceSettings, workspace: Path) -> None:
        self.settings = settings
        self.workspace = workspace
        self.opened = 0
        self.closed = 0

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[AssayBinding]:
        self.opened += 1
        try:
            async with open_embedded(self.settings, self.workspace) as service:
                yield service.binding
        finally:
            self.closed += 1


async def test_listings_open_nothing_and_the_first_call_opens_the_service_once(
    settings: ServiceSettings, tmp_path: Path
) -> None:
    assert settings.data_dir is not None
    opener = Opener(settings, copy_example("research-assistant", tmp_path))
    async with Client(build_mcp_server(OnDemandBinding(opener))) as client:
        assert "assay_assess_workspace" in {tool.name for tool in (await client.list_tools()).tools}
        assert (await client.list_prompts()).prompts and (await client.list_resources()).resources
        assert (await client.list_resource_templates()).resource_templates
        assert opener.opened == 0 and not (settings.data_dir / STATE_FILE).exists()
        async with anyio.create_task_group() as calls:  # two first calls at once: one opening
            for _ in range(2):
                calls.start_soon(client.call_tool, "assay_list_systems", {})
        listed = data(await client.call_tool("assay_list_systems", {}))
        assert [system["name"] for system in listed["systems"]] == ["research-assistant"]
        systems = await client.read_resource("assay://systems")
        assert "research-assistant" in systems.contents[0].text  # type: ignore[union-attr]
        assert opener.opened == 1 and opener.closed == 0 and (settings.data_dir / STATE_FILE).exists()
    assert opener.closed == 1  # closed when the server stops, by the task that opened it


async def test_a_service_that_cannot_open_is_each_calls_error(caplog: pytest.LogCaptureFixture) -> None:
    attempts = 0

    @asynccontextmanager
    async def broken() -> AsyncIterator[AssayBinding]:
        nonlocal attempts
        attempts += 1
        raise RuntimeError("the database said no")
        yield  # pragma: no cover

    with caplog.at_level(logging.ERROR):
        async with Client(build_mcp_server(OnDemandBinding(broken))) as client:
            assert (await client.list_tools()).tools
            for _ in range(2):
                refused = await client.call_tool("assay_list_systems", {})
                assert refused.is_error and "SERVICE_UNAVAILABLE: " in error_text(refused)
                assert "RuntimeError" in error_text(refused) and "said no" not in error_text(refused)
            with pytest.raises(MCPError):
                await client.read_resource("assay://systems")
    assert attempts == 1
    assert "RuntimeError: the database said no" in caplog.text  # the reason is on stderr, once


class StdioClient:
    """A client of the real `assay mcp` over its pipes: one JSON-RPC line out, the answer back."""

    def __init__(self, process: anyio.abc.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._stdin = process.stdin
        self._stdout = BufferedByteReceiveStream(process.stdout)

    async def send(self, message: dict[str, Any]) -> None:
        await self._stdin.send(json.dumps(message).encode() + b"\n")

    async def ask(self, request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
        with anyio.fail_after(ANSWER_SECONDS):
            answer: dict[str, Any] = json.loads(await self._stdout.receive_until(b"\n", 1 << 24))
        assert answer["id"] == request_id, answer
        return answer


@asynccontextmanager
async def assay_mcp(*args: str, data_dir: Path) -> AsyncIterator[StdioClient]:
    process = await anyio.open_process(
        [*ASSAY, "mcp", *args], env=child_env(ASSAY_DATA_DIR=str(data_dir)), stderr=sys.stderr
    )
    async with process:
        try:
            yield StdioClient(process)
        finally:
            assert process.stdin is not None
            await process.stdin.aclose()
            with anyio.fail_after(ANSWER_SECONDS):
                assert await process.wait() == 0


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}


@pytest.mark.slow
async def test_the_real_stdio_server_answers_before_it_opens_the_database(tmp_path: Path) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    data_dir = tmp_path / "data"
    async with assay_mcp("--workspace", str(workspace), data_dir=data_dir) as client:
        initialized = await client.ask(1, "initialize", INITIALIZE)
        assert initialized["result"]["serverInfo"]["name"] == "assay"
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = (await client.ask(2, "tools/list"))["result"]["tools"]
        assert "assay_assess_workspace" in {tool["name"] for tool in tools}
        assert (await client.ask(3, "prompts/list"))["result"]["prompts"]
        assert not data_dir.exists()  # no database, no provisioning yet
        called = await client.ask(4, "tools/call", {"name": "assay_list_systems", "arguments": {}})
        assert called["result"]["isError"] is False, called
        assert (data_dir / STATE_FILE).exists() and (data_dir / "assay.db").exists()


@pytest.mark.slow
async def test_the_real_stdio_server_with_an_unreachable_database_still_answers(tmp_path: Path) -> None:
    unreachable = "postgresql+asyncpg://assay@127.0.0.1:1/none"
    args = ("--workspace", str(tmp_path), "--database-url", unreachable)
    async with assay_mcp(*args, data_dir=tmp_path / "data") as client:
        assert (await client.ask(1, "initialize", INITIALIZE))["result"]["protocolVersion"] == "2025-06-18"
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert (await client.ask(2, "tools/list"))["result"]["tools"]
        called = await client.ask(3, "tools/call", {"name": "assay_list_systems", "arguments": {}})
        assert called["result"]["isError"] is True
        assert "SERVICE_UNAVAILABLE: " in called["result"]["content"][0]["text"]
