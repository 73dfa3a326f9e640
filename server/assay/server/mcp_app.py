"""The MCP server for coding agents: :func:`build_mcp_server` (a factory; there is no module-level server).

The server is built over an :class:`~assay.tools.context.AssayBinding` (embedded or remote, see
``embedded.py``): one already open, which its lifespan hands to the tools, or an :class:`OnDemandBinding`,
opened by the first request that needs the service. ``initialize``, ``ping`` and the listings of tools,
resources and prompts never do, so a client is answered before the database is opened, migrated and the
workspace provisioned.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import replace
from typing import Any

import anyio
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument

from assay.prompts.loader import PromptText, load_prompts
from assay.server.mcp_handshake import INSTRUCTIONS, SERVER_NAME, SERVER_TITLE
from assay.server.startup import one_line
from assay.server.version import assay_version
from assay.tools.client import AssayError
from assay.tools.context import AssayBinding, ServiceUnavailable
from assay.tools.registry import register_all

logger = logging.getLogger(__name__)

# Requests answered from what the server was built with: they never open the service.
WITHOUT_SERVICE = frozenset(
    {
        "initialize",
        "ping",
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
    }
)


class OnDemandBinding:
    """A binding opened by the first request that needs it and kept open until the server stops.

    The opening runs in a task of the server's lifespan, not in the request that asked for it: the embedded
    service starts its own tasks (the run worker), which must outlive that request and be stopped by the
    task that started them. If it cannot be opened, every request that needs it gets the reason (the
    details go to stderr once)."""

    def __init__(self, opener: Callable[[], AbstractAsyncContextManager[AssayBinding]]) -> None:
        self._opener = opener
        self._wanted = anyio.Event()
        self._settled = anyio.Event()
        self._stopped = anyio.Event()
        self._bound: AssayBinding | None = None
        self._failure: AssayError | None = None

    async def get(self) -> AssayBinding:
        """The binding, opened now if nothing opened it yet. Raises AssayError when it could not be opened."""
        self._wanted.set()
        await self._settled.wait()
        if self._bound is None:
            raise self._failure or AssayError("INTERNAL_ERROR", "The Assay MCP server is stopping")
        return self._bound

    async def keep(self) -> None:
        """Open the binding when first wanted and hold it open until :meth:`stop`."""
        await self._wanted.wait()
        if self._stopped.is_set():
            self._settled.set()
            return
        async with AsyncExitStack() as stack:
            try:
                self._bound = await stack.enter_async_context(self._opener())
            except Exception as exc:  # the top of this task: whatever went wrong is each later call's answer
                # One line, as `assay serve` says it (the traceback at debug level).
                logger.error("assay mcp: the Assay service did not start: %s", one_line(exc))
                logger.debug("the Assay service did not start", exc_info=True)
                self._failure = AssayError(
                    "SERVICE_UNAVAILABLE",
                    f"The Assay service did not start ({type(exc).__name__}); the MCP server's stderr says why",
                    next_step="fix the cause the MCP server's log names (database URL, data directory), then "
                    "restart the MCP server.",
                )
                return
            finally:
                self._settled.set()
            await self._stopped.wait()

    def stop(self) -> None:
        self._stopped.set()
        self._wanted.set()

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Hands the tools the opened binding (opening it first) on every request that needs the service."""
        if ctx.request_id is None or ctx.method in WITHOUT_SERVICE:
            return await call_next(ctx)
        try:
            bound: AssayBinding | ServiceUnavailable = await self.get()
        except AssayError as exc:
            bound = ServiceUnavailable(exc)
        return await call_next(replace(ctx, lifespan_context=bound))


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


def _lifespan(bound: AssayBinding | OnDemandBinding) -> Callable[[MCPServer[Any]], Any]:
    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[AssayBinding | OnDemandBinding]:
        if isinstance(bound, AssayBinding):
            yield bound
            return
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(bound.keep)
            try:
                yield bound
            finally:
                bound.stop()

    return lifespan


def _already(bound: AssayBinding) -> Callable[[], Awaitable[AssayBinding]]:
    async def current() -> AssayBinding:
        return bound

    return current


def build_mcp_server(
    bound: AssayBinding | OnDemandBinding,
    *,
    token_verifier: TokenVerifier | None = None,
    server_url: str | None = None,
) -> MCPServer[Any]:
    """The Assay MCP server over ``bound``: every tool, resource and prompt.

    With ``token_verifier`` (the streamable HTTP transport) every HTTP request must carry a bearer key the
    verifier accepts; ``server_url`` is then this server's public URL (the protected resource).
    """
    auth = None
    if token_verifier is not None:
        url = server_url or "http://127.0.0.1/mcp"
        # The service's API keys are the bearer tokens: there is no separate authorization server.
        auth = AuthSettings(issuer_url=url, resource_server_url=url, validate_token_resource=False)
    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title=SERVER_TITLE,
        version=assay_version(),
        instructions=INSTRUCTIONS,
        lifespan=_lifespan(bound),
        # The SDK would otherwise configure the root logger at INFO (every HTTP request on stderr).
        log_level="WARNING",
        token_verifier=token_verifier,
        auth=auth,
        middleware=[bound.middleware] if isinstance(bound, OnDemandBinding) else None,
    )
    register_all(server, bound.get if isinstance(bound, OnDemandBinding) else _already(bound))
    for text in load_prompts():
        server.add_prompt(_prompt(text))
    return server
