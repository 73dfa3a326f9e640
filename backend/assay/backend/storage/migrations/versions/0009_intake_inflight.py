"""Intake: big batches in flight. Each bounded transaction of a big batch claims its own event ids; until
the batch row is written, its rows belong to an unfinished batch, which can be removed.

Revision ID: 0009_intake_inflight
Revises: 0008_runtime_probe_slots

``intake_inflight`` holds a row per big batch being written (docs/intake.md, "Big batches"): its state
(``writing``, or ``failed`` while its rows are removed) and a heartbeat each bounded transaction renews.
``intake_event`` gains an index on ``batch_id`` (an unfinished batch's claims are found by it). The
triggers that keep records, content chunks and event ids immutable now let a DELETE through for a batch
that is in flight and has no batch row; every UPDATE, and every DELETE of a finished batch's rows, is
still refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_intake_inflight"
down_revision: str | None = "0008_runtime_probe_slots"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GUARDED = ("intake_record", "intake_content", "intake_event")
_UNFINISHED = (
    "EXISTS (SELECT 1 FROM intake_inflight AS f WHERE f.batch_id = OLD.batch_id) "
    "AND NOT EXISTS (SELECT 1 FROM intake_batch AS b WHERE b.id = OLD.batch_id)"
)


def upgrade() -> None:
    op.create_table(
        "intake_inflight",
        sa.Column("batch_id", sa.String(length=64), nullable=False),
        sa.Column("binder_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("batch_id"),
    )
    op.create_index("ix_intake_event_batch_id", "intake_event", ["batch_id"], unique=False)
    dialect = op.get_bind().dialect.name
    for table in GUARDED:
        if dialect == "sqlite":
            op.execute(f"DROP TRIGGER {table}_no_delete")
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} WHEN NOT ({_UNFINISHED}) "
                f"BEGIN SELECT RAISE(ABORT, '{table} rows are immutable'); END"
            )
        else:
            op.execute(f"DROP TRIGGER {table}_immutable ON {table}")
            op.execute(f"DROP FUNCTION {table}_immutable()")
    if dialect != "sqlite":
        op.execute(
            "CREATE FUNCTION intake_unfinished_only() RETURNS trigger AS $$ BEGIN "
            f"IF TG_OP = 'DELETE' AND {_UNFINISHED} THEN RETURN OLD; END IF; "
            "RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME; END; $$ LANGUAGE plpgsql"
        )
        for table in GUARDED:
            op.execute(
                f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION intake_unfinished_only()"
            )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for table in GUARDED:
        if dialect == "sqlite":
            op.execute(f"DROP TRIGGER {table}_no_delete")
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} rows are immutable'); END"
            )
        else:
            op.execute(f"DROP TRIGGER {table}_immutable ON {table}")
            op.execute(
                f"CREATE FUNCTION {table}_immutable() RETURNS trigger AS $$ BEGIN "
                f"RAISE EXCEPTION '{table} rows are immutable'; END; $$ LANGUAGE plpgsql"
            )
            op.execute(
                f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {table}_immutable()"
            )
    if dialect != "sqlite":
        op.execute("DROP FUNCTION intake_unfinished_only()")
    op.drop_index("ix_intake_event_batch_id", table_name="intake_event")
    op.drop_table("intake_inflight")
