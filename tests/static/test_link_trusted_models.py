"""The linker builds the bundle's tools, actions, their tool paths, taint flows, gates and model uses
without validation (``pyast.models.trusted``); each must be exactly what the validating constructor
would build from the same values: same fields in the same order, same types, same fields set, equal,
and serialised the same."""

from __future__ import annotations

from pathlib import Path

from trusted_check import assert_as_validated, models_in

from assay.backend.engines.static.scan import scan_tree

ROOT = Path(__file__).parents[2]
TREES = sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir())


def test_every_linked_model_is_as_validated() -> None:
    kinds: set[str] = set()
    for tree in TREES:
        bundle = scan_tree(tree)
        for part in (bundle.tools, bundle.actions, bundle.taintFlows, bundle.gates, bundle.models):
            for model in models_in(part):
                assert_as_validated(model)
                kinds.add(type(model).__name__)
    assert {"Tool", "Action", "ToolPath", "TaintFlow", "Gate", "ModelUse"} <= kinds
