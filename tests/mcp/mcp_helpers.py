"""Helpers shared by the MCP tests."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from assay.backend.settings import ServiceSettings
from assay.server.embedded import EmbeddedService, open_embedded
from assay.server.mcp_app import build_mcp_server
from assay.tools.answers import ANSWER_BUDGET
from assay.tools.context import AssayBinding

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def copy_example(name: str, tmp_path: Path) -> Path:
    """A private copy of an example system (tests may change it)."""
    target = tmp_path / name
    shutil.copytree(EXAMPLES / name, target)
    return target


@asynccontextmanager
async def embedded(
    settings: ServiceSettings, workspace: Path
) -> AsyncIterator[tuple[EmbeddedService, MCPServer[AssayBinding], str]]:
    """The embedded service over ``workspace``, its MCP server, and what it said on stderr."""
    log = io.StringIO()
    async with open_embedded(settings, workspace, log=log) as service:
        yield service, build_mcp_server(service.binding), log.getvalue()


def data(result: CallToolResult) -> dict[str, Any]:
    """The answer of a successful tool call: one JSON text block, bounded, and nothing else."""
    assert not result.is_error, error_text(result)
    assert result.structured_content is None and len(result.content) == 1
    text = error_text(result)
    assert len(text.encode()) <= ANSWER_BUDGET
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def error_text(result: CallToolResult) -> str:
    """The text of a tool result (the error message when ``is_error``)."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text
