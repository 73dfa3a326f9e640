"""Gates that hold only where they dominate (issue 13): path containment by a helper's name or by a
prefix check (``resolved.startsWith(root)``, ``relative.startsWith("..")`` failing), validators that
throw unless their check passes, summarised across calls and files (what holds whenever the function
returns holds after each call to it), and allowlists on model-chosen values: a literal prefix, a
regular expression's ``test``, a ``!==`` comparison. A validator with a path that returns before its
check gates nothing."""

from __future__ import annotations

from jsfix import FIXTURES, gates_of_tool_actions

from assay.backend.engines.static.scan import scan_tree


def test_validators_gate_what_follows_their_calls_only_when_every_return_passes_the_check() -> None:
    bundle = scan_tree(FIXTURES / "validators")
    gated = gates_of_tool_actions(bundle)
    containment = ("path_containment", "paths.ts", 12)  # isPathWithinRoot(...) by name
    prefix = ("path_containment", "paths.ts", 21)  # resolved.startsWith(ROOT + sep)
    assert gated == {
        ("read", "file.read", 12): [containment],
        ("remove", "file.delete", 16): [prefix],  # the validator runs before the action it wraps
        ("remove", "file.delete", 18): [prefix],
        ("weak", "file.delete", 24): [],  # maybeValid returns before its check on one path
        ("query", "shell.exec", 33): [("allowlist", "server.ts", 29), ("allowlist", "server.ts", 32)],
        ("ls", "shell.exec", 39): [("allowlist", "server.ts", 38)],
    }
    assert all(not g.startswith("after:") for a in bundle.actions for g in a.gateIds)
