"""The passport checked by real peers: DSSE with securesystemslib, the AI-BOM with cyclonedx-python-lib's
CycloneDX 1.6 validator; and what it vouches for: the exact tree assessed, dirty or clean."""

from __future__ import annotations

import base64
import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey
from tests.reports.report_systems import EXAMPLE_NAMES, EXAMPLES, write_wide_system

from assay.backend.canonical import canonical_bytes
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import EvidenceMembership, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.passport.ai_bom import serial_number
from assay.backend.passport.dsse import sign_envelope
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import build_statement

WHEN = "2026-11-24T15:43:29Z"


def _statement(bundle: dict[str, Any], name: str = "Ops agent") -> tuple[EvidenceMembership, dict[str, Any]]:
    membership = make_membership([static_bundle_item(bundle)])
    payload = evaluate(membership, ai_system_id="sys-x", jurisdiction=None)
    statement = build_statement("eval-x", "sys-x", payload, membership, evaluated_at=WHEN, system_name=name)
    return membership, statement


def _verify_with_securesystemslib(envelope: dict[str, Any], jwks: dict[str, Any]) -> dict[str, Any]:
    keys = [
        SSlibKey(jwk["kid"], "ed25519", "ed25519", {"public": base64.urlsafe_b64decode(jwk["x"] + "==").hex()})
        for jwk in jwks["keys"]
    ]
    verified = Envelope.from_dict(copy.deepcopy(envelope)).verify(keys, 1)
    assert len(verified) == 1
    return json.loads(base64.b64decode(envelope["payload"]))


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_dsse_envelope_verifies_with_securesystemslib(name: str, tmp_path: Path) -> None:
    _, statement = _statement(scan_tree(EXAMPLES / name).to_json_dict())
    store = KeyStore(tmp_path / "keys")
    envelope = sign_envelope(canonical_bytes(statement), store.active())
    assert _verify_with_securesystemslib(envelope, store.jwks()) == statement
    tampered = copy.deepcopy(envelope)
    tampered["payload"] = base64.b64encode(canonical_bytes({**statement, "subject": []})).decode()
    with pytest.raises(VerificationError):
        _verify_with_securesystemslib(tampered, store.jwks())


def _validate_cyclonedx(bom: dict[str, Any]) -> None:
    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(bom))
    assert error is None, error


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_ai_bom_is_valid_cyclonedx_1_6(name: str) -> None:
    _, statement = _statement(scan_tree(EXAMPLES / name).to_json_dict())
    _validate_cyclonedx(statement["predicate"]["aiBom"])


def test_ai_bom_of_a_60_tool_system_is_valid_and_chains_model_tool_action(tmp_path: Path) -> None:
    bundle = scan_tree(write_wide_system(tmp_path)).to_json_dict()
    _, statement = _statement(bundle, "Wide agent")
    bom = statement["predicate"]["aiBom"]
    _validate_cyclonedx(bom)
    assert bom["metadata"]["component"] == {"type": "application", "bom-ref": "ai-system:sys-x", "name": "Wide agent"}
    assert bom["metadata"]["timestamp"] == WHEN
    assert [t["name"] for t in bom["metadata"]["tools"]["components"]] == ["assay-static"]
    assert re.fullmatch(
        r"urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", bom["serialNumber"]
    )
    depends = {d["ref"]: d["dependsOn"] for d in bom["dependencies"]}
    tools = [c["bom-ref"] for c in bom["components"] if c["bom-ref"].startswith("tool:")]
    assert len(tools) == 60
    # Every tool depends on the action it reaches, and every action is a service in the BOM.
    actions = {s["bom-ref"] for s in bom["services"]}
    for tool in tools:
        assert depends[tool] and set(depends[tool]) <= actions
    assert set(depends["ai-system:sys-x"]) == set(tools)  # no model call in this tree: the system holds the tools


def test_ai_bom_names_models_by_their_id_and_falls_back_to_the_api(tmp_path: Path) -> None:
    bundle = scan_tree(EXAMPLES / "ops-agent").to_json_dict()
    assert bundle["models"], "the example calls a model"
    named = copy.deepcopy(bundle)
    named["models"][0]["model"] = "gpt-4.1-mini"
    for source, expected in (
        (bundle, bundle["models"][0]["model"] or bundle["models"][0]["api"]),
        (named, "gpt-4.1-mini"),
    ):
        _, statement = _statement(source)
        bom = statement["predicate"]["aiBom"]
        _validate_cyclonedx(bom)
        models = [c for c in bom["components"] if c["type"] == "machine-learning-model"]
        assert expected in {m["name"] for m in models}
        depends = {d["ref"]: d["dependsOn"] for d in bom["dependencies"]}
        assert set(depends["ai-system:sys-x"]) == {m["bom-ref"] for m in models}
        for model in models:  # model -> tools
            assert depends[model["bom-ref"]] == sorted(
                c["bom-ref"] for c in bom["components"] if c["type"] == "application"
            )


def test_serial_number_is_derived_from_the_evaluation() -> None:
    assert serial_number("e1", "sha256:aa") == serial_number("e1", "sha256:aa") != serial_number("e2", "sha256:aa")


def _with_source(dirty: bool | str) -> dict[str, Any]:
    bundle = scan_tree(EXAMPLES / "ops-agent").to_json_dict()
    bundle["sourceIdentity"].update(
        {"gitRemote": "https://example.com/ops.git", "gitCommit": "a" * 40, "branch": "main", "dirty": dirty}
    )
    return bundle


def test_dirty_workspace_passport_vouches_for_the_tree_not_the_commit() -> None:
    bundle = _with_source(True)
    _, statement = _statement(bundle)
    names = {s["name"]: s["digest"] for s in statement["subject"]}
    assert "git-commit:https://example.com/ops.git" not in names
    tree = names["source-tree:https://example.com/ops.git"]
    assert tree == {"sha256": bundle["sourceIdentity"]["workspaceDigest"].removeprefix("sha256:")}
    source = statement["predicate"]["source"]
    assert source["dirty"] is True and "DIRTY" in source["statement"] and "not for any commit" in source["statement"]
    assert source["trees"][0]["commit"] == "a" * 40 and source["trees"][0]["branch"] == "main"
    assert statement["predicate"]["evaluation"]["evaluatedAt"] == WHEN


def test_clean_workspace_passport_names_the_commit_and_the_tree() -> None:
    _, statement = _statement(_with_source(False))
    names = {s["name"]: s["digest"] for s in statement["subject"]}
    assert names["git-commit:https://example.com/ops.git"] == {"gitCommit": "a" * 40}
    assert "source-tree:https://example.com/ops.git" in names
    assert statement["predicate"]["source"]["dirty"] is False
