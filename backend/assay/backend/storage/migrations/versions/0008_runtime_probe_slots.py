"""Runtime probe slots: at most N probe sessions per runtime target at once, across workers and replicas.

Revision ID: 0008_runtime_probe_slots
Revises: 0007_dashboard_users

A row is a slot held by a run while its probe session contacts the target (docs/runtime.md, "Bounds").
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_runtime_probe_slots"
down_revision: str | None = "0007_dashboard_users"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "runtime_probe_slot",
        sa.Column("target_id", sa.String(length=64), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["target_id"], ["runtime_target.id"]),
        sa.PrimaryKeyConstraint("target_id", "slot"),
    )


def downgrade() -> None:
    op.drop_table("runtime_probe_slot")
