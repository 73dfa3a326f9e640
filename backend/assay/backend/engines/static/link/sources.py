"""Tools whose definition spans files, settled once the tree's files are joined (``link.py``).

- A tools argument naming a module-level list of another file (``ToolNode(TOOLS)``, ``TOOLS``
  imported), or holding what a function returns (``tools = get_tools()``), stands for each function of
  that list (``FileFacts.lists``); a function's result whose list is not visible is a frontier item.
- A tool decorator on an object of another module (``@server.tool()``, ``server`` imported) is a tool
  of the rule whose class that module binds the object to (``FileFacts.bindings``): of the candidate
  tools the analyzer made, one per rule, the linker keeps that one (none when the binding is unknown).
- Tools built from records (``StripeTool(name=tool["method"]) for tool in tools``, ``tools`` a
  module-level list of dicts in another file): one tool per record, named by the field and located at
  it (``FileFacts.records``), run by what a dispatch table maps its name to (``FileFacts.tables``: the
  toolkit dispatches by that name), else by the constructor's function or the unnamed tool class
  (``template``) it constructs, which is then no tool of its own. Every adapter that builds the same
  records gives the same tools.
- Names are found exactly, by a dotted suffix (``pkg.tools.TOOLS`` finds ``src.pkg.tools.TOOLS``) or,
  when a tree is scanned from inside its own package, without the package's name
  (``react_agent.tools.TOOLS`` finds ``tools.TOOLS`` when ``react_agent`` is no module of the tree).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import CALL_RESULT, PARAM_ARG, PARAM_KW, FileFacts, RouteServing, ToolDef
from assay.backend.engines.static.pyast.base import class_lineage
from assay.backend.scans.bundle import Location


def without_package(name: str, heads: frozenset[str]) -> Iterator[str]:
    """``name`` without its leading segments, from the first segment that is a top-level module of the
    tree, when its own first segment is none (a package imported by name from inside itself)."""
    if "#" in name:
        return
    parts = name.split(".")
    if len(parts) < 3 or parts[0] in heads:
        return
    for start in range(1, len(parts) - 1):
        if parts[start] in heads:
            yield ".".join(parts[start:])
            return


class NameIndex:
    """Dotted names of the tree, found exactly, by a unique suffix, or without the package's name."""

    def __init__(self, names: Iterable[str], heads: frozenset[str]) -> None:
        self.exact = set(names)
        self.heads = heads
        self.suffix: dict[str, list[str]] = {}
        for name in sorted(self.exact):
            parts = name.split(".")
            for start in range(1, len(parts) - 1):
                self.suffix.setdefault(".".join(parts[start:]), []).append(name)

    def find(self, name: str) -> str | None:
        for candidate in (name, *without_package(name, self.heads)):
            if candidate in self.exact:
                return candidate
            found = self.suffix.get(candidate)
            if found is not None and len(found) == 1:
                return found[0]
        return None


def module_heads(files: Sequence[FileFacts]) -> frozenset[str]:
    """The first segments of the tree's Python module names."""
    return frozenset(f.module.split(".", 1)[0] for f in files if f.language == "python")


