"""Risk acceptances: reasons accepted as known risks, with an owner, a justification and an expiry.

Revision ID: 0012_risk_acceptances
Revises: 0011_remote_sources

Applied only by runs created while they are active (docs/methodology.md, "Risk acceptances").
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_risk_acceptances"
down_revision: str | None = "0011_remote_sources"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "risk_acceptance",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("evaluation_id", sa.String(length=64), nullable=False),
        sa.Column("fingerprint", sa.String(length=80), nullable=False),
        sa.Column("rule_id", sa.String(length=40), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=False),
        sa.Column("justification", sa.Text(), nullable=False),
        sa.Column("expires_on", sa.String(length=10), nullable=False),
        sa.Column("recorded_by", sa.String(length=254), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.String(length=254), nullable=True),
        sa.ForeignKeyConstraint(["ai_system_id"], ["ai_system.id"]),
        sa.ForeignKeyConstraint(["evaluation_id"], ["evaluation.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_risk_acceptance_organization_id", "risk_acceptance", ["organization_id"])
    op.create_index("ix_risk_acceptance_ai_system_id", "risk_acceptance", ["ai_system_id"])


def downgrade() -> None:
    op.drop_table("risk_acceptance")
