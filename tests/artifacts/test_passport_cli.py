"""``assay passport verify``: exit 0 with what was verified, 1 with the precise failure, 2 on input errors."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization

from assay.backend.passport.keys import KeyStore
from assay.server.cli import main

Signer = Callable[[KeyStore, dict[str, Any]], dict[str, Any]]


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value) if not isinstance(value, str) else value)
    return path


@pytest.fixture
def files(tmp_path: Path, store: KeyStore, passport: dict[str, Any]) -> dict[str, Path]:
    pem = (
        store.active()
        .private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    (tmp_path / "signer.pem").write_bytes(pem)
    return {
        "passport": _write(tmp_path / "passport.json", passport),
        "jwks": _write(tmp_path / "jwks.json", store.jwks()),
        "pem": tmp_path / "signer.pem",
    }


def test_a_valid_passport_prints_what_was_verified(
    files: dict[str, Path], store: KeyStore, statement: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["passport", "verify", str(files["passport"]), "--jwks", str(files["jwks"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"VERIFIED: signed by key {store.active().kid}; every predicate digest recomputes."
    assert out[1:3] == ["evaluation: eval-ops-1", "disposition: BLOCK"]
    subjects = [line for line in out if line.startswith("subject: ")]
    assert subjects[0] == f"subject: ai-system:sys-ops sha256:{statement['subject'][0]['digest']['sha256']}"
    assert len(subjects) == sum(len(s["digest"]) for s in statement["subject"])


def test_a_pem_public_key_and_a_wrapped_envelope_work(
    files: dict[str, Path], passport: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrapped = _write(tmp_path / "wrapped.json", {"envelope": passport})
    assert main(["passport", "verify", str(wrapped), "--key", str(files["pem"])]) == 0
    assert "VERIFIED" in capsys.readouterr().out


def test_an_altered_payload_exits_1_with_the_precise_message(
    files: dict[str, Path],
    passport: dict[str, Any],
    store: KeyStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    payload = bytearray(base64.b64decode(passport["payload"]))
    payload[len(payload) // 3] ^= 0x20
    bad = _write(tmp_path / "bad.json", {**passport, "payload": base64.b64encode(bytes(payload)).decode()})
    assert main(["passport", "verify", str(bad), "--jwks", str(files["jwks"])]) == 1
    assert capsys.readouterr().out == (
        f"NOT VERIFIED (BAD_SIGNATURE): signature by key {store.active().kid} does not verify: "
        "the payload or the signature was altered\n"
    )


def test_an_unknown_key_exits_1(
    files: dict[str, Path], store: KeyStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _write(tmp_path / "other.json", KeyStore(tmp_path / "other").jwks())
    assert main(["passport", "verify", str(files["passport"]), "--jwks", str(other)]) == 1
    assert f"NOT VERIFIED (UNKNOWN_KEY): unknown key id {store.active().kid!r}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d, f: ["--jwks", str(f["jwks"])], None),  # the passport file does not exist
        (lambda d, f: [], "give the signer's public keys"),
        (lambda d, f: ["--jwks", str(_write(d / "j.json", "[]"))], "is not a JWKS"),
        (lambda d, f: ["--jwks", str(_write(d / "j.json", "{"))], "j.json"),
        (lambda d, f: ["--key", str(_write(d / "k.pem", "nope"))], "k.pem"),
        (
            lambda d, f: ["--jwks", str(_write(d / "j.json", {"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AA"}]}))],
            "'x' holds 1 bytes",
        ),
    ],
)
def test_usage_and_input_errors_exit_2(
    setup: Callable[[Path, dict[str, Path]], list[str]],
    message: str | None,
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "missing.json" if message is None else files["passport"]
    assert main(["passport", "verify", str(target), *setup(tmp_path, files)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("assay passport verify: ")
    assert (message or "missing.json") in err


def test_the_installed_command_as_a_subprocess(
    files: dict[str, Path], passport: dict[str, Any], tmp_path: Path
) -> None:
    assay = Path(sys.executable).with_name("assay")
    command = [str(assay)] if assay.exists() else [sys.executable, "-m", "assay.server.cli"]
    ok = subprocess.run(
        [*command, "passport", "verify", str(files["passport"]), "--jwks", str(files["jwks"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert "disposition: BLOCK" in ok.stdout
    forged = json.loads(base64.b64decode(passport["payload"]))
    forged["predicate"]["evaluation"]["disposition"] = "ALLOW"
    bad = _write(
        tmp_path / "forged.json", {**passport, "payload": base64.b64encode(json.dumps(forged).encode()).decode()}
    )
    failed = subprocess.run(
        [*command, "passport", "verify", str(bad), "--key", str(files["pem"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert failed.returncode == 1
    assert failed.stdout.startswith("NOT VERIFIED (BAD_SIGNATURE): signature by key ")
