"""The JS/TS analyzer builds its most frequent facts (locations, calls and their argument taints,
actions, functions) without validation (``pyast.models.trusted``); each must be exactly what the
validating constructor would build from the same values: same fields in the same order, same types,
same fields set, equal, and serialised the same."""

from __future__ import annotations

import pytest
from js_walk_cases import CASES
from jsfix import FIXTURES, facts_of
from trusted_check import assert_as_validated, models_in

from assay.backend.engines.static.facts import FileFacts


def _all_facts() -> list[FileFacts]:
    facts = [facts_of(path, source.encode("utf-8")) for path, source in sorted(CASES.items())]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"):
            facts.append(facts_of(path.relative_to(FIXTURES).as_posix(), path.read_bytes()))
    return facts


@pytest.mark.parametrize("facts", _all_facts(), ids=lambda f: f.path)
def test_every_model_is_as_validated(facts: FileFacts) -> None:
    models = models_in(facts)
    assert len(models) > 1
    for model in models:
        assert_as_validated(model)
