"""What every tool call needs: the service client to act with, and the workspace and its AI System."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.mcpserver import Context

from assay.backend.engines.static.cache import FactsCache
from assay.tools.client import AssayClient, AssayError


@dataclass(frozen=True, slots=True)
class IntakeAccess:
    """What sending to an intake route needs: the binder, and the client whose key may ingest."""

    binder_id: str
    client: AssayClient


# Finds the workspace's AI System on the service with the given client (raises AssayError when it cannot).
SystemFinder = Callable[[AssayClient], Awaitable[str]]

# Given an AI System and an adapter id, a binder of that adapter for the system and a client that may
# ingest through it (the embedded service makes both on first use).
IntakeProvider = Callable[[str, str], Awaitable[IntakeAccess]]


# Given an AI System and an MCP server to probe (a command line, or an http(s) URL), the id of a runtime
# target for it, verified and consented to the default suites: the embedded service's local developer is
# its operator, so asking for the probe is the consent (docs/runtime.md). None where targets are made by
# an administrator (a shared service): a probe then names an existing target id.
TargetProvider = Callable[[str, str], Awaitable[str]]


@dataclass(frozen=True, slots=True)
class AssayBinding:
    """The MCP server's connection to one assurance service.

    ``client`` carries the server's own key (the embedded workspace key, or ``ASSAY_API_KEY``). With
    ``caller_keys`` (the streamable HTTP transport) every call acts with the bearer key its caller
    authenticated with instead, so scopes and organization apply as on the REST API; the server's own key
    is then never used for a caller. ``workspace`` is the folder ``assay_assess_workspace`` scans by default;
    ``confine_paths`` keeps callers inside it (a remote caller must not read the host's other folders).
    """

    client: AssayClient
    workspace: Path | None = None
    ai_system_id: str | None = None
    caller_keys: bool = False
    confine_paths: bool = False
    # Per-file analysis cache of the local scanner (content-addressed, so it never changes a result).
    scan_cache: FactsCache | None = None
    # Binders and an ingest key on demand (embedded service); None: look binders up with the client's key.
    intake: IntakeProvider | None = None
    # Runtime targets on demand (embedded service); None: name an existing target.
    targets: TargetProvider | None = None
    # The workspace's AI System when nobody named it (remote stdio): looked up on the call that needs it, so
    # a service that was down at start is found later, and a call made while it is down says so.
    find_system: SystemFinder | None = None

    def client_for(self, ctx: Context[Any, Any] | None) -> AssayClient:
        """The client to act with for this request."""
        if not self.caller_keys:
            return self.client
        token = caller_token(ctx)
        if token is None:
            raise AssayError("UNAUTHORIZED", "This MCP connection carries no bearer key")
        return self.client.with_key(token)


@dataclass(frozen=True, slots=True)
class ServiceUnavailable:
    """What a request gets instead of the binding when the service behind it could not be opened."""

    error: AssayError


# The binding, opened first when it is opened on demand; raises AssayError when it cannot be.
BindingSource = Callable[[], Awaitable[AssayBinding]]


def caller_token(ctx: Context[Any, Any] | None) -> str | None:
    """The bearer key the MCP HTTP caller authenticated with, if any."""
    if ctx is not None:
        try:
            request = ctx.request_context.request
        except ValueError:
            request = None
        scope = getattr(request, "scope", None)
        user = scope.get("user") if isinstance(scope, dict) else None
        if isinstance(user, AuthenticatedUser):
            return user.access_token.token
    token = get_access_token()
    return token.token if token is not None else None


def binding(ctx: Context[Any, Any]) -> AssayBinding:
    """The binding the server was built with (its lifespan yields it)."""
    value = ctx.request_context.lifespan_context
    if isinstance(value, ServiceUnavailable):
        raise value.error
    if not isinstance(value, AssayBinding):
        raise AssayError("INTERNAL_ERROR", "The Assay MCP server was started without its service binding")
    return value


def client(ctx: Context[Any, Any]) -> AssayClient:
    """The client to act with for this tool call."""
    return binding(ctx).client_for(ctx)


async def system_id(bound: AssayBinding, given: str | None, api: AssayClient) -> str:
    """The AI System a call is about: the one given, else the workspace's (found through ``api`` when the
    binding knows how; its failure, a connection failure included, is the call's error)."""
    chosen = given or bound.ai_system_id
    if not chosen and bound.find_system is not None:
        return await bound.find_system(api)
    if not chosen:
        raise AssayError(
            "INVALID_REQUEST",
            "No ai_system_id was given and this server has no workspace system",
            next_step="call assay_list_systems and pass ai_system_id.",
        )
    return chosen
