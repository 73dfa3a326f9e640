"""The real stdio server as a subprocess, driven by the SDK's client; README's tool table in step."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from assay.tools.catalog import tool_table_markdown
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
async def test_stdio_server_assesses_a_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ra"
    shutil.copytree(ROOT / "examples" / "research-assistant", workspace)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
        env={"ASSAY_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"},
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "assay_assess_workspace" in names
        result = await client.call_tool("assay_assess_workspace", {})
        assert not result.is_error, result.content
        assert result.structured_content["disposition"] == "ALLOW"
    assert (tmp_path / "data" / "workspaces.json").stat().st_mode & 0o777 == 0o600


def test_readme_tool_table_is_generated_from_the_server() -> None:
    readme = (ROOT / "README.md").read_text()
    start, end = "<!-- mcp-tools:start -->\n", "<!-- mcp-tools:end -->"
    assert start in readme and end in readme
    table = readme.split(start, 1)[1].split(end, 1)[0]
    assert table == tool_table_markdown()
