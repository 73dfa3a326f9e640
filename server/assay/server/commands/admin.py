"""``assay admin``: the parser of the provisioning commands (DESCRIPTION says what they do, admin_actions does it)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from assay.backend.intake import ADAPTER_IDS
from assay.backend.roles import ROLES
from assay.backend.runtime.names import PROTOCOLS, SUITES
from assay.backend.scopes import ALL_SCOPES, PURPOSE_SCOPES

# Plain text: argparse prints it as it is.
DESCRIPTION = """\
Provision the service database directly: organizations, AI Systems, sources, API keys, evidence binders
and dashboard users.

Acts on --database-url or $ASSAY_DATABASE_URL (else the default SQLite file), creating or upgrading the
schema first. With --json each command prints exactly one JSON object on stdout, also on failure
({"error": {"code", "message"}}). An API key is printed once and never stored or logged. A user's password is read from stdin
(--password-stdin), never from the command line, and only its Argon2id hash is stored. A git remote's deploy
credential is read from stdin (--credential-stdin) and stored encrypted.
"""

if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    # Accepted before and after the subcommand; SUPPRESS keeps a leaf parser from resetting a value
    # given earlier on the line.
    parent = argparse.ArgumentParser(add_help=False)
    default_url: Any = argparse.SUPPRESS if suppress else None
    default_json: Any = argparse.SUPPRESS if suppress else False
    parent.add_argument(
        "--database-url", metavar="URL", default=default_url, help="database to act on (default: $ASSAY_DATABASE_URL)"
    )
    parent.add_argument("--json", action="store_true", default=default_json, help="print one JSON object")
    return parent


def register(subparsers: _SubParsers) -> None:
    admin = subparsers.add_parser(
        "admin",
        help="provision organizations, AI Systems, sources and API keys",
        description=DESCRIPTION,
        parents=[_common_options(suppress=False)],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    leaf = _common_options(suppress=True)
    groups = admin.add_subparsers(dest="group", metavar="GROUP", required=True)

    org = groups.add_parser("org", help="organizations").add_subparsers(dest="action", metavar="ACTION", required=True)
    p = org.add_parser("create", help="create an organization", parents=[leaf])
    p.add_argument("name")
    p.set_defaults(handler=run)

    system = groups.add_parser("system", help="AI Systems").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    p = system.add_parser("create", help="create an AI System", parents=[leaf])
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--name", required=True)
    p.add_argument("--system-type", help="free text, e.g. agent, assistant, workflow")
    p.add_argument("--criticality", help="free text, e.g. low, medium, high")
    p.set_defaults(handler=run)

    source = groups.add_parser("source", help="source repositories").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    p = source.add_parser(
        "add",
        help="bind a repository to an AI System (PENDING until verified)",
        parents=[leaf],
        description="Bind a local path or a git remote to an AI System. A git remote (--git, https or ssh) is "
        "fetched by `source verify` and by every fresh scan, into a throwaway directory that is never executed "
        "(docs/sources.md). Its deploy credential is read from stdin (--credential-stdin): an HTTPS token (or "
        "USER:TOKEN) on one line, or an SSH private key; it is sealed at rest and never shown again.",
    )
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--system", required=True, help="AI System id")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--repo", help="local path (stored absolute) or git URL (stored as given)")
    where.add_argument("--git", metavar="URL", help="a git remote to fetch: https://..., ssh://... or user@host:path")
    p.add_argument("--branch", help="branch a fresh scan must be on (a git remote: the branch fetched)")
    p.add_argument(
        "--credential-stdin", action="store_true", help="read the remote's deploy credential from stdin (--git)"
    )
    p.set_defaults(handler=run)
    p = source.add_parser(
        "verify",
        help="mark a source VERIFIED (a git remote: after fetching it)",
        parents=[leaf],
        description="Mark a source VERIFIED. A local path must exist. A git remote is fetched: its branch (or "
        "default branch) listed and its tip fetched within ASSAY_GIT_MAX_BYTES and ASSAY_GIT_TIMEOUT_SECONDS; a "
        "failure leaves the status as it was and names why (AUTH_FAILED, BRANCH_NOT_FOUND, UNREACHABLE, "
        "TOO_LARGE, TIMEOUT, REFUSED).",
    )
    p.add_argument("source_id", metavar="ID")
    p.set_defaults(handler=run)
    p = source.add_parser(
        "credential",
        help="replace a git remote's deploy credential (PENDING until verified again)",
        parents=[leaf],
    )
    p.add_argument("source_id", metavar="ID")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--credential-stdin", action="store_true", help="read the new credential from stdin")
    how.add_argument("--remove", action="store_true", help="remove the credential (a public remote)")
    p.set_defaults(handler=run)
    p = source.add_parser("retire", help="mark a source RETIRED (final)", parents=[leaf])
    p.add_argument("source_id", metavar="ID")
    p.set_defaults(handler=run)
    p = source.add_parser("set-status", help="set any status (CONFLICTED, UNAVAILABLE, ...)", parents=[leaf])
    p.add_argument("source_id", metavar="ID")
    p.add_argument("status", choices=["PENDING", "VERIFIED", "CONFLICTED", "UNAVAILABLE", "RETIRED"])
    p.set_defaults(handler=run)

    key = groups.add_parser("key", help="API keys").add_subparsers(dest="action", metavar="ACTION", required=True)
    p = key.add_parser(
        "create",
        help="issue an API key (printed once)",
        parents=[leaf],
        description=(
            "Issue an API key for an organization. --purpose assurance-agent grants "
            f"{', '.join(sorted(PURPOSE_SCOPES['assurance-agent']))}; evidence:ingest is granted only by "
            f"--purpose evidence-intake or an explicit --scopes list. Scopes: {', '.join(ALL_SCOPES)}."
        ),
    )
    p.add_argument("--org", required=True, help="organization id")
    grant = p.add_mutually_exclusive_group(required=True)
    grant.add_argument("--purpose", choices=sorted(PURPOSE_SCOPES), help="a purpose profile")
    grant.add_argument("--scopes", help="comma-separated scopes")
    p.add_argument("--expires-in", metavar="DURATION", help="lifetime such as 30s, 90m, 1h30m, 30d, 2w (default: none)")
    p.add_argument("--test", action="store_true", help="issue an svc_test_ key instead of svc_live_")
    p.set_defaults(handler=run)
    p = key.add_parser("revoke", help="revoke an API key at once", parents=[leaf])
    p.add_argument("key_id", metavar="KEYID")
    p.set_defaults(handler=run)

    _register_targets(groups, leaf)
    _register_users(groups, leaf)

    binder = groups.add_parser("binder", help="evidence binders (intake sources)").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    p = binder.add_parser(
        "create",
        help="configure an evidence source for the intake routes",
        parents=[leaf],
        description="Create an active evidence binder; intake requests name it by its id (docs/intake.md).",
    )
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument(
        "--source-system", required=True, metavar="NAME", help="what sends the evidence, e.g. ops-agent-prod"
    )
    p.add_argument("--adapter", required=True, choices=ADAPTER_IDS, help="how records are read")
    p.add_argument("--system", help="AI System id the binder's batches are bound to")
    p.add_argument("--domain", help="free text, e.g. payments")
    p.add_argument("--authority-role", metavar="ROLE", help="authority ceiling of the binder's records")
    p.add_argument("--classes", nargs="+", metavar="CLASS", help="evidence classes (default: all of the adapter's)")
    p.add_argument("--max-record-bytes", type=int, metavar="N", help="largest normalized record accepted")
    p.add_argument("--require-event-id", action="store_true", help="refuse records without an event id")
    p.add_argument("--line-regex", metavar="REGEX", help="log adapter: Python regex with named groups per line")
    p.set_defaults(handler=run)
    p = binder.add_parser("list", help="list binders", parents=[leaf])
    p.add_argument("--org", help="organization id (default: all)")
    p.set_defaults(handler=run)
    p = binder.add_parser("deactivate", help="make a binder refuse intake", parents=[leaf])
    p.add_argument("binder_id", metavar="ID")
    p.set_defaults(handler=run)


def _register_targets(groups: _SubParsers, leaf: argparse.ArgumentParser) -> None:
    target = groups.add_parser("target", help="runtime targets (live MCP servers, agent endpoints)").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    p = target.add_parser(
        "add",
        help="bind a live endpoint to an AI System (PENDING until verified)",
        parents=[leaf],
        description="Bind an MCP server (URL or command) or an agent endpoint to an AI System; the runtime "
        "engine probes it once it is verified and consented (docs/runtime.md). Header values are sealed "
        "at rest and never shown again.",
    )
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--system", required=True, help="AI System id")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--mcp-url", metavar="URL", help="an MCP server over streamable HTTP")
    where.add_argument("--mcp-command", metavar="'CMD ARGS'", help="an MCP server started over stdio")
    where.add_argument("--agent-url", metavar="URL", help="an agent endpoint (needs --protocol)")
    p.add_argument("--protocol", choices=list(PROTOCOLS), help="the agent endpoint's protocol")
    p.add_argument("--header", action="append", default=[], metavar="NAME=VALUE", help="a request header (secret)")
    p.set_defaults(handler=run)
    p = target.add_parser("list", help="list runtime targets (header names only)", parents=[leaf])
    p.add_argument("--org", help="organization id (default: all)")
    p.add_argument("--system", help="AI System id")
    p.set_defaults(handler=run)
    p = target.add_parser("verify", help="mark a target VERIFIED (the organization owns it)", parents=[leaf])
    p.add_argument("target_id", metavar="ID")
    p.set_defaults(handler=run)
    p = target.add_parser("consent", help="consent to probe suites on a target", parents=[leaf])
    p.add_argument("target_id", metavar="ID")
    p.add_argument("--suites", required=True, help=f"comma-separated: {','.join(SUITES)}")
    p.set_defaults(handler=run)
    p = target.add_parser("retire", help="mark a target RETIRED (final: never probed again)", parents=[leaf])
    p.add_argument("target_id", metavar="ID")
    p.set_defaults(handler=run)


def _register_users(groups: _SubParsers, leaf: argparse.ArgumentParser) -> None:
    user = groups.add_parser("user", help="dashboard users and their roles").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    p = user.add_parser(
        "create",
        help="create a dashboard user with a role in an organization",
        parents=[leaf],
        description="Create a user who signs in at /dashboard/login with a role in an organization (docs/dashboard.md). "
        "The password is the first line of stdin (at least 12 characters). For an existing user (same email) the "
        "password must be theirs, and the organization is added to their memberships.",
    )
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--email", required=True, help="the user's email (their sign-in name)")
    p.add_argument("--role", required=True, choices=ROLES, help="owner, admin, member or viewer")
    p.add_argument("--password-stdin", action="store_true", required=True, help="read the password from stdin")
    p.set_defaults(handler=run)
    p = user.add_parser(
        "invite",
        help="issue an invitation link to join an organization (printed once)",
        parents=[leaf],
        description="Issue a single-use link that lets EMAIL choose a password (or confirm theirs, for an existing "
        'account) and join the organization with ROLE (docs/dashboard.md, "Invitations"). The link starts with '
        "--public-url or $ASSAY_PUBLIC_URL, the address people open the dashboard at; without either, only its path "
        "is printed. An earlier open invitation of the same email to the same organization stops working.",
    )
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--email", required=True, help="the invited person's email (their sign-in name)")
    p.add_argument("--role", required=True, choices=ROLES, help="owner, admin, member or viewer")
    p.add_argument("--expires-in", metavar="DURATION", help="how long the link works (default 7d, at most 30d)")
    p.add_argument("--public-url", metavar="URL", help="the service's address (default: $ASSAY_PUBLIC_URL)")
    p.set_defaults(handler=run)
    p = user.add_parser("list", help="list users and their roles", parents=[leaf])
    p.add_argument("--org", help="organization id (default: all)")
    p.set_defaults(handler=run)
    p = user.add_parser("disable", help="disable a user: no sign-in, open sessions end now", parents=[leaf])
    p.add_argument("email", metavar="EMAIL")
    p.set_defaults(handler=run)


def _fail(args: argparse.Namespace, code: str, message: str, exit_code: int) -> int:
    if args.json:
        print(json.dumps({"error": {"code": code, "message": message}}))
    print(f"assay admin: {message}", file=sys.stderr)
    return exit_code


def _print_human(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if "targets" in result:
        for item in result["targets"]:
            suites = ",".join(item["consentedSuites"]) or "-"
            print(
                f"{item['targetId']}  {item['kind']}  {item['status']}  {item['aiSystemId']}  {suites}  {item['address']}"
            )
        return
    if "users" in result:
        for item in result["users"]:
            state = "disabled" if item["disabled"] else "active"
            print(f"{item['email']}  {item['organizationId']}  {item['role']}  {state}")
        return
    if "binders" in result:
        for item in result["binders"]:
            state = "active" if item["active"] else "inactive"
            print(
                f"{item['binderId']}  {item['adapterId']}  {item['sourceSystem']}  {item['aiSystemId'] or '-'}  {state}"
            )
        return
    for name, value in result.items():
        print(f"{name}: {', '.join(value) if isinstance(value, list) else value}")
    if "apiKey" in result:
        print("Store this key now: it is shown once and only its hash is kept.", file=sys.stderr)
    if "invitationLink" in result:
        print("Send this link to the person invited: it is shown once and only its hash is kept.", file=sys.stderr)
        if result["invitationLink"].startswith("/"):
            print(
                "Set ASSAY_PUBLIC_URL (or --public-url) to the service's address to print a whole link.",
                file=sys.stderr,
            )


def _run_on_sqlite(args: argparse.Namespace) -> dict[str, Any] | None:
    """The result of the command through the standard library's sqlite3 when the database is a SQLite file
    at the newest schema and the command is one it serves; None otherwise (nothing was done)."""
    from assay.backend.provisioning_sqlite import open_at_head
    from assay.server.admin_sqlite import SERVED, run_action
    from assay.server.settings import database_url, read_environment

    action = f"{args.group} {args.action}"
    if action not in SERVED:
        return None
    connection = open_at_head(database_url(args.database_url, read_environment()))
    if connection is None:
        return None
    try:
        return run_action(connection, action, args)
    finally:
        connection.close()


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from assay.backend.provisioning_rules import ProvisioningError
    from assay.server.settings import SettingsError

    # Without SQLAlchemy when it can (start-up: issue 21); it is several times `pip --version` to import.
    try:
        fast = _run_on_sqlite(args)
    except ProvisioningError as exc:
        return _fail(args, exc.code, exc.message, 1)
    except SettingsError as exc:
        return _fail(args, "INVALID", str(exc), 2)
    except (sqlite3.Error, OSError) as exc:
        return _fail(args, "DATABASE", f"database error: {type(exc).__name__}: {exc}", 1)
    if fast is not None:
        _print_result(args, fast)
        return 0
    return _run_full(args)


def _print_result(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print_human(args, result)


def _run_full(args: argparse.Namespace) -> int:
    # Imported here: `assay --help` lists this command without the database stack.
    import asyncio

    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from assay.backend import provisioning
    from assay.backend.storage.db import DatabaseUrlError
    from assay.server.admin_actions import ACTIONS, execute
    from assay.server.settings import SettingsError, database_url, read_environment

    try:
        url = database_url(args.database_url, read_environment())
        result = asyncio.run(execute(url, ACTIONS[f"{args.group} {args.action}"], args))
    except provisioning.ProvisioningError as exc:
        return _fail(args, exc.code, exc.message, 1)
    except (SettingsError, DatabaseUrlError) as exc:
        return _fail(args, "INVALID", str(exc), 2)
    except (SQLAlchemyError, OSError) as exc:
        return _fail(args, "DATABASE", f"database error: {type(exc).__name__}: {exc}", 1)
    except CommandError as exc:  # the schema's revision is not one of this version's migrations
        message = (
            f"database error: its schema is at a revision this Assay does not know (written by a newer Assay?): {exc}"
        )
        return _fail(args, "DATABASE", message, 1)
    _print_result(args, result)
    return 0
