"""Real processes: remote mode against `assay serve` on loopback, the stdio server driven by the SDK's
client, and the streamable HTTP transport authenticated with the service's own API keys."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import ROOT, copy_example, data, error_text
from subprocesses import HOST, child_env, free_port, running

from assay.backend import provisioning
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import create_engine, create_session_factory
from assay.server.embedded import STATE_FILE, open_remote
from assay.server.mcp_app import build_mcp_server
from assay.tools.registry import TOOLS
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow


async def _provision(database_url: str, workspace: Path) -> tuple[str, str, str]:
    """An organization with the workspace's AI System (verified source) and an assurance-agent key."""
    engine = create_engine(database_url)
    try:
        async with create_session_factory(engine)() as session:
            org = await provisioning.create_organization(session, "Remote")
            system = await provisioning.create_ai_system(session, org.id, workspace.name)
            source = await provisioning.add_source(session, org.id, system.id, str(workspace))
            await provisioning.verify_source(session, source.id)
            key = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            revoked = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            await provisioning.revoke_api_key(session, revoked.record.id)
            await session.commit()
    finally:
        await engine.dispose()
    return system.id, key.api_key, revoked.api_key


async def test_remote_mode_against_assay_serve(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    system_id, key, revoked = await _provision(settings.database_url, workspace)
    port = free_port()
    base = f"http://{HOST}:{port}"
    env = child_env(ASSAY_DATA_DIR=str(tmp_path / "serve-data"))
    serve = ["serve", "--host", HOST, "--port", str(port), "--database-url", settings.database_url]
    with running([*serve, "--log-level", "warning"], port, env):
        async with (
            open_remote(base, key, workspace=workspace, ai_system_id=system_id) as bound,
            Client(build_mcp_server(bound)) as client,
        ):
            assessed = data(await client.call_tool("assay_assess_workspace", {}))
            assert assessed["disposition"] == "ALLOW" and assessed["aiSystemId"] == system_id
            evaluation_id = assessed["evaluationId"]
            summary = data(await client.call_tool("assay_get_summary", {"evaluation_id": evaluation_id}))
            assert data(await client.call_tool("assay_list_runs", {}))["total"] == 1
            missing = await client.call_tool("assay_get_summary", {"evaluation_id": "eval_nope"})
            assert "RESOURCE_NOT_FOUND" in error_text(missing)
        async with (
            open_remote(base, revoked, workspace=workspace, ai_system_id=system_id) as bound,
            Client(build_mcp_server(bound)) as client,
        ):
            refused = await client.call_tool("assay_list_systems", {})
            assert refused.is_error and "UNAUTHORIZED: " in error_text(refused)
        # The CLI's remote mode over stdio reads the same Evaluation.
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
            env=child_env(ASSAY_BASE_URL=base, ASSAY_API_KEY=key, ASSAY_SYSTEM_ID=system_id),
        )
        async with Client(params) as client:
            assert data(await client.call_tool("assay_get_summary", {"evaluation_id": evaluation_id})) == summary
            sources = data(await client.call_tool("assay_get_evaluation_sources", {}))
            assert sources["aiSystemId"] == system_id
    async with open_remote(base, key, ai_system_id=system_id) as bound, Client(build_mcp_server(bound)) as client:
        gone = await client.call_tool("assay_list_systems", {})
    assert "CONNECTION_FAILED: " in error_text(gone)


async def test_stdio_server_embedded_provisions_once_and_reuses(tmp_path: Path) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    data_dir = tmp_path / "data"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
        env=child_env(ASSAY_DATA_DIR=str(data_dir)),
    )
    async with Client(params) as client:
        assert len((await client.list_tools()).tools) == len(TOOLS)
        first = data(await client.call_tool("assay_assess_workspace", {}))
        assert first["disposition"] == "ALLOW"
    state_file = data_dir / STATE_FILE
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    (database,) = json.loads(state_file.read_text())["databases"].values()
    assert list(database["workspaces"]) == [str(workspace.resolve())]
    async with Client(params) as client:
        systems = data(await client.call_tool("assay_list_systems", {}))["systems"]
        assert [s["aiSystemId"] for s in systems] == [first["aiSystemId"]]  # reused, not provisioned again
        again = data(await client.call_tool("assay_get_summary", {"evaluation_id": first["evaluationId"]}))
        assert again == first["summary"]


def _http_client(url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=60)))


async def test_http_transport_acts_with_each_callers_key(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    data_dir = tmp_path / "data"
    port = free_port()
    url = f"http://{HOST}:{port}/mcp"
    args = ["mcp", "--transport", "http", "--host", HOST, "--port", str(port), "--workspace", str(workspace)]
    with running([*args, "--database-url", settings.database_url], port, child_env(ASSAY_DATA_DIR=str(data_dir))):
        (database,) = json.loads((data_dir / STATE_FILE).read_text())["databases"].values()
        record = database["workspaces"][str(workspace.resolve())]
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                narrow = await provisioning.create_api_key(session, record["organizationId"], scopes=["system:read"])
                other_org = await provisioning.create_organization(session, "Other")
                foreign = await provisioning.create_api_key(session, other_org.id, purpose="assurance-agent")
                await session.commit()

            async with httpx.AsyncClient(timeout=30) as raw:
                ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
                anonymous = await raw.post(url, json=ping)
                assert anonymous.status_code == 401
                wrong = await raw.post(url, json=ping, headers={"Authorization": "Bearer svc_live_" + "x" * 43})
                assert wrong.status_code == 401

            async with _http_client(url, record["apiKey"]) as client:
                assessed = data(await client.call_tool("assay_assess_workspace", {}))
                assert assessed["disposition"] == "ALLOW"
                escaped = await client.call_tool("assay_assess_workspace", {"path": str(tmp_path)})
                assert "INVALID_REQUEST: path must be inside the server's workspace" in error_text(escaped)
            async with _http_client(url, narrow.api_key) as client:
                assert len(data(await client.call_tool("assay_list_systems", {}))["systems"]) == 1
                scoped = await client.call_tool("assay_list_runs", {})
                assert scoped.is_error and "INSUFFICIENT_SCOPE: " in error_text(scoped)
            async with _http_client(url, foreign.api_key) as client:
                assert data(await client.call_tool("assay_list_systems", {}))["systems"] == []
                hidden = await client.call_tool("assay_get_summary", {"evaluation_id": assessed["evaluationId"]})
                assert "RESOURCE_NOT_FOUND: " in error_text(hidden)

            async with create_session_factory(engine)() as session:
                await provisioning.revoke_api_key(session, narrow.record.id)
                await session.commit()
            async with httpx.AsyncClient(timeout=30) as raw:
                revoked = await raw.post(url, json=ping, headers={"Authorization": f"Bearer {narrow.api_key}"})
                assert revoked.status_code == 401
        finally:
            await engine.dispose()


def test_the_reproducibility_harness_passes_for_an_example() -> None:
    harness = ROOT / "examples" / "harness" / "reproducibility.py"
    done = subprocess.run(
        [sys.executable, str(harness), "research-assistant"],
        capture_output=True,
        text=True,
        timeout=300,
        env=child_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "research-assistant: ALLOW" in done.stdout and "identical across 4 Evaluations" in done.stdout
