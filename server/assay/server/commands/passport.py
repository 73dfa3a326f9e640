"""``assay passport verify FILE``: verify a passport offline, saying exactly what failed."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "passport", help="work with signed passports", description="Work with signed passports."
    )
    actions = parser.add_subparsers(dest="passport_command", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="verify a passport offline",
        description=(
            "Verify a passport (a DSSE envelope holding an in-toto Statement) offline: the Ed25519 signature "
            "against the given keys, the statement types, and every digest in the predicate. Exit 0 when it "
            "verifies, 1 when it does not (the message says exactly what failed), 2 on a usage or file error."
        ),
    )
    verify.add_argument("file", type=Path, help="the passport JSON (as served by GET .../passport)")
    verify.add_argument(
        "--jwks", type=Path, action="append", default=[], help="a JWKS file (as served by /.well-known/jwks.json)"
    )
    verify.add_argument("--key", type=Path, action="append", default=[], help="an Ed25519 public key in PEM")
    verify.set_defaults(handler=run_verify)
    rotate = actions.add_parser(
        "rotate-key",
        help="make a new active signing key",
        description=(
            "Make a new active passport signing key in the service's key directory (ASSAY_SIGNING_KEY_DIR, "
            "else <ASSAY_DATA_DIR>/keys). Earlier keys stay in the JWKS, so earlier passports still verify. "
            "Replicas sharing the directory sign with the new key from their next passport on."
        ),
    )
    rotate.set_defaults(handler=run_rotate)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
        raise ValueError(f"{path} is not JSON: {exc}") from exc


def _pem_jwk(path: Path) -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from assay.backend.passport.keys import public_jwk

    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{path} is not a PEM public key: {exc}") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"{path} is not an Ed25519 public key")
    return public_jwk(key)


def _key_set(args: argparse.Namespace) -> dict[str, Any]:
    """One JWKS from every --jwks file and --key PEM. Raises OSError or ValueError naming the file."""
    keys: list[Any] = []
    for path in args.jwks:
        jwks = _read_json(path)
        if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
            raise ValueError(f'{path} is not a JWKS: {{"keys": [...]}} expected')
        keys.extend(jwks["keys"])
    for path in args.key:
        keys.append(_pem_jwk(path))
    return {"keys": keys}


def run_rotate(args: argparse.Namespace) -> int:
    from assay.backend.passport.keys import KeyStore, KeyStoreError
    from assay.server.settings import SettingsError, read_environment

    try:
        environment = read_environment()
        store = KeyStore(environment.signing_key_dir or environment.data_dir / "keys", environment.signing_key_file)
        previous = store.active_kid()
        key = store.rotate()
    except (SettingsError, KeyStoreError, OSError) as exc:
        print(f"assay passport rotate-key: {exc}", file=sys.stderr)
        return 2
    print(f"active signing key: {key.kid} (was {previous}); the JWKS keeps every earlier key")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from assay.backend.passport.verify import PassportVerificationError, verify_passport

    if not args.jwks and not args.key:
        print("assay passport verify: give the signer's public keys with --jwks FILE or --key PEM", file=sys.stderr)
        return 2
    try:
        document = _read_json(args.file)
        jwks = _key_set(args)
    except (OSError, ValueError) as exc:  # unreadable file, bad JSON or PEM, not UTF-8
        print(f"assay passport verify: {exc}", file=sys.stderr)
        return 2
    # The passport route may wrap the envelope ({"envelope": ...}); a bare DSSE envelope works too.
    envelope = document.get("envelope", document) if isinstance(document, dict) else document
    try:
        verified = verify_passport(envelope, jwks)
    except PassportVerificationError as exc:
        if exc.code == "MALFORMED_KEY_SET":  # the keys given are unusable: an input error, not a verdict
            print(f"assay passport verify: {exc.message}", file=sys.stderr)
            return 2
        print(f"NOT VERIFIED ({exc.code}): {exc.message}")
        return 1
    statement = verified.statement
    print(f"VERIFIED: signed by key {verified.kid}; every predicate digest recomputes.")
    print(f"evaluation: {verified.evaluation_id or '-'}")
    print(f"disposition: {verified.disposition or '-'}")
    for subject in statement["subject"]:
        for algorithm, value in subject["digest"].items():
            print(f"subject: {subject['name']} {algorithm}:{value}")
    return 0
