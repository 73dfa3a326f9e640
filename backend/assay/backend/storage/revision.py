"""The newest schema revision, kept apart from the migrations so that checking it loads nothing.

A database already at :data:`HEAD_REVISION` is recognised with one query on ``alembic_version``, without
loading Alembic or SQLAlchemy (a good part of every admin command's start-up); a test holds this to
Alembic's own head (tests/service/test_migrations.py).
"""

from __future__ import annotations

HEAD_REVISION = "0012_risk_acceptances"
