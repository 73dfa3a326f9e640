"""Facts the Python analyzer builds without validation (``pyast.models.trusted``) are exactly what the
validating constructors build: every field given in declaration order, each value of the type
validation would give it, so the models compare, hash and serialise the same."""

from __future__ import annotations

from pathlib import Path

from trusted_check import assert_as_validated, models_in

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.facts import CallFact, FileFacts
from assay.backend.engines.static.pyast.frontend import analyze_python
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.pack import load_rule_pack
from assay.backend.scans.bundle import Location

ROOT = Path(__file__).parents[2]


def test_trusted_is_the_constructor() -> None:
    location = trusted(Location, path="a.py", line=3, column=5, endLine=4)
    assert_as_validated(location)
    assert_as_validated(trusted(CallFact, location=location, callee="m.f", resolved=True, dominatingGates=[], args=[]))


def test_every_fact_of_the_examples_and_fixtures_is_as_validated() -> None:
    rules = load_rule_pack()
    paths = sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "tests/static/fixtures").rglob("*.py"))
    assert paths
    kinds: set[str] = set()
    for path in paths:
        data = path.read_bytes()
        facts: FileFacts = analyze_python(path.relative_to(ROOT).as_posix(), data, digest_bytes(data), rules)
        for model in models_in(facts):
            assert_as_validated(model)
            kinds.add(type(model).__name__)
    # The models ``trusted`` builds are all among those checked.
    assert {
        "Location",
        "CallFact",
        "ArgTaint",
        "ActionSite",
        "GateSite",
        "FunctionFacts",
        "ModelSite",
        "TaintOrigin",
        "ToolDef",
    } <= kinds
