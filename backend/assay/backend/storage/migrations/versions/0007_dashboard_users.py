"""Dashboard users: people, their role per organization, signed-in sessions and failed sign-ins.

Revision ID: 0007_dashboard_users
Revises: 0006_assessments
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_dashboard_users"
down_revision: str | None = "0006_assessments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dashboard_user",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
    )
    op.create_table(
        "dashboard_membership",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["dashboard_user.id"]),
        sa.PrimaryKeyConstraint("user_id", "organization_id"),
    )
    op.create_index("ix_dashboard_membership_organization_id", "dashboard_membership", ["organization_id"])
    op.create_table(
        "dashboard_session",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["dashboard_user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_dashboard_session_user_id", "dashboard_session", ["user_id"])
    op.create_table(
        "dashboard_login_failure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_dashboard_login_failure_email", "dashboard_login_failure", ["email"])
    op.create_index("ix_dashboard_login_failure_client", "dashboard_login_failure", ["client"])
    op.create_index("ix_dashboard_login_failure_at", "dashboard_login_failure", ["at"])


def downgrade() -> None:
    op.drop_table("dashboard_login_failure")
    op.drop_table("dashboard_session")
    op.drop_table("dashboard_membership")
    op.drop_table("dashboard_user")
