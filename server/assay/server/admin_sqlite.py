"""The ``assay admin`` commands that :mod:`assay.backend.provisioning_sqlite` serves without SQLAlchemy:
``org create``, ``system create``, ``key create`` and ``key revoke`` on a SQLite database at the newest
schema. Every other case goes through ``admin_actions``, which these mirror output for output.
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any

from assay.backend import provisioning_sqlite
from assay.backend.provisioning_rules import parse_duration

# The ``GROUP ACTION`` commands served here; the database is opened only for these.
SERVED = frozenset({"org create", "system create", "key create", "key revoke"})


def run_action(connection: sqlite3.Connection, action: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """Run the admin ``action`` (``GROUP ACTION``) with its parsed ``args`` and commit; None when this path
    does not serve it (the caller then takes the full one). Rolls back on any failure."""
    try:
        if action == "org create":
            result: dict[str, Any] = {"organizationId": provisioning_sqlite.create_organization(connection, args.name)}
        elif action == "system create":
            result = {
                "aiSystemId": provisioning_sqlite.create_ai_system(
                    connection, args.org, args.name, system_type=args.system_type, criticality=args.criticality
                )
            }
        elif action == "key create":
            expires_in = parse_duration(args.expires_in) if args.expires_in else None
            scopes = [s for s in args.scopes.split(",") if s.strip()] if args.scopes is not None else None
            key_id, secret = provisioning_sqlite.create_api_key(
                connection,
                args.org,
                purpose=args.purpose,
                scopes=scopes,
                expires_in=expires_in,
                environment="test" if args.test else "live",
            )
            result = {"keyId": key_id, "apiKey": secret}
        elif action == "key revoke":
            revoked = provisioning_sqlite.revoke_api_key(connection, args.key_id)
            result = {"keyId": args.key_id, "revokedAt": revoked.isoformat().replace("+00:00", "Z")}
        else:
            connection.execute("ROLLBACK")
            return None
        connection.execute("COMMIT")
        return result
    except BaseException:
        connection.execute("ROLLBACK")
        raise
