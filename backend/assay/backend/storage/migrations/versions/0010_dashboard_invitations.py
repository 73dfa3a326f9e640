"""Dashboard invitations, and a member's state in one organization.

Revision ID: 0010_dashboard_invitations
Revises: 0009_intake_inflight

An invitation is a single-use link to join an organization with a role; only its token's SHA-256 is stored
(docs/dashboard.md, "Invitations"). ``dashboard_membership.disabled_at`` disables a member in one
organization without touching their account or their other organizations.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_dashboard_invitations"
down_revision: str | None = "0009_intake_inflight"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dashboard_invitation",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("issued_by", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_dashboard_invitation_organization_id", "dashboard_invitation", ["organization_id"])
    with op.batch_alter_table("dashboard_membership") as batch:
        batch.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("dashboard_membership") as batch:
        batch.drop_column("disabled_at")
    op.drop_index("ix_dashboard_invitation_organization_id", table_name="dashboard_invitation")
    op.drop_table("dashboard_invitation")
