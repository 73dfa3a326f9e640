"""Initial schema: organizations, AI systems, source assets, API keys, scans, binders, idempotency.

Revision ID: 0001_initial
Revises:
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "organization",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "ai_system",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("system_type", sa.String(length=100), nullable=True),
        sa.Column("criticality", sa.String(length=100), nullable=True),
        sa.Column("lifecycle_status", sa.String(length=100), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("ai_system", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ai_system_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "api_key",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("display_prefix", sa.String(length=20), nullable=False),
        sa.Column("environment", sa.String(length=4), nullable=False),
        sa.Column("purpose", sa.String(length=40), nullable=True),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_key_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "idempotency_record",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("api_key_id", sa.String(length=64), nullable=False),
        sa.Column("route", sa.String(length=100), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=False),
        sa.Column("request_digest", sa.String(length=80), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=False),
        sa.Column("response_body", sa.Text(), nullable=False),
        sa.Column("resource_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("organization_id", "api_key_id", "route", "idempotency_key", name="uq_idempotency_scope"),
    )
    op.create_table(
        "evidence_binder",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=True),
        sa.Column("source_system", sa.String(length=100), nullable=False),
        sa.Column("domain", sa.String(length=100), nullable=True),
        sa.Column("adapter_id", sa.String(length=100), nullable=False),
        sa.Column("adapter_version", sa.String(length=40), nullable=False),
        sa.Column("binder_version", sa.String(length=40), nullable=False),
        sa.Column("access_method", sa.String(length=40), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("source_authority_role", sa.String(length=100), nullable=True),
        sa.Column("supported_evidence_classes", sa.JSON(), nullable=False),
        sa.Column("can_establish", sa.JSON(), nullable=False),
        sa.Column("cannot_establish", sa.JSON(), nullable=False),
        sa.Column("coverage_semantics", sa.JSON(), nullable=True),
        sa.Column("require_event_id", sa.Boolean(), nullable=False),
        sa.Column("max_record_bytes", sa.Integer(), nullable=True),
        sa.Column("limitations", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ai_system_id"],
            ["ai_system.id"],
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("evidence_binder", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_evidence_binder_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "qualified_scan",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("api_key_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("producer_id", sa.String(length=40), nullable=False),
        sa.Column("origin", sa.String(length=10), nullable=False),
        sa.Column("commit_sha", sa.String(length=64), nullable=True),
        sa.Column("branch", sa.String(length=255), nullable=True),
        sa.Column("source_identity", sa.JSON(), nullable=False),
        sa.Column("schema_version", sa.String(length=20), nullable=False),
        sa.Column("content_hash", sa.String(length=80), nullable=False),
        sa.Column("bundle_digest", sa.String(length=80), nullable=False),
        sa.Column("bundle_json", sa.Text(), nullable=False),
        sa.Column("limitations", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ai_system_id"],
            ["ai_system.id"],
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("qualified_scan", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_qualified_scan_ai_system_id"), ["ai_system_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_qualified_scan_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "source_asset",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("repo", sa.String(length=2048), nullable=False),
        sa.Column("repo_kind", sa.String(length=10), nullable=False),
        sa.Column("branch", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ai_system_id"],
            ["ai_system.id"],
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("source_asset", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_source_asset_ai_system_id"), ["ai_system_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_source_asset_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "legacy_scan",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("organization_id", sa.String(length=64), nullable=False),
        sa.Column("ai_system_id", sa.String(length=64), nullable=False),
        sa.Column("source_asset_id", sa.String(length=64), nullable=False),
        sa.Column("api_key_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("repo_url", sa.String(length=2048), nullable=False),
        sa.Column("branch", sa.String(length=255), nullable=False),
        sa.Column("framework", sa.String(length=40), nullable=False),
        sa.Column("commit_sha", sa.String(length=64), nullable=False),
        sa.Column("source_identity", sa.JSON(), nullable=False),
        sa.Column("schema_version", sa.String(length=20), nullable=False),
        sa.Column("content_hash", sa.String(length=80), nullable=False),
        sa.Column("bundle_digest", sa.String(length=80), nullable=False),
        sa.Column("bundle_json", sa.Text(), nullable=False),
        sa.Column("limitations", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ai_system_id"],
            ["ai_system.id"],
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organization.id"],
        ),
        sa.ForeignKeyConstraint(
            ["source_asset_id"],
            ["source_asset.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("legacy_scan", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_legacy_scan_ai_system_id"), ["ai_system_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_legacy_scan_organization_id"), ["organization_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_legacy_scan_source_asset_id"), ["source_asset_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("legacy_scan", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_legacy_scan_source_asset_id"))
        batch_op.drop_index(batch_op.f("ix_legacy_scan_organization_id"))
        batch_op.drop_index(batch_op.f("ix_legacy_scan_ai_system_id"))

    op.drop_table("legacy_scan")
    with op.batch_alter_table("source_asset", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_source_asset_organization_id"))
        batch_op.drop_index(batch_op.f("ix_source_asset_ai_system_id"))

    op.drop_table("source_asset")
    with op.batch_alter_table("qualified_scan", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_qualified_scan_organization_id"))
        batch_op.drop_index(batch_op.f("ix_qualified_scan_ai_system_id"))

    op.drop_table("qualified_scan")
    with op.batch_alter_table("evidence_binder", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evidence_binder_organization_id"))

    op.drop_table("evidence_binder")
    op.drop_table("idempotency_record")
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_key_organization_id"))

    op.drop_table("api_key")
    with op.batch_alter_table("ai_system", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ai_system_organization_id"))

    op.drop_table("ai_system")
    op.drop_table("organization")
