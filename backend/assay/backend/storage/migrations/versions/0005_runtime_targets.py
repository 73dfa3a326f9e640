"""Runtime targets: the live endpoints (MCP servers, agent endpoints) the runtime engine may probe.

Revision ID: 0005_runtime_targets
Revises: 0004_intake_content

Header secrets are stored sealed (``sealed_headers``, encrypted with the service's runtime secret key);
only their names are readable (docs/runtime.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_runtime_targets"
down_revision: str | None = "0004_intake_content"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "runtime_target",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("address", sa.String(length=4096), nullable=False),
        sa.Column("protocol", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("consented_suites", sa.JSON(), nullable=False),
        sa.Column("header_names", sa.JSON(), nullable=False),
        sa.Column("sealed_headers", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("consented_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["ai_system_id"], ["ai_system.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_runtime_target_organization_id", "runtime_target", ["organization_id"])
    op.create_index("ix_runtime_target_ai_system_id", "runtime_target", ["ai_system_id"])


def downgrade() -> None:
    op.drop_index("ix_runtime_target_ai_system_id", table_name="runtime_target")
    op.drop_index("ix_runtime_target_organization_id", table_name="runtime_target")
    op.drop_table("runtime_target")
