"""Offline passport verification: envelope, signature against a JWKS, statement, recomputed digests.

Every failure is a ``PassportVerificationError`` with a stable ``code`` (branch on it) and a message that
names exactly what failed. Nothing in an envelope or a key set, however malformed, escapes as another
exception: a verifier reads untrusted files.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from assay.backend.canonical import digest_json
from assay.backend.passport.dsse import PAYLOAD_TYPE, pae
from assay.backend.passport.keys import key_id
from assay.backend.passport.statement import DIGESTED_PARTS, OPTIONAL_DIGESTED_PARTS, PREDICATE_TYPE, STATEMENT_TYPE

VerificationCode = Literal[
    "MALFORMED_KEY_SET",
    "MALFORMED_ENVELOPE",
    "WRONG_PAYLOAD_TYPE",
    "BAD_BASE64",
    "NO_SIGNATURES",
    "UNKNOWN_KEY",
    "BAD_SIGNATURE",
    "MALFORMED_STATEMENT",
    "WRONG_STATEMENT_TYPE",
    "WRONG_PREDICATE_TYPE",
    "BAD_SUBJECT_DIGEST",
    "MISSING_PART",
    "DIGEST_MISMATCH",
]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_ED25519_RAW = 32


class PassportVerificationError(Exception):
    """A passport (or the key set given to check it) failed verification; ``code`` says which check."""

    def __init__(self, code: VerificationCode, message: str) -> None:
        super().__init__(message)
        self.code: VerificationCode = code
        self.message = message


@dataclass(frozen=True, slots=True)
class VerifiedPassport:
    kid: str
    statement: dict[str, Any]

    @property
    def disposition(self) -> str | None:
        value = self._evaluation().get("disposition")
        return str(value) if value is not None else None

    @property
    def evaluation_id(self) -> str | None:
        value = self._evaluation().get("evaluationId")
        return str(value) if value is not None else None

    def _evaluation(self) -> dict[str, Any]:
        evaluation = self.statement["predicate"].get("evaluation")
        return evaluation if isinstance(evaluation, dict) else {}


def _b64decode(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise PassportVerificationError("MALFORMED_ENVELOPE", f"{what} is not a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PassportVerificationError("BAD_BASE64", f"{what} is not valid base64: {exc}") from exc


def _jwk_public(jwk: dict[str, Any], index: int) -> Ed25519PublicKey:
    x = jwk.get("x")
    name = f"key {index}" + (f" ({jwk['kid']!r})" if "kid" in jwk else "")
    if not isinstance(x, str):
        raise PassportVerificationError("MALFORMED_KEY_SET", f"{name} has no base64url 'x' member")
    try:
        raw = base64.b64decode(x + "=" * (-len(x) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PassportVerificationError("MALFORMED_KEY_SET", f"{name}: 'x' is not base64url: {exc}") from exc
    if len(raw) != _ED25519_RAW:
        raise PassportVerificationError(
            "MALFORMED_KEY_SET", f"{name}: 'x' holds {len(raw)} bytes, an Ed25519 public key is {_ED25519_RAW}"
        )
    return Ed25519PublicKey.from_public_bytes(raw)


def load_key_set(jwks: Any) -> dict[str, Ed25519PublicKey]:
    """The Ed25519 public keys of a JWKS by key id. Keys of other types are skipped; a JWK without a
    ``kid`` gets Assay's derived id. Raises ``PassportVerificationError("MALFORMED_KEY_SET", ...)``."""
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise PassportVerificationError("MALFORMED_KEY_SET", 'the key set is not a JWKS: {"keys": [...]} expected')
    keys: dict[str, Ed25519PublicKey] = {}
    for index, jwk in enumerate(jwks["keys"]):
        if not isinstance(jwk, dict):
            raise PassportVerificationError("MALFORMED_KEY_SET", f"key {index} is not a JSON object")
        if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue  # a shared JWKS may hold RSA or EC keys that never sign passports
        public = _jwk_public(jwk, index)
        kid = jwk.get("kid", key_id(public))
        if not isinstance(kid, str):
            raise PassportVerificationError("MALFORMED_KEY_SET", f"key {index} has a kid that is not a string")
        keys[kid] = public
    return keys


def _verify_signatures(signatures: list[Any], keys: dict[str, Ed25519PublicKey], message: bytes) -> str:
    """The key id of the first signature that verifies; otherwise every signature's problem, joined."""
    problems: list[str] = []
    unknown_only = True
    for index, entry in enumerate(signatures):
        if not isinstance(entry, dict):
            raise PassportVerificationError("MALFORMED_ENVELOPE", f"signatures[{index}] is not a JSON object")
        sig = _b64decode(entry.get("sig"), f"signatures[{index}].sig")
        kid = entry.get("keyid")
        if kid is None or kid == "":
            # DSSE makes keyid optional: then any supplied key may have made the signature.
            candidates = list(keys.items())
            if not candidates:
                problems.append(f"signatures[{index}] names no key id and the supplied key set is empty")
                continue
        elif not isinstance(kid, str):
            raise PassportVerificationError("MALFORMED_ENVELOPE", f"signatures[{index}].keyid is not a string")
        elif kid not in keys:
            problems.append(f"unknown key id {kid!r}: it is not in the supplied key set")
            continue
        else:
            candidates = [(kid, keys[kid])]
        unknown_only = False
        for candidate_kid, public in candidates:
            try:
                public.verify(sig, message)
            except InvalidSignature:
                continue
            return candidate_kid
        signer = f"key {kid}" if kid else f"signatures[{index}] (no key id): any of the {len(candidates)} supplied keys"
        problems.append(f"signature by {signer} does not verify: the payload or the signature was altered")
    raise PassportVerificationError("UNKNOWN_KEY" if unknown_only else "BAD_SIGNATURE", "; ".join(problems))


