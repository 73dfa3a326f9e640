"""Message classes offered to a model by registration (``pyast/message_tools.py``), joined once every file is
read: a class is a tool when some registration names it (directly, or in the list a registered method
returns, ``self.register_tools()`` of any class overriding it), run by the agent's method named after the
tool (or that name with a handler suffix, ``_async``) that takes the class, else by the class's own handler.
A class nobody registers is no tool; registrations and handlers are not tools themselves."""

from __future__ import annotations

from collections.abc import Sequence

from assay.backend.engines.static.facts import FileFacts, ToolDef
from assay.backend.engines.static.pyast.message_tools import METHOD_RESULT
from assay.backend.engines.static.rules.pack import RulePack


def join_messages(defined: Sequence[ToolDef], files: Sequence[FileFacts], rules: RulePack) -> list[ToolDef]:
    """``defined`` with each registered message class a tool and every other message fact dropped."""
    spec = next((r.match for r in rules.rules if r.kind == "tool" and "message_classes" in r.match), None)
    if spec is None:
        return list(defined)
    rule_ids = {r.id for r in rules.rules if r.kind == "tool" and "message_classes" in r.match}
    facts = [t for t in defined if t.ruleId in rule_ids and (t.candidate or t.ref is not None)]
    if not facts:
        return list(defined)
    classes = {t.binding: t for t in facts if t.candidate and t.binding is not None}
    by_name: dict[str, list[str]] = {}
    for binding in classes:
        by_name.setdefault(binding.rsplit("#", 1)[-1], []).append(binding)

    def find(ref: str) -> str | None:
        """The class a reference names: the same module and class, else the only class of that name (a
        module the importer spells otherwise, ``from .tools import X``)."""
        if ref in classes:
            return ref
        named = by_name.get(ref.rsplit("#", 1)[-1], [])
        return named[0] if len(named) == 1 else None

    registered: set[str] = set()
    handlers: dict[str, dict[str, str | None]] = {}
    for fact in facts:
        ref = fact.ref
        if ref is None:
            continue
        if fact.listed and ref.startswith(METHOD_RESULT):
            method = ref[len(METHOD_RESULT) :]
            for names in (v for f in files for k, v in f.lists.items() if k.endswith(f".{method}")):
                for name in names:
                    module, _, cls = name.rpartition(".")
                    if (found := find(f"{module}#{cls}")) is not None:
                        registered.add(found)
        elif fact.listed:
            if (found := find(ref)) is not None:
                registered.add(found)
        elif fact.refName and (found := find(ref)) is not None:
            handlers.setdefault(found, {})[fact.name] = fact.function
    suffixes = spec["message_registrations"]["handler_suffixes"] if "message_registrations" in spec else [""]
    # By identity: a tool equal to a message fact is one (``facts`` is a filter on the tools' own fields),
    # and comparing models field by field against every fact cost the linker more than the rest of this.
    fact_ids = {id(t) for t in facts}
    out = [t for t in defined if id(t) not in fact_ids]
    for binding, tool in classes.items():
        if binding not in registered:
            continue
        methods = handlers.get(binding, {})
        function = next((methods[f"{tool.name}{s}"] for s in suffixes if f"{tool.name}{s}" in methods), tool.function)
        out.append(tool.model_copy(update={"candidate": False, "binding": None, "function": function}))
    return out
