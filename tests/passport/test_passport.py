"""Passports: sign, verify offline, and fail precisely when anything is altered."""

from __future__ import annotations

import base64
import copy
import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.backend.canonical import canonical_bytes
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.passport.dsse import sign_envelope
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import build_statement
from assay.backend.passport.verify import PassportVerificationError, verify_passport
from assay.server.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def statement() -> dict[str, Any]:
    membership = make_membership([static_bundle_item(scan_tree(EXAMPLES / "ops-agent").to_json_dict())])
    payload = evaluate(membership, ai_system_id="sys-ops", jurisdiction=None)
    return build_statement("eval-1", "sys-ops", payload, membership)


def _sign(store: KeyStore, statement: dict[str, Any]) -> dict[str, Any]:
    return sign_envelope(canonical_bytes(statement), store.active())


def test_round_trip(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "keys")
    verified = verify_passport(_sign(store, statement), store.jwks())
    assert verified.disposition == "BLOCK"
    assert verified.kid == store.active().kid
    predicate = verified.statement["predicate"]
    assert predicate["aiBom"]["specVersion"] == "1.6"
    assert {s["name"].split(":")[0] for s in verified.statement["subject"]} >= {"ai-system", "evidence"}


def test_private_keys_are_owner_only(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys")
    kid = store.active().kid
    assert stat.S_IMODE((tmp_path / "keys" / f"{kid}.key").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700


def test_any_changed_payload_byte_fails_precisely(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "keys")
    envelope = _sign(store, statement)
    payload = bytearray(base64.b64decode(envelope["payload"]))
    for index in (0, len(payload) // 2, len(payload) - 1):
        altered = bytearray(payload)
        altered[index] ^= 0x01
        tampered = {**envelope, "payload": base64.b64encode(bytes(altered)).decode()}
        with pytest.raises(PassportVerificationError) as err:
            verify_passport(tampered, store.jwks())
        assert err.value.code == "BAD_SIGNATURE"
        assert f"signature by key {store.active().kid} does not verify" in err.value.message


def test_swapped_signature_and_unknown_key(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "a")
    other = KeyStore(tmp_path / "b")
    envelope = _sign(store, statement)
    swapped = copy.deepcopy(envelope)
    swapped["signatures"][0]["sig"] = _sign(other, statement)["signatures"][0]["sig"]
    with pytest.raises(PassportVerificationError, match="does not verify") as err:
        verify_passport(swapped, store.jwks())
    assert err.value.code == "BAD_SIGNATURE"
    with pytest.raises(PassportVerificationError, match="unknown key id") as err:
        verify_passport(envelope, other.jwks())
    assert err.value.code == "UNKNOWN_KEY"
    with pytest.raises(PassportVerificationError, match="unknown key id"):
        verify_passport(envelope, {"keys": []})


def test_a_predicate_digest_that_does_not_recompute_is_named(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "keys")
    forged = copy.deepcopy(statement)
    forged["predicate"]["evaluation"]["disposition"] = "ALLOW"  # signed by the real key, digest left stale
    with pytest.raises(PassportVerificationError, match=r"digest of predicate\.evaluation differs") as err:
        verify_passport(_sign(store, forged), store.jwks())
    assert err.value.code == "DIGEST_MISMATCH"


def test_malformed_envelopes(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "keys")
    envelope = _sign(store, statement)
    cases = [
        ({"payload": "x"}, "MALFORMED_ENVELOPE"),
        ({**envelope, "payloadType": "text/plain"}, "WRONG_PAYLOAD_TYPE"),
        ({**envelope, "payload": "%%%"}, "BAD_BASE64"),
        ({**envelope, "signatures": []}, "NO_SIGNATURES"),
    ]
    for bad, code in cases:
        with pytest.raises(PassportVerificationError) as err:
            verify_passport(bad, store.jwks())
        assert err.value.code == code


def test_rotation_keeps_earlier_passports_verifiable(tmp_path: Path, statement: dict[str, Any]) -> None:
    store = KeyStore(tmp_path / "keys")
    old = _sign(store, statement)
    new_key = store.rotate()
    assert new_key.kid != old["signatures"][0]["keyid"]
    jwks = store.jwks()
    assert jwks["keys"][0]["kid"] == new_key.kid and len(jwks["keys"]) == 2
    verify_passport(old, jwks)
    verify_passport(_sign(store, statement), jwks)


def test_cli_verify_in_process_and_as_a_subprocess(
    tmp_path: Path, statement: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    store = KeyStore(tmp_path / "keys")
    passport = tmp_path / "passport.json"
    passport.write_text(json.dumps(_sign(store, statement)))
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(store.jwks()))
    assert main(["passport", "verify", str(passport), "--jwks", str(jwks)]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED" in out and "disposition: BLOCK" in out

    tampered = json.loads(passport.read_text())
    tampered["signatures"][0]["sig"] = _sign(KeyStore(tmp_path / "other"), statement)["signatures"][0]["sig"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    done = subprocess.run(
        [sys.executable, "-m", "assay.server.cli", "passport", "verify", str(bad), "--jwks", str(jwks)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "NOT VERIFIED (BAD_SIGNATURE)" in done.stdout
    assert main(["passport", "verify", str(passport)]) == 2
