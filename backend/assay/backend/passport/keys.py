"""The service's Ed25519 signing keys, kept in a directory outside the database.

Keys are created on first use; private keys are written owner-only (0600, directory 0700). ``rotate``
makes a new active key and keeps every earlier public key in the JWKS, so passports signed before a
rotation still verify.

Replicas must sign with the same key, or a passport one signs would not verify against the JWKS
another publishes: they share one key directory (a shared volume, ``ASSAY_SIGNING_KEY_DIR``), or each
is given the same private key file (``ASSAY_SIGNING_KEY_FILE``, from a secret store). With a key file,
the directory (when there is one) holds only earlier keys, as ``<kid>.key`` or public ``<kid>.pub``
PEM files, which the JWKS keeps publishing.
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


def _write_owner_only(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write ``path`` readable and writable by its owner only (0600), whatever the umask: created with
    that mode (never wider, even briefly) and set exactly, since the umask can only take bits away."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(data)


class KeyStoreError(RuntimeError):
    """The key directory is unusable (a missing or unreadable key, a corrupt marker); says which file."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    private: Ed25519PrivateKey


class KeyStore:
    """Ed25519 signing keys in one directory: ``<kid>.key`` (PKCS#8 PEM, 0600) and ``active.json``; or
    one configured private key file as the active key, with earlier keys in the directory."""

    def __init__(self, directory: Path | None, key_file: Path | None = None) -> None:
        if directory is None and key_file is None:
            raise KeyStoreError("no signing key: configure a key directory or a key file")
        self._directory = directory
        self.key_file = key_file

    @property
    def directory(self) -> Path:
        """The key directory (keys are created here; with a key file, earlier keys are read from here)."""
        if self._directory is None:
            raise KeyStoreError(f"the signing key is the configured file {self.key_file}; there is no key directory")
        return self._directory

    def _ensure_dir(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)

    def _write_private(self, private: Ed25519PrivateKey) -> str:
        kid = key_id(private.public_key())
        pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path = self.directory / f"{kid}.key"
        _write_owner_only(path, pem, exclusive=True)
        return kid

    def _set_active(self, kid: str) -> None:
        # A per-process temporary name, so concurrent rotations never rename each other's file away.
        tmp = self.directory / f".{_ACTIVE}.{os.getpid()}.tmp"
        _write_owner_only(tmp, json.dumps({"kid": kid}).encode("utf-8"))
        tmp.replace(self.directory / _ACTIVE)

    def _create_first(self) -> None:
        """First use: make a key and claim the marker exclusively; a concurrent first use keeps its key."""
        kid = self._write_private(Ed25519PrivateKey.generate())
        # The marker is written whole under a private name, then hard-linked into place: link() refuses
        # an existing target, so exactly one first use wins and no reader ever sees a half-written marker.
        tmp = self.directory / f".{_ACTIVE}.{kid}.tmp"
        _write_owner_only(tmp, json.dumps({"kid": kid}).encode("utf-8"))
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
        if self.key_file is not None:
            private = self._load(self.key_file)
            return SigningKey(kid=key_id(private.public_key()), private=private)
        kid = self.active_kid()
        return SigningKey(kid=kid, private=self._load(self.directory / f"{kid}.key"))

    def active_kid(self) -> str:
        """The id of the active signing key (created on first use), without reading the private key."""
        if self.key_file is not None:
            return self.active().kid
        self._ensure_dir()
        if not (self.directory / _ACTIVE).exists():
            self._create_first()
        return self._active_kid()

    def rotate(self) -> SigningKey:
        """Make a new active key; earlier keys stay in the JWKS."""
        if self.key_file is not None:
            raise KeyStoreError(
                f"the signing key is the configured file {self.key_file}: rotate by putting the new key there "
                f"and the old one (or its public PEM as <kid>.pub) in the key directory ({self._directory})"
            )
        self._ensure_dir()
        kid = self._write_private(Ed25519PrivateKey.generate())
        self._set_active(kid)
        return self.active()

    def _load_public(self, path: Path) -> Ed25519PublicKey:
        try:
            loaded = serialization.load_pem_public_key(path.read_bytes())
        except (OSError, ValueError, TypeError) as exc:
            raise KeyStoreError(f"cannot read public key {path}: {exc}") from exc
        if not isinstance(loaded, Ed25519PublicKey):
            raise KeyStoreError(f"{path} is not an Ed25519 key")
        return loaded

    def jwks(self) -> dict[str, Any]:
        """Every public key (the active one, earlier ones in the directory), active first then by kid."""
        active = self.active()
        publics = [active.private.public_key()]
        if self._directory is not None and self._directory.is_dir():
            publics += [self._load(path).public_key() for path in sorted(self.directory.glob("*.key"))]
            publics += [self._load_public(path) for path in sorted(self.directory.glob("*.pub"))]
        keys = list({jwk["kid"]: jwk for jwk in map(public_jwk, publics)}.values())
        keys.sort(key=lambda k: (k["kid"] != active.kid, k["kid"]))
        return {"keys": keys}
