"""Canonical JSON (RFC 8785, JCS) and the SHA-256 digests every party can recompute.

All digests in Assay are written ``sha256:<64 lowercase hex>`` and computed over the JCS bytes of a
JSON value, so that key order, whitespace and number formatting never change a digest.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

DIGEST_PREFIX = "sha256:"


def canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON-compatible value."""
    return bytes(rfc8785.dumps(value))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes (file contents, PDFs)."""
    return DIGEST_PREFIX + sha256_hex(data)


def digest_json(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of a value."""
    return digest_bytes(canonical_bytes(value))


def short_id(prefix: str, *parts: object) -> str:
    """A stable, content-derived identifier such as ``act-3f2a9c01b7d4``.

    Identifiers inside evidence are derived from what they name, never random, so that the same tree
    gives the same ids and the same digests.
    """
    joined = "\x1f".join(str(p) for p in parts)
    return f"{prefix}-{sha256_hex(joined.encode('utf-8'))[:12]}"
