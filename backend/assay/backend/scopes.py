"""API key scopes and the purpose profiles that grant them (contract 5.5, 5.6).

Plain data with no imports of the service's stack: ``assay admin``'s parser lists them.
"""

from __future__ import annotations

from typing import Literal, get_args

Scope = Literal[
    "scan:submit",
    "scan:create",
    "scan:read",
    "report:read",
    "system:read",
    "source:read",
    "evidence:ingest",
]
ALL_SCOPES: tuple[Scope, ...] = get_args(Scope)

Purpose = Literal["assurance-agent", "evidence-intake"]
# Key purpose profiles (contract 5.5, 5.6). ``assurance-agent`` can run assurance, read reports and the
# agent audit, discover systems and sources, and submit scans; it never gets ``evidence:ingest``, which
# only the ``evidence-intake`` purpose or an explicit ``--scopes`` list grants.
PURPOSE_SCOPES: dict[Purpose, frozenset[Scope]] = {
    "assurance-agent": frozenset(
        {"scan:submit", "scan:create", "scan:read", "report:read", "system:read", "source:read"}
    ),
    "evidence-intake": frozenset({"evidence:ingest"}),
}
