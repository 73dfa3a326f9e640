"""Remote git sources: a source's deploy credential (sealed) and the commit its verification fetched.

Revision ID: 0011_remote_sources
Revises: 0010_dashboard_invitations

``credential_kind`` is ``https-token`` or ``ssh-key``; ``sealed_credential`` is the credential encrypted with
the service's secret key (docs/sources.md), never readable from the database alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_remote_sources"
down_revision: str | None = "0010_dashboard_invitations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("source_asset") as batch:
        batch.add_column(sa.Column("credential_kind", sa.String(length=20), nullable=True))
        batch.add_column(sa.Column("sealed_credential", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("verified_commit", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("source_asset") as batch:
        batch.drop_column("verified_commit")
        batch.drop_column("sealed_credential")
        batch.drop_column("credential_kind")
