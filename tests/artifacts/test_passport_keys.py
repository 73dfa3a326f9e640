"""The signing key store: owner-only files, stable ids, rotation that keeps old passports verifiable."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.backend.passport.keys import KeyStore, KeyStoreError, raw_public
from assay.backend.passport.verify import verify_passport

Signer = Callable[[KeyStore, dict[str, Any]], dict[str, Any]]


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that would leave new files world-readable: the store must not depend on it."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_keys_are_created_on_first_use_owner_only(tmp_path: Path, open_umask: None) -> None:
    directory = tmp_path / "keys"
    directory.mkdir(mode=0o755)
    store = KeyStore(directory)
    kid = store.active().kid
    assert _mode(directory) == 0o700
    assert _mode(directory / f"{kid}.key") == 0o600
    assert (directory / f"{kid}.key").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    rotated = store.rotate().kid
    assert _mode(directory / f"{rotated}.key") == 0o600
    assert sorted(p.name for p in directory.iterdir()) == sorted(["active.json", f"{kid}.key", f"{rotated}.key"])


def test_the_key_id_is_derived_from_the_public_key(store: KeyStore) -> None:
    key = store.active()
    expected = base64.urlsafe_b64encode(hashlib.sha256(raw_public(key.private.public_key())).digest())
    assert key.kid == expected.rstrip(b"=").decode()[:16]
    assert KeyStore(store.directory).active().kid == key.kid  # a restart finds the same key


def test_the_jwks_holds_every_public_key_as_an_okp_jwk(store: KeyStore) -> None:
    first = store.active().kid
    second = store.rotate().kid
    keys = store.jwks()["keys"]
    assert [k["kid"] for k in keys] == [second, first]  # the active key first
    for jwk in keys:
        assert set(jwk) == {"kty", "crv", "x", "kid", "alg", "use"}
        assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["use"]) == ("OKP", "Ed25519", "EdDSA", "sig")
        assert len(base64.urlsafe_b64decode(jwk["x"] + "=")) == 32
        assert "d" not in jwk  # never the private part


def test_passports_signed_before_rotations_still_verify(
    store: KeyStore, statement: dict[str, Any], sign: Signer
) -> None:
    passports = [sign(store, statement)]
    for _ in range(2):
        store.rotate()
        passports.append(sign(store, statement))
    jwks = KeyStore(store.directory).jwks()  # as served after a restart
    kids = [verify_passport(p, jwks).kid for p in passports]
    assert len(set(kids)) == 3 and kids[-1] == store.active().kid


@pytest.mark.parametrize("round_", range(5))  # several rounds: the race is only sometimes hit
def test_concurrent_first_use_agrees_on_one_key(tmp_path: Path, round_: int) -> None:
    directory = tmp_path / "keys"
    barrier = threading.Barrier(8)
    kids: list[str] = []
    errors: list[BaseException] = []

    def first_use() -> None:
        barrier.wait(timeout=10)
        try:
            kids.append(KeyStore(directory).active().kid)
        except (KeyStoreError, OSError) as exc:
            errors.append(exc)

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert errors == []
    assert len(kids) == 8 and len(set(kids)) == 1
    assert sorted(p.name for p in directory.iterdir()) == sorted(["active.json", f"{kids[0]}.key"])


def test_a_broken_store_says_which_file(store: KeyStore) -> None:
    kid = store.active().kid
    (store.directory / "active.json").write_text("{not json")
    with pytest.raises(KeyStoreError, match=r"active\.json does not name the active key"):
        store.active()
    (store.directory / "active.json").write_text('{"kid": "gone"}')
    with pytest.raises(KeyStoreError, match=r"cannot read signing key .*gone\.key"):
        store.active()
    (store.directory / "active.json").write_text(f'{{"kid": "{kid}"}}')
    (store.directory / f"{kid}.key").write_bytes(b"garbage")
    with pytest.raises(KeyStoreError, match=f"cannot read signing key .*{kid}"):
        store.jwks()