def _check_subjects(statement: dict[str, Any]) -> None:
    subjects = statement.get("subject")
    if not isinstance(subjects, list) or not subjects:
        raise PassportVerificationError("MALFORMED_STATEMENT", "subject must be a non-empty list")
    for index, subject in enumerate(subjects):
        if not isinstance(subject, dict) or not isinstance(subject.get("name"), str):
            raise PassportVerificationError("MALFORMED_STATEMENT", f"subject[{index}] is not an object with a name")
        name = subject["name"]
        digest = subject.get("digest")
        if not isinstance(digest, dict) or not digest:
            raise PassportVerificationError("BAD_SUBJECT_DIGEST", f"subject {name!r} has no digest set")
        for algorithm, value in digest.items():
            if not isinstance(value, str) or not value:
                raise PassportVerificationError(
                    "BAD_SUBJECT_DIGEST", f"subject {name!r} has a {algorithm} digest that is not a string"
                )
        sha = digest.get("sha256")
        if sha is not None and not _HEX64.match(sha):
            raise PassportVerificationError(
                "BAD_SUBJECT_DIGEST",
                f"subject {name!r} has a malformed sha256 digest {sha!r}: 64 lowercase hex characters expected",
            )


def _check_predicate(statement: dict[str, Any]) -> None:
    predicate = statement.get("predicate")
    if not isinstance(predicate, dict):
        raise PassportVerificationError("MALFORMED_STATEMENT", "predicate is not a JSON object")
    recorded = predicate.get("digests")
    if not isinstance(recorded, dict):
        raise PassportVerificationError("MISSING_PART", "predicate.digests is missing or not an object")
    optional = [p for p in OPTIONAL_DIGESTED_PARTS if p in predicate or p in recorded]
    for part in (*DIGESTED_PARTS, *optional):
        if part not in predicate:
            raise PassportVerificationError("MISSING_PART", f"predicate part {part!r} is missing")
        actual = digest_json(predicate[part])
        if recorded.get(part) != actual:
            raise PassportVerificationError(
                "DIGEST_MISMATCH",
                f"digest of predicate.{part} differs: recorded {recorded.get(part)}, recomputed {actual}",
            )


def verify_passport(envelope: Any, jwks: Any) -> VerifiedPassport:
    """Verify a DSSE envelope against the Ed25519 keys of ``jwks``: the signature over
    PAE(payloadType, payload), then the in-toto Statement, its subjects and every predicate digest.
    Raises ``PassportVerificationError`` naming exactly what failed."""
    keys = load_key_set(jwks)
    if not isinstance(envelope, dict) or not {"payloadType", "payload", "signatures"} <= set(envelope):
        raise PassportVerificationError(
            "MALFORMED_ENVELOPE", "not a DSSE envelope: payloadType, payload and signatures are required"
        )
    if envelope["payloadType"] != PAYLOAD_TYPE:
        raise PassportVerificationError(
            "WRONG_PAYLOAD_TYPE", f"payloadType is {envelope['payloadType']!r}, expected {PAYLOAD_TYPE!r}"
        )
    payload = _b64decode(envelope["payload"], "payload")
    signatures = envelope["signatures"]
    if not isinstance(signatures, list) or not signatures:
        raise PassportVerificationError("NO_SIGNATURES", "the envelope carries no signature")
    # The signature is checked before the payload is parsed: nothing unsigned is interpreted.
    verified_kid = _verify_signatures(signatures, keys, pae(PAYLOAD_TYPE, payload))
    try:
        statement = json.loads(payload)
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are both ValueErrors
        raise PassportVerificationError("MALFORMED_STATEMENT", f"the payload is not JSON: {exc}") from exc
    if not isinstance(statement, dict):
        raise PassportVerificationError("MALFORMED_STATEMENT", "the payload is not a JSON object")
    if statement.get("_type") != STATEMENT_TYPE:
        raise PassportVerificationError(
            "WRONG_STATEMENT_TYPE", f"_type is {statement.get('_type')!r}, expected {STATEMENT_TYPE!r}"
        )
    if statement.get("predicateType") != PREDICATE_TYPE:
        raise PassportVerificationError(
            "WRONG_PREDICATE_TYPE", f"predicateType is {statement.get('predicateType')!r}, expected {PREDICATE_TYPE!r}"
        )
    _check_subjects(statement)
    _check_predicate(statement)
    return VerifiedPassport(kid=verified_kid, statement=statement)
