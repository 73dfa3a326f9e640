"""The shape of API keys: how one is made and the only form the database keeps (its SHA-256).

Standard library only, so ``assay admin key create`` issues keys without the web or database stack.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Literal

Environment = Literal["live", "test"]
KEY_PREFIXES: dict[Environment, str] = {"live": "svc_live_", "test": "svc_test_"}
_SECRET_BYTES = 32


def generate_api_key(environment: Environment) -> str:
    """A new API key. Show it once; store only :func:`hash_api_key` of it."""
    return KEY_PREFIXES[environment] + secrets.token_urlsafe(_SECRET_BYTES)


def hash_api_key(api_key: str) -> str:
    """The stored form of a key: lowercase hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()


def display_prefix(api_key: str) -> str:
    """``svc_live_`` (or ``svc_test_``) plus the first four characters of the secret: enough to recognise
    a key in a list, never enough to use it."""
    return api_key[: len("svc_live_") + 4]
