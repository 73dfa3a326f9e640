"""The JS/TS analyzer's facts for the corner cases of ``js_walk_cases``, byte for byte.

The snapshots were written by the analyzer before its walk was made faster, so they pin that speed
work (and any later restructuring of the walk) to exactly the facts it produced. When the facts are
meant to change, regenerate them and review the diff:

    cd tests/static && python test_js_walk_snapshots.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from js_walk_cases import CASES

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.jsts.frontend import JsLanguage, analyze_javascript
from assay.backend.engines.static.rules.pack import load_rule_pack

SNAPSHOTS = Path(__file__).parent / "js_walk_snapshots.json"


def _language(path: str) -> JsLanguage:
    if path.endswith(".tsx"):
        return "tsx"
    return "typescript" if path.endswith(".ts") else "javascript"


def _facts(path: str) -> dict[str, Any]:
    source = CASES[path].encode("utf-8")
    facts = analyze_javascript(path, source, digest_bytes(source), _language(path), load_rule_pack())
    result: dict[str, Any] = json.loads(facts.model_dump_json())
    return result


@pytest.mark.parametrize("path", sorted(CASES))
def test_facts_match_the_snapshot(path: str) -> None:
    expected = json.loads(SNAPSHOTS.read_text(encoding="utf-8"))
    assert _facts(path) == expected[path]


def test_every_case_has_a_snapshot() -> None:
    assert sorted(json.loads(SNAPSHOTS.read_text(encoding="utf-8"))) == sorted(CASES)


if __name__ == "__main__":
    snapshot = {path: _facts(path) for path in sorted(CASES)}
    SNAPSHOTS.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n", encoding="utf-8")
