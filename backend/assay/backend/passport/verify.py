"""Offline passport verification: envelope, signature against a JWKS, statement, recomputed digests."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from assay.backend.canonical import digest_json
from assay.backend.passport.dsse import PAYLOAD_TYPE, pae
from assay.backend.passport.statement import DIGESTED_PARTS, PREDICATE_TYPE, STATEMENT_TYPE

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class PassportVerificationError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class VerifiedPassport:
    kid: str
    statement: dict[str, Any]

    @property
    def disposition(self) -> str | None:
        evaluation = self.statement.get("predicate", {}).get("evaluation", {})
        value = evaluation.get("disposition")
        return str(value) if value is not None else None


def _b64decode(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise PassportVerificationError("MALFORMED_ENVELOPE", f"{what} is not a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PassportVerificationError("BAD_BASE64", f"{what} is not valid base64: {exc}") from exc


def _public_keys(jwks: dict[str, Any]) -> dict[str, Ed25519PublicKey]:
    keys: dict[str, Ed25519PublicKey] = {}
    for jwk in jwks.get("keys", []):
        if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519" and "kid" in jwk and "x" in jwk:
            raw = base64.urlsafe_b64decode(jwk["x"] + "=" * (-len(jwk["x"]) % 4))
            keys[jwk["kid"]] = Ed25519PublicKey.from_public_bytes(raw)
    return keys


def verify_passport(envelope: Any, jwks: dict[str, Any]) -> VerifiedPassport:
    """Verify a DSSE envelope. Raises PassportVerificationError naming exactly what failed."""
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
    keys = _public_keys(jwks)
    message = pae(PAYLOAD_TYPE, payload)
    verified_kid: str | None = None
    problems: list[str] = []
    for entry in signatures:
        kid = entry.get("keyid") if isinstance(entry, dict) else None
        if kid not in keys:
            problems.append(f"unknown key id {kid!r}: it is not in the supplied key set")
            continue
        try:
            keys[kid].verify(_b64decode(entry.get("sig"), "signature"), message)
        except InvalidSignature:
            problems.append(f"signature by key {kid} does not verify: the payload or the signature was altered")
            continue
        verified_kid = kid
        break
    if verified_kid is None:
        code = "UNKNOWN_KEY" if all(p.startswith("unknown key") for p in problems) else "BAD_SIGNATURE"
        raise PassportVerificationError(code, "; ".join(problems))
    try:
        statement = json.loads(payload)
    except ValueError as exc:
        raise PassportVerificationError("MALFORMED_STATEMENT", f"the payload is not JSON: {exc}") from exc
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE:
        raise PassportVerificationError("WRONG_STATEMENT_TYPE", f"_type is not {STATEMENT_TYPE}")
    if statement.get("predicateType") != PREDICATE_TYPE:
        raise PassportVerificationError("WRONG_PREDICATE_TYPE", f"predicateType is not {PREDICATE_TYPE}")
    for subject in statement.get("subject", []):
        sha = subject.get("digest", {}).get("sha256")
        if sha is not None and not _HEX64.match(str(sha)):
            raise PassportVerificationError(
                "BAD_SUBJECT_DIGEST", f"subject {subject.get('name')!r} has a malformed sha256 digest"
            )
    predicate = statement.get("predicate", {})
    recorded = predicate.get("digests", {})
    for part in DIGESTED_PARTS:
        if part not in predicate:
            raise PassportVerificationError("MISSING_PART", f"predicate part {part!r} is missing")
        actual = digest_json(predicate[part])
        if recorded.get(part) != actual:
            raise PassportVerificationError(
                "DIGEST_MISMATCH",
                f"digest of predicate.{part} differs: recorded {recorded.get(part)}, recomputed {actual}",
            )
    return VerifiedPassport(kid=verified_kid, statement=statement)
