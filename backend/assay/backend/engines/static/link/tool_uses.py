"""Tools whose definition and whose use sit apart, joined once every file's facts are known.

A definition records what holds it (``ToolDef.binding``): a top-level name (``mod#weatherTool``), or a
function's result (``mod#createSandbox()``, a factory returning ``tool({...})``). A use records what it
refers to (``ToolDef.ref``), resolved through re-exports (``export { x } from "./x"``):

- a placement names the tool (``{ weather: weatherTool }``, ``{ createSandbox: createSandbox(...) }``): the
  definition's tool, under the placement's key and at the placement (the definition itself is then only
  where its implementation is);
- a registration under the definition's own name (``server.registerTool(def.name, config, handler)``,
  ``refName``): the registration's tool (its handler, annotations, description), named and located by
  the definition; a record pairing a held value with a function (``{ def: listTool, handle: (args) =>
  ... }``, ``refName`` and ``candidate``) is such a registration when the value is a tool definition, and
  nothing otherwise.

A definition that is a tool only when used (``{ name, handler }`` objects, ``candidate``) is dropped when
nothing uses it; a placement that names no definition is dropped too, unless it sits in a model's tool
set (``toolset``): then it is a tool whose definition analysis cannot see, and says so (a frontier item).
A registration whose name no definition gives is a frontier item: a tool, but not one analysis can name;
so is a factory's tool that no key names (its name is given where its result is used, out of sight).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ToolDef
from assay.backend.scans.bundle import FrontierItem


def bind_tools(
    defined: Sequence[ToolDef], origins: Callable[[str], list[str]]
) -> tuple[list[ToolDef], list[FrontierItem]]:
    """The tools of the tree once definitions and uses are joined, and what could not be joined."""
    uses = [t for t in defined if t.ref is not None]
    if not uses and not any(t.candidate for t in defined):
        return list(defined), []
    held: dict[str, list[ToolDef]] = {}
    for tool in defined:
        if tool.binding is not None and tool.ref is None:
            held.setdefault(tool.binding, []).append(tool)

    def find(ref: str) -> ToolDef | None:
        called = ref.endswith("()")
        base = ref[:-2] if called else ref
        for name in [base, *(origins(base) if "#" in base else [])]:
            found = held.get(f"{name}()" if called else name)
            if found:
                return min(found, key=lambda t: (t.location.path, t.location.line, t.location.column, t.id))
        return None

    used: set[str] = set()
    out: list[ToolDef] = []
    frontier: list[FrontierItem] = []
    listed: set[str] = set()
    # Modules of the tree that define tools: a list naming a value of one of them (``tools: toolset``
    # with ``export const toolset = { weather: tool(...) }``) names tools analysis does see.
    defining = {_module_of(t.location.path) for t in defined if t.ref is None}
    for use in uses:
        assert use.ref is not None
        definition = find(use.ref)
        location = use.location
        if use.listed:
            # ``tools: [weatherTool]``: the definition is the tool (named and located by itself).
            if definition is None and use.ref.split("#", 1)[0] not in defining:
                frontier.append(
                    _frontier(
                        use,
                        f"a tool ({use.ref}) is given to a model here whose definition analysis does not see; "
                        "what it reaches is not visible",
                    )
                )
            elif definition is not None:
                listed.add(definition.id)
            continue
        if definition is None:
            if use.toolset and not use.refName:
                out.append(use.model_copy(update={"ref": None, "toolset": False}))
                frontier.append(
                    _frontier(
                        use,
                        f"tool {use.name} is defined outside what analysis sees ({use.ref}); what it reaches is not visible",
                    )
                )
            elif use.refName and not use.candidate:
                frontier.append(
                    _frontier(
                        use,
                        f"a tool is registered here under the name {use.name}, which analysis cannot read; what it reaches is not attributed to it",
                    )
                )
            continue
        used.add(definition.id)
        if use.refName:
            at = definition.location
            out.append(
                use.model_copy(
                    update={
                        "id": short_id("tool", at.path, at.line, definition.name, use.ruleId),
                        "name": definition.name,
                        "location": at,
                        "function": use.function or definition.function,
                        "description": use.description or definition.description,
                        "parameters": use.parameters or definition.parameters,
                        "ref": None,
                        "refName": False,
                        # a record pairing the definition with its function: the definition's kind of tool
                        **(
                            {"framework": definition.framework, "ruleId": definition.ruleId, "candidate": False}
                            if use.candidate
                            else {}
                        ),
                    }
                )
            )
        else:
            out.append(
                definition.model_copy(
                    update={
                        "id": short_id("tool", location.path, location.line, use.name, definition.ruleId),
                        "name": use.name,
                        "location": location,
                        "binding": None,
                        "candidate": False,
                    }
                )
            )
    for tool in defined:
        if tool.ref is not None or tool.id in used or (tool.candidate and tool.id not in listed):
            continue
        if tool.candidate:
            tool = tool.model_copy(update={"candidate": False})
        if tool.binding is not None and tool.binding.endswith("()"):
            # A factory's tool that no key names (``tools[def.method] = makeTool(...)``): named at run time.
            frontier.append(
                _frontier(
                    tool,
                    f"a tool is built by {tool.binding[:-2]} and named where its result is used, which analysis "
                    "does not see; what it reaches is not attributed to it",
                )
            )
            continue
        out.append(tool)
    return out, frontier


def _module_of(path: str) -> str:
    """``src/tools/index.ts`` -> ``src/tools``: the module a JS/TS file is named by in references."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def _frontier(use: ToolDef, detail: str) -> FrontierItem:
    location = use.location
    return FrontierItem(
        id=short_id("fr", "dynamic_dispatch", location.path, location.line, location.column, use.name),
        kind="dynamic_dispatch",
        detail=detail,
        location=location,
        path=location.path,
        ruleId=use.ruleId,
    )
