"""The MCP client configurations of examples/clients, started as a client would: the installed `assay`
command on PATH, in a project folder that is not the Assay checkout. The remote one needs no system id."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_helpers import ASSAY, EXAMPLES, ROOT, child_env, run_assay
from mcp.types import CallToolResult, TextContent

from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow
CLIENTS = ROOT / "examples" / "clients"


def _data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, TextContent)
    value = json.loads(block.text)
    assert isinstance(value, dict)
    return value


def _server(config: dict[str, Any]) -> dict[str, Any]:
    servers = config.get("mcpServers") or config["servers"]
    server: dict[str, Any] = servers["assay"]
    return server


def _params(server: dict[str, Any], project: Path, env: dict[str, str]) -> StdioServerParameters:
    # What the clients substitute: ${workspaceFolder} (Cursor, VS Code) and the path a user writes (Claude Desktop).
    args = [
        a.replace("${workspaceFolder}", str(project)).replace("/absolute/path/to/your/project", str(project))
        for a in server.get("args", [])
    ]
    assert server["command"] == "assay"  # the installed command, never a path into the Assay checkout
    command = str(Path(sys.executable).parent / "assay")
    return StdioServerParameters(command=command, args=args, env={**env, **server.get("env", {})}, cwd=project)


def _user_env(tmp_path: Path) -> dict[str, str]:
    return child_env(ASSAY_DATA_DIR=str(tmp_path / "user-data"), PATH=os.environ.get("PATH", ""))


@pytest.mark.parametrize("name", ["cursor-mcp.json", "vscode-mcp.json", "claude-desktop.json"])
async def test_local_configurations_assess_the_project(name: str, tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "my-project"
    shutil.copytree(EXAMPLES / "research-assistant", project)
    server = _server(json.loads((CLIENTS / name).read_text()))
    async with Client(_params(server, project, _user_env(tmp_path))) as client:
        assessed = _data(await client.call_tool("assay_assess_workspace", {}))
        assert assessed["disposition"] == "ALLOW"
        systems = _data(await client.call_tool("assay_list_systems", {}))["systems"]
        assert [s["name"] for s in systems] == ["my-project"]


def test_claude_code_script_registers_the_installed_command() -> None:
    line = next(x for x in (CLIENTS / "claude-code.sh").read_text().splitlines() if x.startswith("claude "))
    argv = shlex.split(line)
    assert argv[argv.index("--") + 1 :] == ["assay", "mcp"]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    import socket

    env = child_env(ASSAY_DATA_DIR=str(tmp_path / "service"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [*ASSAY, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120  # bounded, generous under load
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "assay serve did not start"
            time.sleep(0.05)
        yield base, env
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _admin(env: dict[str, str], *argv: str) -> dict[str, str]:
    proc = run_assay("admin", *argv, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    value: dict[str, str] = json.loads(proc.stdout)
    return value


async def test_remote_configuration_needs_no_system_id(service: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    import shutil

    base, admin_env = service
    project = tmp_path / "my-project"
    shutil.copytree(EXAMPLES / "ops-agent", project)
    org = _admin(admin_env, "org", "create", "Acme")["organizationId"]
    _admin(admin_env, "system", "create", "--org", org, "--name", "Other")
    system = _admin(admin_env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    _admin(admin_env, "source", "add", "--org", org, "--system", system, "--repo", str(project))
    key = _admin(admin_env, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]

    server = _server(json.loads((CLIENTS / "remote.mcp.json").read_text()))
    assert "ASSAY_SYSTEM_ID" not in server["env"]
    server["env"] = {"ASSAY_BASE_URL": base, "ASSAY_API_KEY": key}
    async with Client(_params(server, project, _user_env(tmp_path))) as client:
        assessed = _data(await client.call_tool("assay_assess_workspace", {}))
    assert assessed["aiSystemId"] == system  # resolved through the source bound to this folder
    assert assessed["disposition"] == "BLOCK"
