"""The ``sarif`` adapter: SARIF 2.1.0 logs of other static analysers (Semgrep, CodeQL, Bandit, Ruff...).

A log is validated against the official SARIF 2.1.0 JSON schema (OASIS errata 01, vendored beside this
module as ``sarif-schema-2.1.0.json``), then each result of each run becomes one record (docs/intake.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from assay.backend.errors import ApiError
from assay.backend.intake.adapters.spec import AdapterSpec

Normalized = tuple[str | None, dict[str, Any]]
SCHEMA_PATH = Path(__file__).with_name("sarif-schema-2.1.0.json")
_MAX_REPORTED = 3

SPEC = AdapterSpec(
    id="sarif",
    version="1.0.0",
    producer_id="sarif-import",
    routes={"sarif": "sarif"},
    evidence_classes=("static.finding",),
    can_establish=("FINDING",),
    cannot_establish=("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "OBSERVED"),
    coverage_semantics={
        "unit": "one result of a run of another static analyser",
        "observes": "what that analyser reported, with its rule ids and locations",
        "absence": "not evidence: a file or rule the analyser did not cover has no results",
        "ordering": "none",
    },
    limitations=({"code": "third-party", "detail": "Results are the other analyser's; Assay does not re-check them."},),
)


@cache
def validator() -> Any:
    # Imported on first use: jsonschema's import is costly (it compiles format grammars).
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


@cache
def _schema_names() -> frozenset[str]:
    """Every member name the schema defines: the only names an error message may show."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            names.update(k for k in node.get("properties", {}) if isinstance(node.get("properties"), dict))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    return frozenset(names)


def _path(parts: Any) -> str:
    # Member names outside the schema's (property bags, fingerprint maps) are the submitter's: not echoed.
    shown = [str(p) if isinstance(p, int) or p in _schema_names() else "*" for p in parts]
    return "/".join(shown) or "(root)"


def validate(document: Any) -> None:
    """400 INVALID_REQUEST unless ``document`` is a SARIF 2.1.0 log, naming the first errors' paths."""
    errors = sorted(validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        where = "; ".join(
            f"{_path(e.absolute_path)}: {e.validator} {e.validator_value!r}"[:200] for e in errors[:_MAX_REPORTED]
        )
        raise ApiError("INVALID_REQUEST", f"The body is not a valid SARIF 2.1.0 log: {where}.")


def _location(location: dict[str, Any]) -> dict[str, Any]:
    physical = location.get("physicalLocation", {})
    region = physical.get("region", {})
    return {
        "uri": physical.get("artifactLocation", {}).get("uri"),
        "startLine": region.get("startLine"),
        "startColumn": region.get("startColumn"),
        "endLine": region.get("endLine"),
        "endColumn": region.get("endColumn"),
    }


def sarif_records(document: dict[str, Any]) -> Iterator[Normalized]:
    """One record per result, in run and result order; a result's ``guid`` is its event id."""
    for run in document.get("runs", []):
        driver = run.get("tool", {}).get("driver", {})
        tool = {"name": driver.get("name"), "version": driver.get("semanticVersion") or driver.get("version")}
        rules = driver.get("rules", [])
        for result in run.get("results") or []:
            rule_id = result.get("ruleId")
            index = result.get("ruleIndex")
            rule: dict[str, Any] = {}
            if isinstance(index, int) and 0 <= index < len(rules):
                rule = rules[index]
            elif rule_id is not None:
                rule = next((r for r in rules if r.get("id") == rule_id), {})
            if rule_id is None:
                rule_id = rule.get("id")
            kind = result.get("kind", "fail")
            # SARIF 3.27.10: the result's level, else its rule's default, else warning (none unless a failure).
            level = result.get("level") or (rule.get("defaultConfiguration") or {}).get("level")
            message = result.get("message", {})
            record = {
                "kind": "sarifResult",
                "tool": tool,
                "ruleId": rule_id,
                "level": level or ("warning" if kind == "fail" else "none"),
                "resultKind": kind,
                "message": message.get("text", message.get("id")),
                "locations": [_location(loc) for loc in result.get("locations", [])],
                "partialFingerprints": result.get("partialFingerprints", {}),
                "fingerprints": result.get("fingerprints", {}),
            }
            yield result.get("guid"), record
