"""Validators whose result says whether their check passed (issue 13): ``resolveLocalPath`` returns
``{ ok: true }`` only where its containment check passed, so ``if (!resolution.ok) return`` is that
check at the caller (a path-containment gate there); a validator that says ok before checking proves
nothing. A branch ending in a call to a function typed ``never`` ends there, as after a ``throw``."""

from __future__ import annotations

from jsfix import FIXTURES, gates_of_tool_actions

from assay.backend.engines.static.scan import scan_tree


def test_a_checked_success_flag_and_a_never_returning_call_gate_what_follows() -> None:
    bundle = scan_tree(FIXTURES / "result_checks")
    gated = gates_of_tool_actions(bundle)
    assert gated == {
        ("save", "file.write", 14): [("path_containment", "server.ts", 11)],  # at the flag's check
        ("copy", "file.write", 23): [],  # looseResolve says ok before any check
        ("mkdir", "file.write", 32): [("path_containment", "server.ts", 29)],  # fail() never returns
    }
    assert all(not g.startswith(("after:", "never:", "result:")) for a in bundle.actions for g in a.gateIds)
