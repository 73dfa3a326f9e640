"""`assay` starts at once: a command loads only what it needs (issue 21). Times live in `make bench`
(bench/startup.py); these tests hold the import sets that make them, in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import ROOT, child_env

# Runs `main(argv)` and prints every module it imported beyond what the interpreter had at start.
_PROBE = """
import json, sys
before = set(sys.modules)
from assay.server.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit:
    pass
sys.stdout.flush()
sys.__stderr__.write(json.dumps(sorted(set(sys.modules) - before)))
"""
CLI_OWN = {"assay", "assay.server", "assay.server.cli", "assay.server.version", "assay.server.output"}


def imported_by(*argv: str, check: bool = False) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv)],
        env=child_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    modules: list[str] = json.loads(proc.stderr.strip().splitlines()[-1])
    assert not check or proc.stdout.strip(), proc.stderr
    return set(modules)


def _third_party(modules: set[str]) -> set[str]:
    """The top-level packages among ``modules`` that are neither the standard library's nor ours."""
    return {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names) - {"assay"}


def test_version_imports_only_the_clis_own_modules() -> None:
    modules = imported_by("--version")
    ours = {m for m in modules if m.split(".")[0] == "assay"}
    assert ours <= CLI_OWN, sorted(ours - CLI_OWN)
    assert _third_party(modules) == set()


def test_help_lists_every_command_without_the_service_engines_or_mcp() -> None:
    modules = imported_by("--help")
    assert {f"assay.server.commands.{name}" for name in ("check", "scan", "serve", "admin", "mcp")} <= modules
    # platformdirs names the default cache folder in `assay scan --help`.
    assert _third_party(modules) <= {"platformdirs"}, sorted(_third_party(modules))
    assert not {m for m in modules if m.startswith(("assay.tools", "assay.backend.web", "assay.backend.storage"))}


@pytest.mark.parametrize(
    "argv",
    [
        ("admin", "--help"),
        ("serve", "--help"),
        ("worker", "--help"),
        ("mcp", "--help"),
        ("passport", "--help"),
        ("check", "--help"),
        ("scan", "--help"),
        ("assess", "--help"),
        ("probe", "--help"),
    ],
)
def test_a_commands_help_loads_no_service_stack(argv: tuple[str, ...]) -> None:
    heavy = {"sqlalchemy", "sqlmodel", "alembic", "starlette", "uvicorn", "mcp", "jsonschema", "httpx", "pydantic"}
    assert not _third_party(imported_by(*argv)) & heavy


def test_admin_provisioning_on_a_database_at_head_loads_no_database_stack(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'admin.db'}"
    imported_by("admin", "org", "create", "first", "--database-url", url, check=True)  # creates the schema
    # At the newest schema, the standard library's sqlite3 does it: no SQLAlchemy, SQLModel, data model,
    # web stack or Alembic; no third-party package but platformdirs (the default data folder, in settings).
    modules = imported_by("admin", "org", "create", "second", "--database-url", url, check=True)
    assert _third_party(modules) <= {"platformdirs"}, sorted(_third_party(modules))
    assert not {m for m in modules if m.startswith(("assay.backend.storage.models", "assay.backend.web"))}
    assert "assay.backend.provisioning_sqlite" in modules


def test_admin_lists_the_adapters_binders_can_name() -> None:
    from assay.backend.intake import ADAPTER_IDS
    from assay.backend.intake.adapters import ADAPTERS

    assert tuple(sorted(ADAPTERS)) == ADAPTER_IDS


def test_scan_outside_git_loads_no_dulwich_and_a_rescan_no_analyzer(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "agent.py").write_text("import subprocess\n\ndef run(cmd: str) -> None:\n    subprocess.run(cmd)\n")
    argv = ("scan", str(tree), "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "bundle.json"))
    first = imported_by(*argv)
    assert "assay.backend.engines.static.pyast.frontend" in first  # the file was analysed
    assert "assay.backend.engines.static.jsts.frontend" not in first  # no JavaScript or TypeScript file
    assert (tmp_path / "bundle.json").is_file()
    again = imported_by(*argv)
    assert not {m for m in again if m.startswith("assay.backend.engines.static.") and ".frontend" in m}
    assert "dulwich" not in {m.split(".")[0] for m in first | again}  # not a git repository
