"""Roles of dashboard users in an organization (docs/dashboard.md). Plain values, importable by the command
line's parser without the database stack."""

from __future__ import annotations

from typing import Literal

Role = Literal["owner", "admin", "member", "viewer"]
# Most to least authority: owners and admins will manage people, systems and keys; members run assurance;
# viewers read.
ROLES: tuple[Role, ...] = ("owner", "admin", "member", "viewer")
_RANK: dict[str, int] = {role: rank for rank, role in enumerate(ROLES)}


def at_least(role: str, needed: Role) -> bool:
    """Whether ``role`` carries at least the authority of ``needed`` (an unknown role carries none)."""
    rank = _RANK.get(role)
    return rank is not None and rank <= _RANK[needed]
