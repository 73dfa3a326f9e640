"""Tool classes settled over the whole tree (JS/TS, ``jsts/tool_classes.py``).

A ``listed`` candidate (a class of the tree that names itself and has methods) is a tool when some file
gathers its instances and the tree serves them to a model: a method called on a value found by a tool's name
inside a CallTool request handler, which the class has (its own or inherited from a class of the tree, or,
when it has neither, a method of its own whose name holds the dispatched one: ``doExecute`` for ``execute``
under a library base analysis cannot see), or a listing of ``this.name`` in the class or a base of it (then
run by the method its registration names, else by the method a lookup by name calls). Every other candidate
is dropped: a class with a name nothing gathers, or a table of handlers nothing serves, is no tool.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.backend.engines.static.facts import FileFacts, ToolDef


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
    out: list[ToolDef] = []
    for tool in defined:
        source = tool.source
        if source is None or source.kind != "listed":
            out.append(tool)
            continue
        if source.ref not in gathered:
            continue
        chain = _ancestry(source.ref, bases)
        function = _served_function(chain, methods, dispatched, listing)
        if function is not None:
            out.append(tool.model_copy(update={"source": None, "function": function}))
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
