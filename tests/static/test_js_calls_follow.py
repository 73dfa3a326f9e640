"""Following calls through classes (issue 13): a method called on a module variable declared with a
class type and assigned later (``let notes: Notes``), ``this.field`` set by a constructor parameter
property, and a method called through an interface (``adapter: DbAdapter | null``) reaching the class
that implements it in another file."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree


def test_actions_behind_instances_and_interfaces_are_reached_from_their_tools() -> None:
    bundle = scan_tree(FIXTURES / "interfaces")
    names = {t.id: t.name for t in bundle.tools}
    reached = {
        (a.actionClass, a.location.path, a.location.line, tuple(sorted(names[p.toolId] for p in a.reachedFrom)))
        for a in bundle.actions
    }
    assert reached == {
        ("file.read", "server.ts", 10, ("search",)),
        ("sql.exec", "db/sqlite.ts", 8, ("query",)),
    }
    # The model's SQL reaches the sink through the interface call.
    assert [(f.actionClass, f.sink.path, f.sourceKind) for f in bundle.taintFlows] == [
        ("sql.exec", "db/sqlite.ts", "tool_argument")
    ]


def test_model_sql_executed_verbatim_is_its_own_finding() -> None:
    bundle = scan_tree(FIXTURES / "interfaces")
    (finding,) = [f for f in bundle.findings if f.ruleId == "F-TAINT-SQL"]
    assert "SQL executed verbatim at db/sqlite.ts:8" in finding.message
