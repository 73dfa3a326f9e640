"""The MCP server for coding agents: :func:`build_mcp_server` (a factory; there is no module-level server).

The server is built over an already open :class:`~assay.tools.context.AssayBinding` (embedded or remote,
see ``embedded.py``); its lifespan only hands that binding to the tools.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument

from assay.prompts.loader import PromptText, load_prompts
from assay.server.version import assay_version
from assay.tools.context import AssayBinding
from assay.tools.registry import register_all

INSTRUCTIONS = (
    "Assay assesses AI systems (LLM apps and agents): what they can do, who authorized it, what was seen, and "
    "what remains unproven, as a frozen Evaluation with a disposition ALLOW, REVIEW or BLOCK. Start with "
    "assay_assess_workspace; then read assay_get_agent_audit. Its verificationNeeded items are the only "
    "evidence to gather. Evaluations never change: after fixing the workspace, call assay_assess_workspace "
    "again for a NEW Evaluation. Always use exact evaluation ids; there is no 'latest'."
)


def _prompt(text: PromptText) -> Prompt:
    def render(**values: str) -> str:
        # MCP clients send empty strings for optional arguments left blank: those take the default.
        return text.render({name: value for name, value in values.items() if value})

    return Prompt(
        name=text.name,
        title=text.title,
        description=text.description,
        arguments=[PromptArgument(name=a.name, description=a.description, required=a.required) for a in text.arguments],
        fn=render,
    )


def _lifespan(bound: AssayBinding) -> Callable[[MCPServer[AssayBinding]], Any]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer[AssayBinding]) -> AsyncIterator[AssayBinding]:
        yield bound

    return lifespan


def build_mcp_server(
    bound: AssayBinding,
    *,
    token_verifier: TokenVerifier | None = None,
    server_url: str | None = None,
) -> MCPServer[AssayBinding]:
    """The Assay MCP server over ``bound``: every tool, resource and prompt.

    With ``token_verifier`` (the streamable HTTP transport) every HTTP request must carry a bearer key the
    verifier accepts; ``server_url`` is then this server's public URL (the protected resource).
    """
    auth = None
    if token_verifier is not None:
        url = server_url or "http://127.0.0.1/mcp"
        # The service's API keys are the bearer tokens: there is no separate authorization server.
        auth = AuthSettings(issuer_url=url, resource_server_url=url, validate_token_resource=False)
    server: MCPServer[AssayBinding] = MCPServer(
        "assay",
        title="Assay",
        version=assay_version(),
        instructions=INSTRUCTIONS,
        lifespan=_lifespan(bound),
        # The SDK would otherwise configure the root logger at INFO (every HTTP request on stderr).
        log_level="WARNING",
        token_verifier=token_verifier,
        auth=auth,
    )
    register_all(server, bound)
    for text in load_prompts():
        server.add_prompt(_prompt(text))
    return server
