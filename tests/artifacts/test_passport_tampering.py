"""Passport verification: every altered byte, swapped signatures, unknown and malformed keys, and
hostile statements fail with a precise code and message; the format checks out with plain tooling."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from assay.backend.canonical import canonical_bytes, digest_json
from assay.backend.passport.dsse import PAYLOAD_TYPE, pae, sign_envelope
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import DIGESTED_PARTS, PREDICATE_TYPE, STATEMENT_TYPE
from assay.backend.passport.verify import PassportVerificationError, load_key_set, verify_passport

Signer = Callable[[KeyStore, dict[str, Any]], dict[str, Any]]


def _fails(envelope: Any, jwks: Any, code: str, message: str) -> PassportVerificationError:
    with pytest.raises(PassportVerificationError) as err:
        verify_passport(envelope, jwks)
    assert err.value.code == code, err.value.message
    assert message in err.value.message
    return err.value


def test_pae_matches_the_dsse_specification_vector() -> None:
    # The example in the DSSE v1 protocol document.
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )
    assert pae("", b"") == b"DSSEv1 0  0 "
    assert pae("t/\u00e9", b"\x00") == b"DSSEv1 4 t/\xc3\xa9 1 \x00"  # lengths are in bytes, not characters


def test_a_passport_checks_out_with_plain_cryptography_and_jcs(
    passport: dict[str, Any], store: KeyStore, statement: dict[str, Any]
) -> None:
    """What any DSSE/in-toto tool does: PAE, Ed25519 with the JWK's raw key, then recompute digests."""
    jwk = store.jwks()["keys"][0]
    raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
    payload = base64.b64decode(passport["payload"])
    message = b"DSSEv1 %d %s %d %s" % (len(PAYLOAD_TYPE), PAYLOAD_TYPE.encode(), len(payload), payload)
    Ed25519PublicKey.from_public_bytes(raw).verify(base64.b64decode(passport["signatures"][0]["sig"]), message)
    assert passport["signatures"][0]["keyid"] == jwk["kid"]
    decoded = json.loads(payload)
    assert decoded == statement
    assert decoded["_type"] == STATEMENT_TYPE and decoded["predicateType"] == PREDICATE_TYPE
    for part in DIGESTED_PARTS:
        recomputed = "sha256:" + hashlib.sha256(rfc8785.dumps(decoded["predicate"][part])).hexdigest()
        assert decoded["predicate"]["digests"][part] == recomputed


def test_flipping_any_single_payload_byte_fails_naming_the_key(passport: dict[str, Any], store: KeyStore) -> None:
    jwks = store.jwks()
    kid = store.active().kid
    payload = base64.b64decode(passport["payload"])
    for index in range(len(payload)):
        altered = bytearray(payload)
        altered[index] ^= 0x01
        tampered = {**passport, "payload": base64.b64encode(bytes(altered)).decode()}
        with pytest.raises(PassportVerificationError) as err:
            verify_passport(tampered, jwks)
        assert err.value.code == "BAD_SIGNATURE", index
        assert err.value.message == (
            f"signature by key {kid} does not verify: the payload or the signature was altered"
        )


