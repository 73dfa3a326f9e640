"""Runs, immutable Evaluations and their evidence membership.

Revision ID: 0002_runs_evaluations
Revises: 0001_initial

Evaluations and membership rows can never be updated or deleted: triggers refuse it in the database
itself (SQLite ``RAISE(ABORT)``, PostgreSQL a trigger function raising an exception).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_runs_evaluations"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IMMUTABLE = ("evaluation", "evaluation_evidence")


def upgrade() -> None:
    op.create_table(
        "assurance_run",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("api_key_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("stage", sa.String(length=40), nullable=True),
        sa.Column("request_json", sa.Text(), nullable=False),
        sa.Column("plan_json", sa.Text(), nullable=False),
        sa.Column("static_execution_mode", sa.String(length=20), nullable=True),
        sa.Column("jurisdiction", sa.String(length=40), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failure", sa.JSON(), nullable=True),
        sa.Column("evaluation_id", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["ai_system_id"], ["ai_system.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_assurance_run_organization_id"), "assurance_run", ["organization_id"])
    op.create_index(op.f("ix_assurance_run_ai_system_id"), "assurance_run", ["ai_system_id"])
    op.create_index(op.f("ix_assurance_run_status"), "assurance_run", ["status"])
    op.create_index(op.f("ix_assurance_run_created_at"), "assurance_run", ["created_at"])
    op.create_table(
        "evaluation",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("disposition", sa.String(length=10), nullable=False),
        sa.Column("methodology_version", sa.String(length=60), nullable=False),
        sa.Column("core_truth_digest", sa.String(length=80), nullable=False),
        sa.Column("evidence_bundle_digest", sa.String(length=80), nullable=False),
        sa.Column("payload_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["ai_system_id"], ["ai_system.id"]),
        sa.ForeignKeyConstraint(["organization_id"], ["organization.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id"),
    )
    op.create_index(op.f("ix_evaluation_organization_id"), "evaluation", ["organization_id"])
    op.create_index(op.f("ix_evaluation_ai_system_id"), "evaluation", ["ai_system_id"])
    op.create_table(
        "evaluation_evidence",
        sa.Column("evaluation_id", sa.String(length=64), nullable=False),
        sa.Column("evidence_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("producer_id", sa.String(length=60), nullable=False),
        sa.Column("content_digest", sa.String(length=80), nullable=False),
        sa.Column("payload_json", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["evaluation_id"], ["evaluation.id"]),
        sa.PrimaryKeyConstraint("evaluation_id", "evidence_id"),
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
    op.drop_table("evaluation_evidence")
    op.drop_table("evaluation")
    op.drop_table("assurance_run")
