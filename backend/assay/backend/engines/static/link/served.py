"""Checks in front of the HTTP route that serves a TypeScript MCP server, held over its tools.

``if (!(await isAuthorized(req))) { res.writeHead(401); return; }`` before the route builds the server
(``const server = createMcpServer(); await server.connect(transport)``) and hands it the request
(``transport.handleRequest(req, res, body)``): every tool that server serves (``ToolDef.servedBy``, the
function its tools are put together in) is reached over that route only through the check. A route is a
function of the tree that hands a request to an MCP transport (``FunctionFacts.servesRequests``) and
calls the server's function; the gates held are the authentication and permission checks that dominate
that call on every such route. An entry point serving the same server over stdio hands over no request:
no route (a local process, with nothing to authenticate), so it takes nothing away.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.backend.engines.static.facts import ToolDef
from assay.backend.engines.static.link.graph import Fn

# The gate kinds a route's check in front of the server holds over its tools.
_FRONT_KINDS = frozenset({"authentication", "permission"})


def route_gates(
    tools: list[ToolDef], functions: dict[str, Fn], resolve: Callable[[str, str], str | None]
) -> list[ToolDef]:
    """``tools`` with the checks in front of every HTTP route serving their server added to their
    ``hookGates`` (the gates that hold on every path from a tool)."""
    served = sorted({t.servedBy for t in tools if t.servedBy is not None})
    routes = [fn for fn in functions.values() if fn.facts.servesRequests]
    if not served or not routes:
        return tools
    held: dict[str, frozenset[str]] = {}
    for name in served:
        target = resolve(name, name)
        if target is None:
            continue
        fronts: list[frozenset[str]] = []
        for fn in routes:
            kinds = {g.id: g.kind for g in fn.gates}
            for call in fn.calls:
                if fn.targets.get(call.callee) == target:
                    fronts.append(frozenset(g for g in call.dominatingGates if kinds.get(g) in _FRONT_KINDS))
        if fronts:
            held[name] = frozenset.intersection(*fronts)
    out: list[ToolDef] = []
    for tool in tools:
        gates = held.get(tool.servedBy) if tool.servedBy is not None else None
        if gates:
            tool = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *gates}))})
        out.append(tool)
    return out
