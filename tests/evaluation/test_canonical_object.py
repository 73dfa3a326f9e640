"""canonical_object: an object's RFC 8785 bytes assembled from its members' own bytes."""

from __future__ import annotations

from typing import Any

import pytest
import rfc8785

from assay.backend.canonical import canonical_bytes, canonical_object

VALUES: list[dict[str, Any]] = [
    {},
    {"b": 1, "a": [1, "x", None], "A": {"z": True, "é": "ü"}, "_": 1.5, "a1": "\u2028"},
    {"reasons": [], "disposition": "BLOCK", "fourQuestions": {"reach": {"status": "PARTIAL"}}, "z": -(2**53 - 1)},
]


@pytest.mark.parametrize("value", VALUES)
def test_assembled_bytes_are_the_reference_bytes(value: dict[str, Any]) -> None:
    members = {key: canonical_bytes(member) for key, member in value.items()}
    assert canonical_object(members) == rfc8785.dumps(value)


def test_non_ascii_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="ASCII keys"):
        canonical_object({"é": b"1"})