def expand_lists(
    defined: list[ToolDef], listed_rules: set[str], found: dict[str, bool], files: Sequence[FileFacts]
) -> tuple[list[ToolDef], list[ToolDef]]:
    """Each listed tool whose function the tree does not define (``found``) but which names a
    module-level list of functions, or a function's result that is such a list (``get_tools()``),
    becomes one listed tool per function of that list (a list within it is read through). A function's
    result whose list is not visible, or only in part, stands where it is given for what analysis cannot
    list: those tools arguments are returned second."""
    lists: dict[str, list[str]] = {}
    for f in files:
        for name, items in f.lists.items():
            # What calls give a parameter (``<callable>#arg<i>``) is written by every file calling it.
            known = lists.setdefault(name, [])
            known.extend(n for n in items if n not in known)
    partial = {name for f in files for name in f.partialLists}
    heads = module_heads(files)
    index = NameIndex(lists, heads)
    schemas = _schema_lists(defined, listed_rules, files, heads)
    out: list[ToolDef] = []
    opaque: list[ToolDef] = []
    expanded = False
    for tool in defined:
        ref = None
        if tool.ruleId in listed_rules and tool.function and not found.get(tool.id, False):
            if schemas.find(tool.function) is not None:
                expanded = True  # ``tools=TOOLS``: the schema dicts of that list are the tools
                continue
            ref = index.find(tool.function) if lists else None
            if _given_param(tool.function) and ref is None:
                expanded = True  # a tools parameter no call of the tree gives a list to
                opaque.append(tool)
                continue
            if tool.function.endswith(CALL_RESULT) and (ref is None or ref in partial):
                opaque.append(tool)
                if ref is None:
                    continue
        if ref is None:
            out.append(tool)
            continue
        expanded = True
        given = _given_param(tool.function or "")
        functions = list(_flattened(ref, lists, index))
        if given and not functions and tool not in opaque:
            opaque.append(tool)  # a tools parameter no call of the tree gives a list to
        for function in functions:
            if schemas.find(function) is not None:
                continue
            if given and function.endswith(CALL_RESULT):
                # A call gives the parameter what a function returns whose list is not visible.
                if tool not in opaque:
                    opaque.append(tool)
                continue
            out.append(
                tool.model_copy(
                    update={
                        "id": short_id("tool", tool.id, function),
                        "name": function.rsplit(".", 1)[-1],
                        "function": function,
                    }
                )
            )
    return (out if expanded or opaque else defined), opaque


def _schema_lists(
    defined: list[ToolDef], listed_rules: set[str], files: Sequence[FileFacts], heads: frozenset[str]
) -> NameIndex:
    """Module-level lists of dict literals (``FileFacts.records``) that hold literal tool schemas found
    where they are written: a tools argument naming one (or a function returning it) gives those tools."""
    written: dict[str, list[tuple[int, int]]] = {}
    for tool in defined:
        if tool.ruleId not in listed_rules and tool.source is None:
            at = tool.location
            written.setdefault(at.path, []).append((at.line, at.endLine or at.line))
    holding: list[str] = []
    for f in files:
        spans = written.get(f.path)
        if not spans:
            continue
        for name, items in f.records.items():
            lines = {field.line for item in items for field in item.values()}
            if any(first <= line <= last for first, last in spans for line in lines):
                holding.append(name)
    return NameIndex(holding, heads)


def _flattened(ref: str, lists: dict[str, list[str]], index: NameIndex, depth: int = 0) -> Iterator[str]:
    """The names a list holds, a list it holds read through (``BASE + [f]``, ``[*BASE, f]``)."""
    for name in lists[ref]:
        inner = index.find(name) if depth < 4 and name != ref else None
        if inner is None:
            if not _given_param(name):
                yield name  # a keyword spelling of a parameter no call uses is no function
        else:
            yield from _flattened(inner, lists, index, depth + 1)


def settle_receivers(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """Keeps a candidate tool made on a receiver of another module only when that module binds the
    receiver to one of the classes the candidate's rule decorates; the role reading of the same decorator
    (``package``) only when the receiver is nothing of the tree's."""
    if not any(t.source is not None and t.source.kind in ("receiver", "package") for t in defined):
        return defined
    bindings = {name: kind for f in files for name, kind in f.bindings.items()}
    index = NameIndex(bindings, module_heads(files))
    server_gates = {key: ids for f in files for key, ids in f.serverGates.items()}
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is not None and source.kind == "package":
            # The role reading of the decorator: kept when the receiver is nothing of the tree's (a package's).
            if index.find(source.ref) is None and source.ref.split(".", 1)[0] not in index.heads:
                out.append(tool.model_copy(update={"source": None}))
            continue
        if source is None or source.kind != "receiver":
            out.append(tool)
            continue
        # A parameter given the registry by position (``#arg<i>``) or by keyword (``key``, ``#kw:<name>``).
        ref = index.find(source.ref)
        if ref is None and source.key is not None:
            ref = index.find(source.key)
        if ref is not None and _is_one_of(bindings[ref], source.types, index, bindings):
            gates = server_gates.get(ref)
            if gates:
                tool = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *gates}))})
            out.append(tool)
    return out