def test_a_flipped_signature_bit_or_a_changed_payload_type_fails(passport: dict[str, Any], store: KeyStore) -> None:
    sig = bytearray(base64.b64decode(passport["signatures"][0]["sig"]))
    sig[10] ^= 0x80
    tampered = copy.deepcopy(passport)
    tampered["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    _fails(tampered, store.jwks(), "BAD_SIGNATURE", "does not verify")
    _fails({**passport, "payloadType": "application/json"}, store.jwks(), "WRONG_PAYLOAD_TYPE", "'application/json'")


def test_a_signature_swapped_for_another_keys_fails(
    passport: dict[str, Any], store: KeyStore, statement: dict[str, Any], sign: Signer, tmp_path: Any
) -> None:
    other = KeyStore(tmp_path / "other")
    swapped = copy.deepcopy(passport)
    swapped["signatures"][0]["sig"] = sign(other, statement)["signatures"][0]["sig"]
    _fails(swapped, store.jwks(), "BAD_SIGNATURE", f"signature by key {store.active().kid} does not verify")
    # The other key's whole signature entry: its key id is not in this key set.
    relabelled = {**passport, "signatures": sign(other, statement)["signatures"]}
    _fails(relabelled, store.jwks(), "UNKNOWN_KEY", f"unknown key id {other.active().kid!r}")


def test_unknown_keys_are_named(passport: dict[str, Any], store: KeyStore, tmp_path: Any) -> None:
    kid = store.active().kid
    _fails(passport, {"keys": []}, "UNKNOWN_KEY", f"unknown key id {kid!r}: it is not in the supplied key set")
    _fails(passport, KeyStore(tmp_path / "other").jwks(), "UNKNOWN_KEY", repr(kid))


def test_a_signature_without_a_key_id_tries_every_supplied_key(
    passport: dict[str, Any], store: KeyStore, tmp_path: Any
) -> None:
    anonymous = copy.deepcopy(passport)
    del anonymous["signatures"][0]["keyid"]
    other = KeyStore(tmp_path / "other").jwks()
    both = {"keys": other["keys"] + store.jwks()["keys"]}
    assert verify_passport(anonymous, both).kid == store.active().kid
    _fails(anonymous, other, "BAD_SIGNATURE", "signatures[0] (no key id): any of the 1 supplied keys")
    _fails(anonymous, {"keys": []}, "UNKNOWN_KEY", "names no key id and the supplied key set is empty")


def test_one_good_signature_among_several_is_enough(
    passport: dict[str, Any], store: KeyStore, statement: dict[str, Any], sign: Signer, tmp_path: Any
) -> None:
    stranger = sign(KeyStore(tmp_path / "stranger"), statement)["signatures"][0]
    multi = {**passport, "signatures": [stranger, *passport["signatures"]]}
    assert verify_passport(multi, store.jwks()).kid == store.active().kid


@pytest.mark.parametrize(
    ("jwks", "message"),
    [
        ([], "not a JWKS"),
        ({"keys": "x"}, "not a JWKS"),
        ({"keys": ["x"]}, "key 0 is not a JSON object"),
        ({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k"}]}, "key 0 ('k') has no base64url 'x' member"),
        ({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "x": "!!"}]}, "'x' is not base64url"),
        ({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k", "x": "AAAA"}]}, "'x' holds 3 bytes"),
        ({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": 7, "x": "A" * 43}]}, "kid that is not a string"),
    ],
)
def test_malformed_key_sets_are_named(passport: dict[str, Any], jwks: Any, message: str) -> None:
    _fails(passport, jwks, "MALFORMED_KEY_SET", message)


def test_key_sets_skip_foreign_keys_and_derive_missing_ids(store: KeyStore) -> None:
    jwk = {k: v for k, v in store.jwks()["keys"][0].items() if k != "kid"}
    rsa = {"kty": "RSA", "n": "AQAB", "e": "AQAB", "kid": "rsa-1"}
    assert list(load_key_set({"keys": [rsa, jwk]})) == [store.active().kid]


@pytest.mark.parametrize(
    ("envelope", "code", "message"),
    [
        ("not an object", "MALFORMED_ENVELOPE", "payloadType, payload and signatures are required"),
        ({"payload": "e30="}, "MALFORMED_ENVELOPE", "payloadType, payload and signatures are required"),
        ({"payloadType": PAYLOAD_TYPE, "payload": 5, "signatures": []}, "MALFORMED_ENVELOPE", "payload is not"),
        ({"payloadType": PAYLOAD_TYPE, "payload": "%%%", "signatures": []}, "BAD_BASE64", "payload is not valid"),
        ({"payloadType": PAYLOAD_TYPE, "payload": "e30=", "signatures": []}, "NO_SIGNATURES", "no signature"),
        ({"payloadType": PAYLOAD_TYPE, "payload": "e30=", "signatures": {}}, "NO_SIGNATURES", "no signature"),
        ({"payloadType": PAYLOAD_TYPE, "payload": "e30=", "signatures": ["x"]}, "MALFORMED_ENVELOPE", "[0] is not"),
        (
            {"payloadType": PAYLOAD_TYPE, "payload": "e30=", "signatures": [{"keyid": ["k"], "sig": "AA=="}]},
            "MALFORMED_ENVELOPE",
            "signatures[0].keyid is not a string",
        ),
        (
            {"payloadType": PAYLOAD_TYPE, "payload": "e30=", "signatures": [{"keyid": "k", "sig": "@"}]},
            "BAD_BASE64",
            "signatures[0].sig is not valid base64",
        ),
    ],
)
def test_malformed_envelopes_are_named(envelope: Any, code: str, message: str, store: KeyStore) -> None:
    _fails(envelope, store.jwks(), code, message)


def _resigned(store: KeyStore, statement: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A statement changed and then signed by the real key: only the statement checks can catch it."""
    forged = copy.deepcopy(statement)
    change(forged)
    return sign_envelope(canonical_bytes(forged), store.active())


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(statement: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = statement
        for name in parents:
            target = target[int(name)] if isinstance(target, list) else target[name]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        (
            _set("_type", "https://in-toto.io/Statement/v0.1"),
            "WRONG_STATEMENT_TYPE",
            "'https://in-toto.io/Statement/v0.1'",
        ),
        (
            _set("predicateType", "https://slsa.dev/provenance/v1"),
            "WRONG_PREDICATE_TYPE",
            "'https://slsa.dev/provenance/v1'",
        ),
        (_set("subject", []), "MALFORMED_STATEMENT", "subject must be a non-empty list"),
        (_set("subject.0", "ai-system"), "MALFORMED_STATEMENT", "subject[0] is not an object with a name"),
        (_set("subject.0.digest", {}), "BAD_SUBJECT_DIGEST", "subject 'ai-system:sys-ops' has no digest set"),
        (_set("subject.0.digest", {"sha256": "ABC"}), "BAD_SUBJECT_DIGEST", "malformed sha256 digest 'ABC'"),
        (_set("subject.1.digest", {"sha256": 12}), "BAD_SUBJECT_DIGEST", "sha256 digest that is not a string"),
        (_set("predicate", []), "MALFORMED_STATEMENT", "predicate is not a JSON object"),
        (_set("predicate.digests", None), "MISSING_PART", "predicate.digests is missing"),
        (
            _set("predicate.evaluation.disposition", "ALLOW"),
            "DIGEST_MISMATCH",
            "digest of predicate.evaluation differs",
        ),
        (_set("predicate.limitations", []), "DIGEST_MISMATCH", "digest of predicate.limitations differs"),
        (_set("predicate.aiBom.components", []), "DIGEST_MISMATCH", "digest of predicate.aiBom differs"),
    ],
)
def test_signed_but_altered_statements_are_named(
    store: KeyStore, statement: dict[str, Any], change: Callable[[dict[str, Any]], None], code: str, message: str
) -> None:
    _fails(_resigned(store, statement, change), store.jwks(), code, message)


def test_a_digest_mismatch_names_recorded_and_recomputed(store: KeyStore, statement: dict[str, Any]) -> None:
    error = _fails(
        _resigned(store, statement, _set("predicate.actions.declared", ["forged"])),
        store.jwks(),
        "DIGEST_MISMATCH",
        "predicate.actions",
    )
    recorded = statement["predicate"]["digests"]["actions"]
    recomputed = digest_json({**statement["predicate"]["actions"], "declared": ["forged"]})
    assert error.message == f"digest of predicate.actions differs: recorded {recorded}, recomputed {recomputed}"


def test_a_missing_predicate_part_is_named(store: KeyStore, statement: dict[str, Any]) -> None:
    def drop(forged: dict[str, Any]) -> None:
        del forged["predicate"]["fourQuestions"]

    _fails(_resigned(store, statement, drop), store.jwks(), "MISSING_PART", "predicate part 'fourQuestions' is missing")


def test_an_unparseable_signed_payload_is_named(store: KeyStore) -> None:
    for raw, message in ((b"\xff\xfe{", "the payload is not JSON"), (b"[]", "the payload is not a JSON object")):
        _fails(sign_envelope(raw, store.active()), store.jwks(), "MALFORMED_STATEMENT", message)
