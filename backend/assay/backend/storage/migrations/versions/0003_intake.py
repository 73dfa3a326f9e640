"""Evidence intake: batches and their normalized records (immutable), and the binder's mapping.

Revision ID: 0003_intake
Revises: 0002_runs_evaluations

Accepted batches and their records can never be updated or deleted: triggers refuse it in the database
itself, as for Evaluations (migration 0002).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_intake"
down_revision: str | None = "0002_runs_evaluations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IMMUTABLE = ("intake_batch", "intake_record")


def upgrade() -> None:
    op.create_table(
        "intake_batch",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("binder_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=True),
        sa.Column("api_key_id", sa.String(length=64), nullable=False),
        sa.Column("producer_id", sa.String(length=40), nullable=False),
        sa.Column("producer_kind", sa.String(length=40), nullable=False),
        sa.Column("adapter_id", sa.String(length=100), nullable=False),
        sa.Column("adapter_version", sa.String(length=40), nullable=False),
        sa.Column("record_count", sa.Integer(), nullable=False),
        sa.Column("duplicate_count", sa.Integer(), nullable=False),
        sa.Column("content_digest", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ai_system_id"],
            ["ai_system.id"],
        ),
        sa.ForeignKeyConstraint(
            ["binder_id"],
            ["evidence_binder.id"],
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("intake_batch", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_intake_batch_binder_id"), ["binder_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_intake_batch_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "intake_record",
        sa.Column("batch_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("binder_id", sa.String(length=64), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=True),
        sa.Column("record_json", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("batch_id", "seq"),
        sa.UniqueConstraint("binder_id", "event_id", name="uq_intake_record_event"),
    )
    with op.batch_alter_table("evidence_binder", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mapping", sa.JSON(), nullable=True))

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
    with op.batch_alter_table("evidence_binder", schema=None) as batch_op:
        batch_op.drop_column("mapping")

    op.drop_table("intake_record")
    with op.batch_alter_table("intake_batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_intake_batch_organization_id"))
        batch_op.drop_index(batch_op.f("ix_intake_batch_binder_id"))

    op.drop_table("intake_batch")
