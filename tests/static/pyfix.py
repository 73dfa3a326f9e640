"""Helpers for analyzer tests: analyse and link small in-memory source trees."""

from __future__ import annotations

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.jsts.frontend import analyze_javascript
from assay.backend.engines.static.link import Linked, link
from assay.backend.engines.static.pyast.frontend import analyze_python
from assay.backend.engines.static.rules.pack import load_rule_pack


def analyse(files: dict[str, str]) -> Linked:
    rules = load_rule_pack()
    facts = []
    for path, text in sorted(files.items()):
        data = text.encode()
        if path.endswith(".py"):
            facts.append(analyze_python(path, data, digest_bytes(data), rules))
        else:
            language = "tsx" if path.endswith(".tsx") else ("typescript" if path.endswith(".ts") else "javascript")
            facts.append(analyze_javascript(path, data, digest_bytes(data), language, rules))
    return link(facts, rules)


def tools(linked: Linked) -> set[tuple[str, str]]:
    return {(t.name, t.framework) for t in linked.tools}


def actions(linked: Linked) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in linked.actions}


def gate_kinds(linked: Linked, action_class: str) -> set[str]:
    kinds = {g.id: g.kind for g in linked.gates}
    return {kinds[g] for a in linked.actions if a.actionClass == action_class for g in a.gateIds}
