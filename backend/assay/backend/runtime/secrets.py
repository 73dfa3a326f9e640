"""Sealing a runtime target's secrets (request headers such as tokens) at rest.

Fernet (AES-128-CBC with HMAC-SHA256, from ``cryptography``) under one key kept in the service's key
directory beside the passport signing keys (``ASSAY_SIGNING_KEY_DIR``, default ``<data dir>/keys``), written
owner-only on first use. The database holds only the sealed token; a reader without the key file learns
the header names and nothing else. Replicas share the key directory, as they do for signing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

KEY_FILE = "runtime-secrets.key"


class SecretKeyError(RuntimeError):
    """The runtime secret key is missing, unreadable, or does not open a sealed value."""


def _key_path(key_dir: Path | None) -> Path:
    if key_dir is None:
        raise SecretKeyError("no key directory: set ASSAY_DATA_DIR or ASSAY_SIGNING_KEY_DIR to seal target secrets")
    return key_dir / KEY_FILE


def _load_key(key_dir: Path | None, *, create: bool) -> bytes:
    path = _key_path(key_dir)
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        if not create:
            raise SecretKeyError(f"the runtime secret key {path} is missing") from None
    except OSError as exc:
        raise SecretKeyError(f"the runtime secret key {path} cannot be read: {exc.strerror}") from exc
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Fernet.generate_key()
    # O_EXCL: two processes creating it at once keep one key, the loser reads the winner's.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def seal(key_dir: Path | None, values: dict[str, str]) -> bytes:
    """``values`` encrypted under the key of ``key_dir`` (created on first use)."""
    payload = json.dumps(values, sort_keys=True).encode("utf-8")
    return Fernet(_load_key(key_dir, create=True)).encrypt(payload)


def unseal(key_dir: Path | None, token: bytes) -> dict[str, str]:
    """The values sealed in ``token``; SecretKeyError when this key does not open it."""
    try:
        payload = Fernet(_load_key(key_dir, create=False)).decrypt(token)
    except (InvalidToken, ValueError) as exc:
        raise SecretKeyError("the target's secrets were sealed with another key (check ASSAY_SIGNING_KEY_DIR)") from exc
    values = json.loads(payload)
    return {str(k): str(v) for k, v in values.items()}
