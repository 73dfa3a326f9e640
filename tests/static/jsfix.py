"""Helpers for the JS/TS analyzer tests: run ``analyze_javascript`` on fixture files and read the
expectations written next to the code as trailing comments:

    exec(cmd); // action shell.exec gated=human_approval taint=param:cmd
    if (!(await requireApproval(cmd))) { // gate human_approval
    await client.responses.create({...}); // model openai
    handlers[name](args); // frontier dynamic_dispatch
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.facts import AFTER, ANSWER, NEVER, PRESENT, RESULT, FileFacts
from assay.backend.engines.static.jsts.frontend import JsLanguage, analyze_javascript
from assay.backend.engines.static.rules.pack import load_rule_pack
from assay.backend.scans.bundle import EvidenceBundle

FIXTURES = Path(__file__).parent / "fixtures" / "js"
_MARK = re.compile(r"//\s*(action|gate|model|frontier)\b([^/]*)")


def language_of(path: str) -> JsLanguage:
    if path.endswith(".tsx"):
        return "tsx"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


def facts_of(path: str, source: bytes) -> FileFacts:
    return analyze_javascript(path, source, digest_bytes(source), language_of(path), load_rule_pack())


def fixture(name: str, as_path: str | None = None) -> FileFacts:
    """Analyse ``fixtures/js/<name>`` as if it sat at ``as_path`` (default: ``name``) in a tree."""
    return facts_of(as_path or name, (FIXTURES / name).read_bytes())


@dataclass
class Expected:
    actions: set[tuple[str, int]] = field(default_factory=set)
    gated: set[tuple[str, int, frozenset[str]]] = field(default_factory=set)
    tainted: set[tuple[int, frozenset[str]]] = field(default_factory=set)
    gates: set[tuple[str, int]] = field(default_factory=set)
    models: set[tuple[str, int]] = field(default_factory=set)
    model_lines: set[int] = field(default_factory=set)
    frontier: set[tuple[str, int]] = field(default_factory=set)


def expected(name: str) -> Expected:
    out = Expected()
    for number, line in enumerate((FIXTURES / name).read_text().splitlines(), start=1):
        for kind, rest in _MARK.findall(line):
            words = rest.split()
            if kind == "action":
                options = dict(w.split("=", 1) for w in words[1:] if "=" in w)
                gated = frozenset(options["gated"].split(",")) if "gated" in options else frozenset()
                taint = frozenset(options["taint"].split(",")) if "taint" in options else frozenset()
                out.actions.add((words[0], number))
                out.gated.add((words[0], number, gated))
                out.tainted.add((number, taint))
            elif kind == "gate":
                out.gates.add((words[0], number))
            elif kind == "model":
                out.model_lines.add(number)
                if words:
                    out.models.add((words[0], number))
            else:
                out.frontier.add((words[0], number))
    return out


def actions(facts: FileFacts) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for f in facts.functions for a in f.actions}


def gated(facts: FileFacts) -> set[tuple[str, int, frozenset[str]]]:
    kinds = {g.id: g.kind for f in facts.functions for g in f.gates}
    return {
        # (``after:<callee>`` and the other prefixed ids stand for gates the linker fills in)
        (
            a.actionClass,
            a.location.line,
            frozenset(kinds[g] for g in a.dominatingGates if not g.startswith((AFTER, NEVER, RESULT, PRESENT, ANSWER))),
        )
        for f in facts.functions
        for a in f.actions
    }


def tainted(facts: FileFacts) -> set[tuple[int, frozenset[str]]]:
    def describe(kind: str, param: str | None) -> str:
        return f"param:{param}" if kind == "param" else kind

    return {
        (a.location.line, frozenset(describe(o.kind, o.param) for o in a.taint))
        for f in facts.functions
        for a in f.actions
    }


def gates(facts: FileFacts) -> set[tuple[str, int]]:
    return {(g.kind, g.location.line) for f in facts.functions for g in f.gates}


def function(facts: FileFacts, qualname: str) -> object:
    found = [f for f in facts.functions if f.qualname == qualname]
    assert found, f"{qualname} not in {[f.qualname for f in facts.functions]}"
    return found[0]


def gates_of_tool_actions(bundle: EvidenceBundle) -> dict[tuple[str, str, int], list[tuple[str, str, int]]]:
    """(tool, action class, line) of each action a tool reaches -> its gates as (kind, path, line)."""
    kinds = {g.id: (g.kind, g.location.path, g.location.line) for g in bundle.gates}
    names = {t.id: t.name for t in bundle.tools}
    return {
        (names[a.reachedFrom[0].toolId], a.actionClass, a.location.line): sorted(kinds[g] for g in a.gateIds)
        for a in bundle.actions
        if a.reachedFrom
    }
