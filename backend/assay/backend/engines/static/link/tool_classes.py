"""Tool classes settled over the whole tree (JS/TS, ``jsts/tool_classes.py``).

A ``listed`` candidate (a class of the tree that names itself and has methods) is a tool when some file
gathers its instances and the tree serves them to a model: a method called on a value found by a tool's name
inside a CallTool request handler, which the class has (its own or inherited from a class of the tree, or,
when it has neither, a method of its own whose name holds the dispatched one: ``doExecute`` for ``execute``
under a library base analysis cannot see), or a listing of ``this.name`` in the class or a base of it (then
run by the method its registration names, else by the method a lookup by name calls). Every other candidate
is dropped: a class with a name nothing gathers, or a table of handlers nothing serves, is no tool.

A registration of every element of a collection typed by a type of the tree (``for (const tool of this.tools)
server.tool(tool.name, ..., (p) => tool.handler(p))`` with ``tools: Tool[]``, filled by a dependency injection
container) serves every candidate implementing or extending that type, gathered or not (the container builds
them), run by the method the registration calls on the element; its frontier item is answered once one is.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.backend.engines.static.facts import FileFacts, ServedElements, ToolDef


def _class_methods(files: Sequence[FileFacts]) -> dict[str, set[str]]:
    """``mod#Class`` -> the methods the tree defines on it (``mod#Class.method`` functions)."""
    out: dict[str, set[str]] = {}
    for f in files:
        if f.language == "python":
            continue
        for fn in f.functions:
            module, _, local = fn.qualname.partition("#")
            cls, _, method = local.rpartition(".")
            if cls and method and "." not in cls:
                out.setdefault(f"{module}#{cls}", set()).add(method)
    return out


def settle_listed(defined: list[ToolDef], files: Sequence[FileFacts]) -> list[ToolDef]:
    """Keeps the ``listed`` candidates the tree gathers and serves, each run by its dispatched method."""
    if not any(t.source is not None and t.source.kind == "listed" for t in defined):
        return defined
    gathered: set[str] = set()
    dispatched: dict[str, bool] = {}
    listing: dict[str, str] = {}
    for f in files:
        uses = f.toolClassUses
        if uses is None:
            continue
        gathered.update(uses.gathered)
        for method, serving in uses.dispatched.items():
            dispatched[method] = dispatched.get(method, False) or serving
        for cls, handler in uses.listing.items():
            listing[cls] = handler or listing.get(cls, "")
    bases = {cls: found[0] for f in files if f.language != "python" for cls, found in f.classBases.items() if found}
    methods = _class_methods(files)
    by_elements = _element_served(files, bases, methods)
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "listed":
            out.append(tool)
            continue
        function = None
        if source.ref in gathered:
            function = _served_function(_ancestry(source.ref, bases), methods, dispatched, listing)
        if function is None and source.ref in by_elements:
            function = by_elements[source.ref][0]
        if function is not None:
            out.append(tool.model_copy(update={"source": None, "function": function}))
    return out


def answered_by_elements(files: Sequence[FileFacts]) -> set[str]:
    """The frontier items of registrations over typed elements that serve a class of the tree."""
    if not any(f.toolClassUses is not None and f.toolClassUses.served for f in files):
        return set()
    bases = {cls: found[0] for f in files if f.language != "python" for cls, found in f.classBases.items() if found}
    return {frontier for _, frontier in _element_served(files, bases, _class_methods(files)).values() if frontier}


def _element_served(
    files: Sequence[FileFacts], bases: dict[str, str], methods: dict[str, set[str]]
) -> dict[str, tuple[str, str | None]]:
    """Candidate classes a registration over typed elements serves -> (the function running the tool, the
    registration's frontier item)."""
    listed: list[ServedElements] = []
    implements: dict[str, list[str]] = {}
    for f in files:
        uses = f.toolClassUses
        if uses is not None:
            listed.extend(uses.served)
            implements.update(uses.implements)
    if not listed:
        return {}
    # ``ToolGroup.tools[]``: the elements of a member of another type, as the file declaring it says.
    members = {k: v for f in files if f.language != "python" for k, v in f.bindings.items() if k.endswith("[]")}
    served: dict[str, list[ServedElements]] = {}
    for element in listed:
        served.setdefault(members.get(element.type, element.type), []).append(element)
    candidates = sorted(
        t.source.ref for f in files for t in f.tools if t.source is not None and t.source.kind == "listed"
    )
    out: dict[str, tuple[str, str | None]] = {}
    for cls in candidates:
        chain = _ancestry(cls, bases)
        types = [t for c in chain for t in implements.get(c, ())]
        for element in (e for t in types for e in served.get(t, ())):
            owner = next((c for c in chain if element.method in methods.get(c, ())), None)
            if element.method and owner is not None:
                out.setdefault(cls, (f"{owner}.{element.method}", element.frontier))
                break
    return out


def _ancestry(cls: str, bases: dict[str, str]) -> list[str]:
    """The class and the classes of the tree it extends, nearest first (cycle-safe)."""
    chain = [cls]
    while len(chain) < 8:
        base = bases.get(chain[-1])
        if base is None or base in chain:
            break
        chain.append(base)
    return chain


def _served_function(
    chain: list[str], methods: dict[str, set[str]], dispatched: dict[str, bool], listing: dict[str, str]
) -> str | None:
    """The function running the tool of the class ``chain[0]`` when the tree serves it, else None."""
    listed = next((listing[c] for c in chain if c in listing), None)
    if listed:
        wanted = [listed]
    elif listed is not None:  # listed without a named handler: the methods a lookup by name calls
        wanted = sorted(dispatched, key=lambda m: (not dispatched[m], m))
    else:  # served only through a CallTool handler's lookup
        wanted = sorted(m for m, serving in dispatched.items() if serving)
    for method in wanted:
        owner = next((c for c in chain if method in methods.get(c, ())), None)
        if owner is not None:
            return f"{owner}.{method}"
    own = sorted(methods.get(chain[0], ()))
    for method in wanted:
        near = [m for m in own if method.lower() in m.lower()]
        if near:
            return f"{chain[0]}.{near[0]}"
    return None
