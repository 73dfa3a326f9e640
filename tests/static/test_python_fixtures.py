"""Python fixtures under fixtures/python/, whose comments say what analysis must find on each line:
``# gates: kind ...`` (or ``-``) on every action, ``# frontier: kind`` on every frontier item."""

from __future__ import annotations

import re
from pathlib import Path

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.link import Linked, link
from assay.backend.engines.static.pyast.frontend import analyze_python
from assay.backend.engines.static.rules.pack import load_rule_pack

FIXTURES = Path(__file__).parent / "fixtures" / "python"


def _link(root: Path, names: list[str]) -> Linked:
    rules = load_rule_pack()
    facts = []
    for name in names:
        data = (root / name).read_bytes()
        facts.append(analyze_python(name, data, digest_bytes(data), rules))
    return link(facts, rules)


def _markers(path: Path, key: str) -> dict[int, str]:
    pattern = re.compile(rf"#\s*{key}:\s*(.+)$")
    out = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        found = pattern.search(line)
        if found:
            out[number] = found.group(1).strip()
    return out


def test_gate_dominance_per_action() -> None:
    linked = _link(FIXTURES, ["gates.py"])
    kinds = {g.id: g.kind for g in linked.gates}
    found = {a.location.line: " ".join(sorted(kinds[g] for g in a.gateIds)) or "-" for a in linked.actions}
    expected = {line: " ".join(sorted(text.split())) for line, text in _markers(FIXTURES / "gates.py", "gates").items()}
    assert found == expected


def test_frontier_items_and_no_flood() -> None:
    linked = _link(FIXTURES, ["frontier.py"])
    found = sorted((f.location.line if f.location else 0, f.kind) for f in linked.frontier)
    expected = sorted((line, kind) for line, kind in _markers(FIXTURES / "frontier.py", "frontier").items())
    assert found == expected


PROJECT = FIXTURES / "project"
PROJECT_FILES = ["pkg/__init__.py", "pkg/helpers.py", "pkg/planner.py", "pkg/tools.py"]


def test_project_reach_gates_and_taint() -> None:
    linked = _link(PROJECT, PROJECT_FILES)
    tools = {t.id: t.name for t in linked.tools}
    gates = {g.id: g.kind for g in linked.gates}
    reach = {
        (a.actionClass, f"{a.location.path}:{a.location.line}"): sorted(
            (tools[p.toolId], tuple(f"{c.path}:{c.line}" for c in p.calls), tuple(gates[g] for g in p.gateIds))
            for p in a.reachedFrom
        )
        for a in linked.actions
    }
    assert reach == {
        ("shell.exec", "pkg/helpers.py:11"): [("run", ("pkg/tools.py:13", "pkg/helpers.py:7"), ())],
        ("file.delete", "pkg/helpers.py:15"): [
            ("approved_cleanup", ("pkg/tools.py:21",), ("human_approval",)),
            ("cleanup", ("pkg/tools.py:28",), ()),
        ],
        ("shell.exec", "pkg/planner.py:17"): [],
        ("shell.exec", "pkg/planner.py:18"): [],
    }
    # Gated on one path only: not a gate of the action.
    assert all(a.gateIds == [] for a in linked.actions)
    flows = sorted(
        (f.sourceKind, f"{f.source.path}:{f.source.line}", f"{f.sink.path}:{f.sink.line}", f.ruleId)
        for f in linked.taintFlows
    )
    assert flows == [
        ("model_output", "pkg/planner.py:12", "pkg/planner.py:17", "TAINT-EXEC-001"),
        ("tool_argument", "pkg/tools.py:11", "pkg/helpers.py:11", "TAINT-EXEC-001"),
        ("tool_argument", "pkg/tools.py:17", "pkg/helpers.py:15", "TAINT-ACTION-001"),
        ("tool_argument", "pkg/tools.py:26", "pkg/helpers.py:15", "TAINT-ACTION-001"),
    ]
    assert [(m.provider, m.api, m.location.line) for m in linked.models] == [
        ("openai", "openai.OpenAI.chat.completions.create", 12)
    ]


def test_project_is_deterministic() -> None:
    first = _link(PROJECT, PROJECT_FILES).model_dump_json()
    assert _link(PROJECT, list(reversed(PROJECT_FILES))).model_dump_json() == first
