"""The rules of ``assay admin`` that need no database: names, durations, scopes, and the error they raise.

Shared by the SQLModel operations (``provisioning``) and the standard-library SQLite path
(``provisioning_sqlite``), so both refuse the same input with the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Literal

from assay.backend.scopes import ALL_SCOPES, PURPOSE_SCOPES, Purpose, Scope

# The last ones are a remote git source's verification failing (scans/remote.py's GitErrorCode).
ProvisioningErrorCode = Literal[
    "NOT_FOUND",
    "INVALID",
    "CONFLICT",
    "AUTH_FAILED",
    "BRANCH_NOT_FOUND",
    "COMMIT_NOT_FOUND",
    "UNREACHABLE",
    "TOO_LARGE",
    "TIMEOUT",
    "REFUSED",
    "FAILED",
]
# Units largest first, each at most once, ASCII digits only: 30s, 90m, 12h, 30d, 2w, 1h30m, 1d12h.
_DURATION = re.compile(r"(?:([0-9]{1,9})w)?(?:([0-9]{1,9})d)?(?:([0-9]{1,9})h)?(?:([0-9]{1,9})m)?(?:([0-9]{1,9})s)?")
_DURATION_UNITS = ("weeks", "days", "hours", "minutes", "seconds")
_MAX_NAME = 200
_MAX_LABEL = 100


class ProvisioningError(Exception):
    """An admin operation that cannot be done as asked."""

    def __init__(self, code: ProvisioningErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ProvisioningErrorCode = code
        self.message = message


def parse_duration(text: str) -> timedelta:
    """A positive duration: whole numbers with units ``w``, ``d``, ``h``, ``m``, ``s``, largest first,
    alone or compound (``30s``, ``90m``, ``1h30m``, ``2w3d``), as a timedelta."""
    match = _DURATION.fullmatch(text.strip().lower())
    parts = (
        {unit: int(value) for unit, value in zip(_DURATION_UNITS, match.groups(), strict=True) if value}
        if match
        else {}
    )
    try:
        duration = timedelta(**parts)
    except OverflowError:
        duration = timedelta(0)
    if duration <= timedelta(0):
        raise ProvisioningError(
            "INVALID",
            f"not a duration: {text!r} (use whole numbers with w, d, h, m or s, largest first: 30s, 90m, 1h30m, 30d)",
        )
    return duration


def check_name(value: str, what: str) -> str:
    """``value`` without surrounding blanks, refused when empty or over the length a name may have."""
    value = value.strip()
    if not value or len(value) > _MAX_NAME:
        raise ProvisioningError("INVALID", f"{what} must be 1 to {_MAX_NAME} characters")
    return value


def check_label(value: str | None, what: str) -> str | None:
    """An optional short label (a system type, a criticality) without surrounding blanks: None when absent
    or blank, refused when over the length a label may have."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if len(value) > _MAX_LABEL:
        raise ProvisioningError("INVALID", f"{what} must be at most {_MAX_LABEL} characters")
    return value


def resolve_scopes(purpose: Purpose | None, scopes: Iterable[str] | None) -> list[Scope]:
    """The sorted scopes of a key from exactly one of a purpose profile or an explicit list."""
    if (purpose is None) == (scopes is None):
        raise ProvisioningError("INVALID", "give either a purpose or a list of scopes")
    if purpose is not None:
        if purpose not in PURPOSE_SCOPES:
            raise ProvisioningError("INVALID", f"unknown purpose {purpose!r}")
        return sorted(PURPOSE_SCOPES[purpose])
    assert scopes is not None
    chosen: list[Scope] = []
    for scope in scopes:
        scope = scope.strip()
        match = next((s for s in ALL_SCOPES if s == scope), None)
        if match is None:
            raise ProvisioningError("INVALID", f"unknown scope {scope!r}; known: {', '.join(ALL_SCOPES)}")
        chosen.append(match)
    if not chosen:
        raise ProvisioningError("INVALID", "a key needs at least one scope")
    return sorted(set(chosen))
