"""The MCP tool table of the docs, generated from the server itself so docs and server never drift.

``python -m assay.server.mcp_catalog`` prints it between its markers, ready to paste into README.md
and docs/mcp.md (a test keeps both in step with the server).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool

START_MARKER = "<!-- mcp-tools:start -->"
END_MARKER = "<!-- mcp-tools:end -->"


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    head, dot, _ = flat.partition(". ")
    return head + "." if dot else flat


def _kind(tool: Tool) -> str:
    hints = tool.annotations
    if hints is None:
        return ""
    if hints.read_only_hint:
        return "read-only"
    return "creates (never destructive)" if hints.destructive_hint is False else "writes"


def tool_table_markdown(server: MCPServer[Any]) -> str:
    """The Markdown table of ``server``'s tools: name, title, what it does, kind. Call it outside an event loop."""
    tools = anyio.run(server.list_tools)
    rows = ["| Tool | Title | What it does | Kind |", "|---|---|---|---|"]
    for tool in tools:
        rows.append(
            f"| `{tool.name}` | {tool.title or ''} | {_first_sentence(tool.description or '')} | {_kind(tool)} |"
        )
    return "\n".join(rows) + "\n"


def marked_block(table: str) -> str:
    """The table between its markers, as the docs hold it."""
    return f"{START_MARKER}\n{table}{END_MARKER}"


def between_markers(text: str) -> str | None:
    """The table a document holds between the markers, or None when it has none."""
    if START_MARKER not in text or END_MARKER not in text:
        return None
    return text.split(START_MARKER + "\n", 1)[1].split(END_MARKER, 1)[0]


def catalog_server() -> MCPServer[Any]:
    """A server with every tool registered and no service behind it (listing needs none)."""
    from assay.server.mcp_app import build_mcp_server
    from assay.tools.client import AssayClient
    from assay.tools.context import AssayBinding

    return build_mcp_server(AssayBinding(client=AssayClient("http://unused.invalid", "")))


if __name__ == "__main__":
    print(marked_block(tool_table_markdown(catalog_server())))
