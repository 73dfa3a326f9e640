"""The passport's statement: in-toto subjects, the predicate's parts, the CycloneDX AI-BOM, determinism."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from assay.backend.canonical import canonical_bytes, digest_json
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.passport.dsse import sign_envelope
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import DIGESTED_PARTS, PREDICATE_TYPE, STATEMENT_TYPE, build_statement

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# CycloneDX 1.6 component.type enumeration (bom-1.6.schema.json, definitions.component.properties.type).
CYCLONEDX_16_TYPES = {
    "application", "framework", "library", "container", "platform", "operating-system", "device",
    "device-driver", "firmware", "file", "machine-learning-model", "data", "cryptographic-asset",
}  # fmt: skip


@pytest.mark.parametrize("name", ["ops-agent", "support-agent-ts", "research-assistant"])
def test_statement_shape_for_each_example(name: str) -> None:
    membership = make_membership([static_bundle_item(scan_tree(EXAMPLES / name).to_json_dict())])
    payload = evaluate(membership, ai_system_id="sys-x", jurisdiction=None)
    statement = build_statement("eval-x", "sys-x", payload, membership)

    assert set(statement) == {"_type", "subject", "predicateType", "predicate"}
    assert (statement["_type"], statement["predicateType"]) == (STATEMENT_TYPE, PREDICATE_TYPE)
    subjects = {s["name"]: s["digest"] for s in statement["subject"]}
    for item, _ in membership.bundles():
        assert subjects[f"evidence:{item.evidenceId}"] == {"sha256": item.contentDigest.removeprefix("sha256:")}
    for subject_name, digest in subjects.items():
        (algorithm, value), *rest = digest.items()
        assert not rest
        pattern = r"[0-9a-f]{64}" if algorithm == "sha256" else r"[0-9a-f]{40}"
        assert algorithm in {"sha256", "gitCommit"} and re.fullmatch(pattern, value), subject_name

    predicate = statement["predicate"]
    assert set(predicate) == {*DIGESTED_PARTS, "digests"}
    assert predicate["digests"] == {part: digest_json(predicate[part]) for part in DIGESTED_PARTS}
    assert predicate["evaluation"] == {
        "evaluationId": "eval-x",
        "aiSystemId": "sys-x",
        "systemName": None,
        "evaluatedAt": None,
        "disposition": payload.disposition,
        "methodologyVersion": payload.data["methodologyVersion"],
        "coreTruthDigest": payload.core_truth_digest,
        "evidenceBundleDigest": payload.evidence_bundle_digest,
    }

    bom = predicate["aiBom"]
    assert (bom["bomFormat"], bom["specVersion"]) == ("CycloneDX", "1.6")
    refs = [c["bom-ref"] for c in bom["components"]]
    assert refs == sorted(set(refs))  # unique and in a stable order
    assert all(c["type"] in CYCLONEDX_16_TYPES and c["name"] for c in bom["components"])
    assert any(c["type"] == "machine-learning-model" for c in bom["components"])
    tools = {t.name for _, bundle in membership.bundles() for t in bundle.tools}
    assert {c["name"] for c in bom["components"] if c["bom-ref"].startswith("tool:")} == tools


def test_the_same_evaluation_and_key_give_the_same_passport_bytes(statement: dict[str, Any], store: KeyStore) -> None:
    # Ed25519 signatures are deterministic and the payload is canonical JSON: a passport fetched twice
    # is byte-identical, so it can itself be digested and pinned.
    first = sign_envelope(canonical_bytes(statement), store.active())
    again = sign_envelope(canonical_bytes(dict(reversed(list(statement.items())))), KeyStore(store.directory).active())
    assert canonical_bytes(first) == canonical_bytes(again)
