"""Replicas sign passports that verify against any replica's JWKS: they share one key file (or one key
directory); rotation keeps earlier passports verifiable; a replica with a key of its own does not."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from runs_helpers import completed_run
from service_helpers import World, bearer

from assay.backend.passport.keys import KeyStore, key_id
from assay.backend.passport.verify import PassportVerificationError, verify_passport
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app


def _write_key(path: Path) -> str:
    private = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return key_id(private.public_key())


@pytest.fixture
def settings(tmp_path: Path, service_db: Path) -> ServiceSettings:
    """Replica A: the shared database and the key file every replica is given."""
    _write_key(tmp_path / "secrets" / "signing.pem")
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path / "a",
        rate_limit=RateLimitSettings(enabled=False),
        signing_key_file=tmp_path / "secrets" / "signing.pem",
    )


@asynccontextmanager
async def replica(settings: ServiceSettings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    """Another replica of the service over the same database (no worker of its own)."""
    application = create_app(dataclasses.replace(settings, run_workers=0, **changes))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://replica.test") as http:
            yield http


async def _passport(http: httpx.AsyncClient, done: dict[str, Any], key: str) -> dict[str, Any]:
    response = await http.get(done["links"]["passport"], headers=bearer(key))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _jwks(http: httpx.AsyncClient) -> dict[str, Any]:
    body: dict[str, Any] = (await http.get("/.well-known/jwks.json")).json()
    return body


async def test_replicas_given_one_key_file_verify_each_others_passports(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, tmp_path: Path
) -> None:
    done = await completed_run(client, world, tmp_path, "ops-agent")
    key = world.agent_key_a
    async with replica(settings, data_dir=tmp_path / "b") as b:
        from_a, from_b = await _passport(client, done, key), await _passport(b, done, key)
        jwks_a, jwks_b = await _jwks(client), await _jwks(b)
    assert jwks_a == jwks_b
    for envelope in (from_a, from_b):
        for jwks in (jwks_a, jwks_b):
            assert verify_passport(envelope, jwks).disposition == "BLOCK"
    # A replica with a key of its own (the failure this setting prevents) signs passports the others reject.
    async with replica(settings, data_dir=tmp_path / "c", signing_key_file=None) as c:
        alone = await _passport(c, done, key)
    with pytest.raises(PassportVerificationError) as failure:
        verify_passport(alone, jwks_a)
    assert failure.value.code == "UNKNOWN_KEY"


async def test_rotating_a_key_file_keeps_earlier_passports_verifiable(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, tmp_path: Path
) -> None:
    done = await completed_run(client, world, tmp_path, "ops-agent")
    assert settings.signing_key_file is not None
    before = await _passport(client, done, world.agent_key_a)
    old = KeyStore(None, settings.signing_key_file).active()
    # Rotation: the old key's public half goes to the key directory, the new key into the file.
    retired = settings.key_directory()
    assert retired is not None
    retired.mkdir(parents=True, exist_ok=True)
    (retired / f"{old.kid}.pub").write_bytes(
        old.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    new_kid = _write_key(settings.signing_key_file)
    after = await _passport(client, done, world.agent_key_a)
    jwks = await _jwks(client)
    assert [k["kid"] for k in jwks["keys"]] == [new_kid, old.kid]  # the active key first
    assert verify_passport(after, jwks).kid == new_kid
    assert verify_passport(before, jwks).kid == old.kid


async def test_replicas_sharing_a_key_directory_follow_its_rotation(
    client: httpx.AsyncClient, world: World, settings: ServiceSettings, tmp_path: Path
) -> None:
    done = await completed_run(client, world, tmp_path, "ops-agent")
    shared = tmp_path / "shared-keys"
    key = world.agent_key_a
    async with (
        replica(settings, data_dir=tmp_path / "b", signing_key_file=None, signing_key_dir=shared) as b,
        replica(settings, data_dir=tmp_path / "c", signing_key_file=None, signing_key_dir=shared) as c,
    ):
        first = await _passport(b, done, key)
        assert verify_passport(first, await _jwks(c)).kid == KeyStore(shared).active().kid
        rotated = KeyStore(shared).rotate()
        second = await _passport(c, done, key)
        jwks = await _jwks(b)
    assert verify_passport(second, jwks).kid == rotated.kid
    assert verify_passport(first, jwks).kid != rotated.kid  # still verifies after the rotation


def test_rotate_key_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.server.cli import main

    shared = tmp_path / "keys"
    monkeypatch.setenv("ASSAY_SIGNING_KEY_DIR", str(shared))
    monkeypatch.delenv("ASSAY_SIGNING_KEY_FILE", raising=False)
    first = KeyStore(shared).active_kid()
    assert main(["passport", "rotate-key"]) == 0
    now = KeyStore(shared).active_kid()
    assert now != first and f"active signing key: {now} (was {first})" in capsys.readouterr().out
    assert [k["kid"] for k in KeyStore(shared).jwks()["keys"]] == [now, first]
    monkeypatch.setenv("ASSAY_SIGNING_KEY_FILE", str(tmp_path / "signing.pem"))
    _write_key(tmp_path / "signing.pem")
    assert main(["passport", "rotate-key"]) == 2  # a configured file is rotated by replacing it
    assert "rotate by putting the new key there" in capsys.readouterr().err
