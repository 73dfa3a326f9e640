"""What every tool call needs: the client, and the workspace system when there is one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context

from assay.tools.client import AssayClient, AssayError


@dataclass(frozen=True, slots=True)
class AssayContext:
    client: AssayClient
    workspace: Path | None = None
    ai_system_id: str | None = None


def assay(ctx: Context[Any, Any]) -> AssayContext:
    value = ctx.request_context.lifespan_context
    if not isinstance(value, AssayContext):
        raise AssayError("INTERNAL_ERROR", "The Assay MCP server was started without its service context.")
    return value


def system_id(context: AssayContext, given: str | None) -> str:
    chosen = given or context.ai_system_id
    if not chosen:
        raise AssayError(
            "INVALID_REQUEST", "No AI System given and no workspace system is configured: pass ai_system_id."
        )
    return chosen
