"""The service's Ed25519 signing keys, kept in a directory outside the database.

Keys are created on first use; private keys are written owner-only (0600, directory 0700). ``rotate``
makes a new active key and keeps every earlier public key in the JWKS, so passports signed before a
rotation still verify.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

_ACTIVE = "active.json"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    """A stable id: base64url of SHA-256 of the raw public key, first 16 characters."""
    return b64url(hashlib.sha256(raw_public(public)).digest())[:16]


def public_jwk(public: Ed25519PublicKey) -> dict[str, str]:
    return {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": b64url(raw_public(public)),
        "kid": key_id(public),
        "alg": "EdDSA",
        "use": "sig",
    }


class KeyStoreError(RuntimeError):
    """The key directory is unusable (a missing or unreadable key, a corrupt marker); says which file."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    private: Ed25519PrivateKey


class KeyStore:
    """Ed25519 signing keys in one directory: ``<kid>.key`` (PKCS#8 PEM, 0600) and ``active.json``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _ensure_dir(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)

    def _write_private(self, private: Ed25519PrivateKey) -> str:
        kid = key_id(private.public_key())
        pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path = self.directory / f"{kid}.key"
        # O_EXCL with mode 0600: the file never exists, even briefly, with wider permissions.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        return kid

    def _set_active(self, kid: str) -> None:
        # A per-process temporary name, so concurrent rotations never rename each other's file away.
        tmp = self.directory / f".{_ACTIVE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps({"kid": kid}))
        tmp.replace(self.directory / _ACTIVE)

    def _create_first(self) -> None:
        """First use: make a key and claim the marker exclusively; a concurrent first use keeps its key."""
        kid = self._write_private(Ed25519PrivateKey.generate())
        # The marker is written whole under a private name, then hard-linked into place: link() refuses
        # an existing target, so exactly one first use wins and no reader ever sees a half-written marker.
        tmp = self.directory / f".{_ACTIVE}.{kid}.tmp"
        tmp.write_text(json.dumps({"kid": kid}))
        try:
            os.link(tmp, self.directory / _ACTIVE)
        except FileExistsError:
            (self.directory / f"{kid}.key").unlink()  # another first use won; its key is the active one
        finally:
            tmp.unlink()

    def _active_kid(self) -> str:
        marker = self.directory / _ACTIVE
        try:
            kid = json.loads(marker.read_text())["kid"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise KeyStoreError(f"{marker} does not name the active key: {exc}") from exc
        if not isinstance(kid, str):
            raise KeyStoreError(f"{marker} does not name the active key")
        return kid

    def _load(self, path: Path) -> Ed25519PrivateKey:
        try:
            loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (OSError, ValueError, TypeError) as exc:
            raise KeyStoreError(f"cannot read signing key {path}: {exc}") from exc
        if not isinstance(loaded, Ed25519PrivateKey):
            raise KeyStoreError(f"{path} is not an Ed25519 key")
        return loaded

    def active(self) -> SigningKey:
        """The active signing key, created on first use."""
        self._ensure_dir()
        if not (self.directory / _ACTIVE).exists():
            self._create_first()
        kid = self._active_kid()
        return SigningKey(kid=kid, private=self._load(self.directory / f"{kid}.key"))

    def rotate(self) -> SigningKey:
        """Make a new active key; earlier keys stay in the JWKS."""
        self._ensure_dir()
        kid = self._write_private(Ed25519PrivateKey.generate())
        self._set_active(kid)
        return self.active()

    def jwks(self) -> dict[str, Any]:
        """Every public key, active first then by kid."""
        active = self.active().kid
        keys = [public_jwk(self._load(path).public_key()) for path in sorted(self.directory.glob("*.key"))]
        keys.sort(key=lambda k: (k["kid"] != active, k["kid"]))
        return {"keys": keys}
