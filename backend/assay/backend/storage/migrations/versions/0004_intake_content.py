"""Intake: batches stored as their content (an OTLP request in chunks) and one event-id index for all
adapters.

Revision ID: 0004_intake_content
Revises: 0003_intake

``intake_batch.content_format`` says how a batch is stored (``records``, every batch before this
revision, or ``otlp-protobuf``); ``intake_content`` holds the chunks of stored content;
``intake_event`` is the per-binder deduplication index of event ids, filled here from the records
already stored. Both new tables are immutable, like the batches (triggers, as in 0003).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_intake_content"
down_revision: str | None = "0003_intake"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IMMUTABLE = ("intake_content", "intake_event")


def upgrade() -> None:
    op.add_column(
        "intake_batch",
        sa.Column("content_format", sa.String(length=40), server_default="records", nullable=False),
    )
    op.create_table(
        "intake_content",
        sa.Column("batch_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("batch_id", "seq"),
    )
    op.create_table(
        "intake_event",
        sa.Column("binder_id", sa.String(length=64), nullable=False),
        sa.Column("event_id", sa.String(length=255), nullable=False),
        sa.Column("batch_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("binder_id", "event_id"),
        sqlite_with_rowid=False,
    )
    op.execute(
        "INSERT INTO intake_event (binder_id, event_id, batch_id) "
        "SELECT binder_id, event_id, batch_id FROM intake_record WHERE event_id IS NOT NULL"
    )
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
    op.drop_table("intake_event")
    op.drop_table("intake_content")
    # Not in batch mode: on SQLite a batch rebuild of intake_batch would drop its immutability triggers.
    op.drop_column("intake_batch", "content_format")
