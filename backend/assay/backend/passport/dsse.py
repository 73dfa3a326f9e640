"""DSSE v1 envelopes (https://github.com/secure-systems-lab/dsse): PAE and Ed25519 signatures."""

from __future__ import annotations

import base64
from typing import Any

from assay.backend.passport.keys import SigningKey

PAYLOAD_TYPE = "application/vnd.in-toto+json"


def pae(payload_type: str, payload: bytes) -> bytes:
    """Pre-Authentication Encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body) SP body``."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def sign_envelope(payload: bytes, key: SigningKey, payload_type: str = PAYLOAD_TYPE) -> dict[str, Any]:
    signature = key.private.sign(pae(payload_type, payload))
    return {
        "payloadType": payload_type,
        "payload": base64.b64encode(payload).decode("ascii"),
        "signatures": [{"keyid": key.kid, "sig": base64.b64encode(signature).decode("ascii")}],
    }
