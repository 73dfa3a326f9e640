"""Fixtures for the artifact tests: one real passport statement (ops-agent, BLOCK) and signing helpers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.backend.canonical import canonical_bytes
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.passport.dsse import sign_envelope
from assay.backend.passport.keys import KeyStore
from assay.backend.passport.statement import build_statement

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="session")
def statement() -> dict[str, Any]:
    membership = make_membership([static_bundle_item(scan_tree(EXAMPLES / "ops-agent").to_json_dict())])
    payload = evaluate(membership, ai_system_id="sys-ops", jurisdiction=None)
    return build_statement("eval-ops-1", "sys-ops", payload, membership)


@pytest.fixture
def store(tmp_path: Path) -> KeyStore:
    return KeyStore(tmp_path / "keys")


Signer = Callable[[KeyStore, dict[str, Any]], dict[str, Any]]


def _sign(key_store: KeyStore, value: dict[str, Any]) -> dict[str, Any]:
    return sign_envelope(canonical_bytes(value), key_store.active())


@pytest.fixture
def sign() -> Signer:
    """Signs a statement exactly as the passport route does: DSSE over its JCS bytes, active key."""
    return _sign


@pytest.fixture
def passport(store: KeyStore, statement: dict[str, Any]) -> dict[str, Any]:
    return _sign(store, statement)