def settle_returned_servers(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """``mcp_server = set_up_tools_server()`` then ``app = mcp_server.sse_app(); app.add_middleware(APIKeyMiddleware)``
    in one module, the server built, its tools registered and the server returned by that function in another:
    the middleware's gates (``FileFacts.serverGates`` under ``<function>()``) hold over every tool registered in
    the function's body (a tool of the same file located within the function)."""
    returned = [(key[:-2], ids) for f in files for key, ids in f.serverGates.items() if key.endswith("()")]
    if not returned:
        return defined
    functions = {fn.qualname: (f.path, fn.location) for f in files if f.language == "python" for fn in f.functions}
    index = NameIndex(functions, module_heads(files))
    spans: dict[str, list[tuple[int, int, tuple[str, ...]]]] = {}
    for callee, ids in returned:
        found = index.find(callee)
        if found is not None:
            path, location = functions[found]
            spans.setdefault(path, []).append((location.line, location.endLine or location.line, tuple(ids)))
    if not spans:
        return defined
    out: list[ToolDef] = []
    for tool in defined:
        gates = {
            g
            for start, end, ids in spans.get(tool.location.path, ())
            if start <= tool.location.line <= end
            for g in ids
        }
        if gates:
            tool = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *gates}))})
        out.append(tool)
    return out


def settle_served_apps(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """``mcp = FastMCP("x")`` with ``@mcp.tool()`` tools in one module, ``from server import mcp; app =
    mcp.http_app(); app.add_middleware(AuthMiddleware)`` in another: the middleware's gates
    (``FileFacts.serverGates`` under the server's qualified name) hold over the tools of the server's module,
    when that module binds no other object of the server's class (which server a tool is on is not recorded)."""
    owners = {name: (f.path, kind) for f in files if f.language == "python" for name, kind in f.bindings.items()}
    spans: dict[str, set[str]] = {}
    for f in files:
        for key, ids in f.serverGates.items():
            owner = owners.get(key)
            if owner is None or f.path == owner[0]:
                continue
            path, kind = owner
            same = [n for n, (p, k) in owners.items() if p == path and k == kind]
            if len(same) == 1:
                spans.setdefault(path, set()).update(ids)
    if not spans:
        return defined
    out: list[ToolDef] = []
    for tool in defined:
        gates = spans.get(tool.location.path)
        if gates and tool.source is None:
            tool = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *gates}))})
        out.append(tool)
    return out


