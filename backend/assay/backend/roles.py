"""Roles of dashboard users in an organization (docs/dashboard.md). Plain values, importable by the command
line's parser without the database stack."""

from __future__ import annotations

from typing import Literal

Role = Literal["owner", "admin", "member", "viewer"]
# Most to least authority: owners and admins will manage people, systems and keys; members run assurance;
# viewers read.
ROLES: tuple[Role, ...] = ("owner", "admin", "member", "viewer")
