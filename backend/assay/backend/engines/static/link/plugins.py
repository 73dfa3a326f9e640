"""Plugins registered under a name of their own (Semantic Kernel ``kernel.add_plugin(obj, plugin_name="N")``).

The model sees a plugin's functions as ``<plugin>-<function>``. Where the plugin's class is written, the
analyzer names them after the class (``BookingsPlugin-book_table``, what Semantic Kernel does when no name
is given); a registration elsewhere (a ``plugin`` ``ToolSource`` naming the class and the name) renames
them. A class registered under several names keeps its own (the analysis cannot tell which the model
sees); the registration records themselves are no tools.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ToolDef


def plugin_names(tools: Sequence[ToolDef], reexported: Callable[[str], list[str]] | None = None) -> list[ToolDef]:
    """``tools`` with the plugin-qualified tools of each registered class renamed after its registration.
    A class named as a package re-exports it (``from plugins import CvPlugin`` with ``plugins/__init__.py``
    importing it from ``plugins.cv_plugin``) is the class where it is written (``reexported`` gives what a
    re-exported name stands for)."""
    registered: dict[str, set[str]] = {}
    for tool in tools:
        if tool.source is not None and tool.source.kind == "plugin" and tool.source.key:
            for ref in (tool.source.ref, *(reexported(tool.source.ref) if reexported else ())):
                registered.setdefault(ref, set()).add(tool.source.key)
    if not registered:
        return list(tools)
    out: list[ToolDef] = []
    for tool in tools:
        if tool.source is not None and tool.source.kind == "plugin":
            continue
        owner = tool.function.rsplit(".", 1)[0] if tool.function else None
        cls = owner.rsplit(".", 1)[-1] if owner else None
        names = next((n for ref, n in registered.items() if owner and _same_class(owner, ref)), None)
        if cls and names and len(names) == 1 and tool.name.startswith(f"{cls}-"):
            plugin = next(iter(names))
            name = f"{plugin}{tool.name[len(cls) :]}"
            at = tool.location
            tool = tool.model_copy(update={"id": short_id("tool", at.path, at.line, name, tool.ruleId), "name": name})
        out.append(tool)
    return out


def _same_class(owner: str, ref: str) -> bool:
    """The class ``owner`` (where a method is defined) is the one ``ref`` names as another module imports
    it: the same dotted name, or one ends the other on a segment boundary."""
    return owner == ref or owner.endswith(f".{ref}") or ref.endswith(f".{owner}")
