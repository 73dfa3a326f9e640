"""Wizard assessments: the assessment (answers, attached data sets) and its immutable data files.

Revision ID: 0006_assessments
Revises: 0005_runtime_targets

``assessment_data`` rows are immutable (triggers, as in 0003): a run that froze a data file's id reads
exactly the figures it froze.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_assessments"
down_revision: str | None = "0005_runtime_targets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IMMUTABLE = ("assessment_data",)


def upgrade() -> None:
    op.create_table(
        "assessment",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("framework", sa.String(length=40), nullable=False),
        sa.Column("pack_version", sa.String(length=40), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["ai_system_id"], ["ai_system.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_assessment_organization_id", "assessment", ["organization_id"])
    op.create_index("ix_assessment_ai_system_id", "assessment", ["ai_system_id"])
    op.create_table(
        "assessment_data",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("assessment_id", sa.String(length=64), nullable=False),
        sa.Column("dataset", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("file_name", sa.String(length=200), nullable=False),
        sa.Column("content_digest", sa.String(length=80), nullable=False),
        sa.Column("byte_count", sa.Integer(), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("figures_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["assessment_id"], ["assessment.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_assessment_data_organization_id", "assessment_data", ["organization_id"])
    op.create_index("ix_assessment_data_assessment_id", "assessment_data", ["assessment_id"])
    dialect = op.get_bind().dialect.name
    for table in IMMUTABLE:
        if dialect == "sqlite":
            for event in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} rows are immutable'); END"
                )
        else:
            op.execute(
                f"CREATE FUNCTION {table}_immutable() RETURNS trigger AS $$ BEGIN "
                f"RAISE EXCEPTION '{table} rows are immutable'; END; $$ LANGUAGE plpgsql"
            )
            op.execute(
                f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {table}_immutable()"
            )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in IMMUTABLE:
        if dialect == "sqlite":
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
        else:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_immutable ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS {table}_immutable()")
    op.drop_index("ix_assessment_data_assessment_id", table_name="assessment_data")
    op.drop_index("ix_assessment_data_organization_id", table_name="assessment_data")
    op.drop_table("assessment_data")
    op.drop_index("ix_assessment_ai_system_id", table_name="assessment")
    op.drop_index("ix_assessment_organization_id", table_name="assessment")
    op.drop_table("assessment")
