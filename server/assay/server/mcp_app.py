"""The MCP server for coding agents: ``build_mcp_server`` (a factory; no module-level server)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from assay.prompts.loader import PromptText, load_prompts
from assay.tools.context import AssayContext
from assay.tools.registry import register_all
from assay.tools.resources import systems

INSTRUCTIONS = (
    "Assay assesses AI systems (LLM apps and agents) before they ship: what they can do, who authorized it, what "
    "was seen, and what is unproven. Start with assay_assess_workspace; then read assay_get_agent_audit. "
    "verificationNeeded items are the only evidence to gather. Evaluations are frozen: every fix is assessed "
    "by a NEW run."
)

ContextFactory = Callable[[], AbstractAsyncContextManager[AssayContext]]


def _prompt_function(prompt: PromptText) -> Callable[..., str]:
    def render(**values: str) -> str:
        return prompt.render({k: v for k, v in values.items() if v})

    # The SDK reads arguments from the signature: give the function one keyword per prompt argument.
    import inspect

    parameters = [
        inspect.Parameter(
            a.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None if not a.required else inspect.Parameter.empty,
            annotation=str | None if not a.required else str,
        )
        for a in prompt.arguments
    ]
    render.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    render.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": str}
    render.__name__ = prompt.name
    render.__doc__ = prompt.description
    return render


def build_mcp_server(context_factory: ContextFactory, *, version: str = "0.1.0") -> MCPServer[AssayContext]:
    """The Assay MCP server; ``context_factory`` opens the service connection (embedded or remote)."""

    # Static resources get no Context in the SDK: they read the open connection from here.
    open_contexts: list[AssayContext] = []

    @asynccontextmanager
    async def lifespan(_server: MCPServer[AssayContext]) -> AsyncIterator[AssayContext]:
        async with context_factory() as context:
            open_contexts.append(context)
            try:
                yield context
            finally:
                open_contexts.remove(context)

    async def systems_resource() -> str:
        if not open_contexts:
            raise ResourceError("The Assay service connection is not open.")
        return await systems(open_contexts[-1])

    server: MCPServer[AssayContext] = MCPServer("assay", version=version, instructions=INSTRUCTIONS, lifespan=lifespan)
    register_all(server)
    server.resource(
        "assay://systems", name="systems", description="AI Systems of your organization.", mime_type="application/json"
    )(systems_resource)
    for prompt in load_prompts():
        server.prompt(name=prompt.name, title=prompt.title, description=prompt.description)(_prompt_function(prompt))
    return server