def settle_routes(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """Keeps a web route (``route``) only when the tree serves its app to a model as MCP tools and a serving's
    filters keep it (``FastApiMCP(app, exclude_tags=["Disabled"])``: named operations, tags); a route nobody
    serves so is no tool."""
    if not any(t.source is not None and t.source.kind == "route" for t in defined):
        return defined
    servings = [s for f in files for s in f.routeServings]
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "route":
            out.append(tool)
        elif any(_serves(s, source.key or tool.name, source.types) for s in servings):
            out.append(tool.model_copy(update={"source": None}))
    return out


def _serves(serving: RouteServing, operation: str, tags: list[str]) -> bool:
    """Whether a serving's filters keep a route (FastAPI-MCP: operations first, then tags)."""
    if serving.includeOperations is not None:
        return operation in serving.includeOperations
    if serving.excludeOperations is not None and operation in serving.excludeOperations:
        return False
    if serving.includeTags is not None:
        return any(tag in serving.includeTags for tag in tags)
    return not (serving.excludeTags is not None and any(tag in serving.excludeTags for tag in tags))


def settle_imported(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """Keeps a tool literal bound to a name its own file never reads only when another file imports
    that name (or its whole module, or re-exports it): an exported schema nothing imports is never
    listed to a model."""
    if not any(t.source is not None and t.source.kind == "imported" for t in defined):
        return defined
    imported = {name for f in files for name in f.imports}
    for f in files:
        for targets in f.reexports.values():
            imported.update(targets)
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "imported":
            out.append(tool)
            continue
        module = source.ref.split("#", 1)[0] + "#"
        if source.ref in imported or module in imported:
            out.append(tool)
    return out


def _is_one_of(kind: str, types: list[str], index: NameIndex, bindings: dict[str, str]) -> bool:
    """Whether a bound type is one of ``types``; a type that is itself a binding (``mcp = server``) is
    followed a few steps."""
    for _ in range(4):
        if kind in types:
            return True
        ref = index.find(kind)
        if ref is None:
            return False
        kind = bindings[ref]
    return False


def settle_described(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """A ``described`` class (one naming its tool and running it, under no base named for tools) is a tool when
    its instances reach a model: when it or one of its bases, through the tree's classes, builds a tool schema
    from ``self.name`` (``FileFacts.describers``), or when it answers a member some tool schema built from an
    object's ``name`` reads (``FileFacts.schemaMembers``: ``inputSchema=t.get_schema()``). Otherwise it is a class
    carrying a name, no tool."""
    if not any(t.source is not None and t.source.kind == "described" for t in defined):
        return defined
    describers = {d for f in files for d in f.describers}
    members = {m for f in files for m in f.schemaMembers}
    bases = {cls: found for f in files for cls, found in f.classBases.items()}
    index = NameIndex(set(bases) | describers, module_heads(files))
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "described":
            out.append(tool)
        elif not members.isdisjoint(source.types) or _described_by(source.ref, describers, bases, index):
            out.append(tool.model_copy(update={"source": None}))
    return out


def _described_by(cls: str, describers: set[str], bases: dict[str, list[str]], index: NameIndex) -> bool:
    """Whether ``cls`` or a class it extends, through the tree's classes, is one of ``describers``."""
    lineage = class_lineage(cls, lambda c: [f for b in bases.get(c, ()) if (f := index.find(b)) is not None])
    return any(current in describers for current in lineage)


def settle_subclassed(
    defined: list[ToolDef], files: Sequence[FileFacts], library: dict[str, str], runs: tuple[str, ...]
) -> list[ToolDef]:
    """An instance of a class of another module listed where library tools are (``subclassed``) is the tool of the
    library tool class (``library``: class -> the name the library gives its tool) the class extends through the
    tree's classes, run by the first of the library's run methods (``runs``: ``_run``...) the class or a class of
    the tree it extends defines (the override that checks before ``super()._run(query)``); any other instance is no
    tool."""
    if not any(t.source is not None and t.source.kind == "subclassed" for t in defined):
        return defined
    bases = {cls: found for f in files if f.language == "python" for cls, found in f.classBases.items()}
    functions = {fn.qualname for f in files if f.language == "python" for fn in f.functions}
    index = NameIndex(bases, module_heads(files))
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "subclassed":
            out.append(tool)
            continue
        cls = index.find(source.ref)
        if cls is None:
            continue
        lineage = list(class_lineage(cls, lambda c: [f for b in bases.get(c, ()) if (f := index.find(b)) is not None]))
        name = next((library[b] for c in lineage for b in bases.get(c, ()) if b in library), None)
        if name is None:
            continue
        run = next((f"{c}.{m}" for m in runs for c in lineage if f"{c}.{m}" in functions), None)
        out.append(tool.model_copy(update={"name": name, "source": None, "function": run}))
    return out


def settle_renamed(defined: list[ToolDef], files: Sequence[FileFacts], methods: frozenset[str]) -> list[ToolDef]:
    """A ``renamed`` instance (``google.name = "google_search"`` on a ``TavilySearchTool()``) is a tool of its
    name run as its class's tool is: the tool a class of the tree defines, run by one of the tool classes'
    ``methods`` (``forward``, ``_run``...). An instance of a class that is no tool class makes no tool."""
    if not any(t.source is not None and t.source.kind == "renamed" for t in defined):
        return defined
    classes: dict[str, ToolDef] = {}
    for tool in defined:
        if tool.source is not None and tool.source.kind == "template":
            classes.setdefault(tool.source.ref, tool)
        elif tool.source is None and tool.function and tool.function.rsplit(".", 1)[-1] in methods:
            classes.setdefault(tool.function.rsplit(".", 1)[0], tool)
    index = NameIndex(classes, module_heads(files))
    out: list[ToolDef] = []
    for tool in defined:
        if tool.source is None or tool.source.kind != "renamed":
            out.append(tool)
            continue
        found = index.find(tool.source.ref)
        if found is None:
            continue
        base = classes[found]
        out.append(
            tool.model_copy(
                update={
                    "source": None,
                    "function": base.function,
                    "description": base.description,
                    "parameters": base.parameters,
                    "framework": base.framework,
                    "ruleId": base.ruleId,
                }
            )
        )
    return out


def expand_records(defined: list[ToolDef], files: Sequence[FileFacts]) -> tuple[list[ToolDef], list[ToolDef]]:
    """Each ``records`` tool becomes a tool per record of the list it names; a ``template`` tool class
    some records tool constructs is dropped (its instances are the tools). A records tool whose list,
    key or constructed class is not found, or none of whose records has the field it reads, makes no
    tool: it is returned second, for a frontier item naming the registration (never a silent zero)."""
    wanted = [t for t in defined if t.source is not None and t.source.kind == "records"]
    if not wanted:
        return defined, []
    heads = module_heads(files)
    records = {name: (f.path, items) for f in files for name, items in f.records.items()}
    index = NameIndex(records, heads)
    tables: dict[str, set[str]] = {}
    for f in files:
        for name, target in f.tables.items():
            tables.setdefault(name, set()).add(target)
    templates = {t.source.ref: t for t in defined if t.source is not None and t.source.kind == "template"}
    template_index = NameIndex(templates, heads)
    used: set[str] = set()
    out: list[ToolDef] = []
    unlisted: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "records":
            if source is None or source.kind != "template":
                out.append(tool)
            continue
        ref = index.find(source.ref)
        base: ToolDef | None = tool
        if source.types:
            found = template_index.find(source.types[0])
            base = templates[found] if found is not None else None
            if found is not None:
                used.add(found)
        if ref is None or base is None or source.key is None:
            unlisted.append(tool)
            continue
        path, items = records[ref]
        made = len(out)
        for position, record in enumerate(items):
            field = record.get(source.key)
            if field is None:
                continue
            targets = tables.get(field.value, set())
            function: str | None = next(iter(targets)) if len(targets) == 1 else base.function
            if function is None:
                # ``{ function: (...) => ..., declaration: { name } }``: the one function the record holds.
                held = [f.value for key, f in record.items() if key.endswith("()")]
                function = held[0] if len(held) == 1 else None
            out.append(
                ToolDef(
                    id=short_id("tool", "records", ref, position, function or ""),
                    name=field.value,
                    description=base.description,
                    framework=base.framework,
                    ruleId=base.ruleId,
                    location=Location(path=path, line=field.line, column=1, endLine=field.line),
                    function=function,
                )
            )
        if len(out) == made:
            unlisted.append(tool)
    # An unnamed tool class no records tool constructs is kept, named after the class.
    out.extend(t for ref, t in templates.items() if ref not in used)
    return out, unlisted


def _given_param(name: str) -> bool:
    """``<callable>#arg<i>`` or ``#kw:<name>``: what calls give a parameter, not a function."""
    return PARAM_ARG in name or PARAM_KW in name


def settle_constants(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """A tool named by another module's constant (``constant``: ``Tool(name=ToolNames.SUBMIT_MODEL)``) takes the
    value the tree gives that constant (``FileFacts.constants``: the string fields of its classes, enum members
    among them); one whose constant the tree does not define is no tool (its file's frontier item stays)."""
    if not any(t.source is not None and t.source.kind == "constant" for t in defined):
        return defined
    values = {name: value for f in files if f.language == "python" for name, value in f.constants.items()}
    index = NameIndex(values, module_heads(files))
    out: list[ToolDef] = []
    for tool in defined:
        if tool.source is None or tool.source.kind != "constant":
            out.append(tool)
            continue
        found = index.find(tool.source.ref)
        if found is not None:
            out.append(tool.model_copy(update={"name": values[found], "source": None}))
    return out


def settle_factories(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """A string handed to a definition factory at the position its parameter names the tool (``made``:
    ``defineTool('list_things', ...)`` with ``factory``: ``function defineTool(name, ...) { return { name,
    inputSchema } }``) is the tool of that name, of the factory's rule and parameters, where the string is
    written; every other ``made`` candidate, and the factory itself, is no tool."""
    if not any(t.source is not None and t.source.kind in ("factory", "made") for t in defined):
        return defined
    factories = {t.source.ref: t for t in defined if t.source is not None and t.source.kind == "factory"}
    index = NameIndex(factories, module_heads(files))
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind not in ("factory", "made"):
            out.append(tool)
            continue
        if source.kind == "factory":
            continue
        found = index.find(source.ref) if factories else None
        factory = factories[found] if found is not None else None
        if factory is None or factory.source is None or factory.source.key != source.key:
            continue
        at = tool.location
        out.append(
            tool.model_copy(
                update={
                    "id": short_id("tool", at.path, at.line, tool.name, factory.ruleId),
                    "framework": factory.framework,
                    "ruleId": factory.ruleId,
                    "parameters": factory.parameters,
                    "source": None,
                }
            )
        )
    return out
