"""Rough edges a user meets first: a closed pipe, --out into a missing folder, --version, the LICENSE."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_helpers import ASSAY, ROOT, child_env, run_assay

from assay.server.cli import main


@pytest.mark.slow
@pytest.mark.parametrize(
    "args", [["scan", "examples/ops-agent", "--json", "--no-cache"], ["scan", "examples/ops-agent"]]
)
def test_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    # The reader is gone before the command writes (as `| head` is once it has its lines).
    proc = subprocess.Popen([*ASSAY, *args], cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == ""


@pytest.mark.parametrize("command", ["scan", "check"])
def test_out_into_a_missing_folder_is_refused_not_created(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "dir" / "x.json"
    code = main([command, str(ROOT / "examples" / "ops-agent"), "--out", str(target), "--no-cache"])
    assert code == 2
    assert f"the folder {target.parent} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_scan_out_writes_the_whole_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bundle.json"
    assert main(["scan", str(ROOT / "examples" / "ops-agent"), "--out", str(target), "--no-cache"]) == 0
    assert target.read_text().startswith("{") and f"Evidence Bundle written to {target}" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["bundle.json"]  # no temporary file left behind


def test_version() -> None:
    from importlib.metadata import version

    proc = run_assay("--version")
    assert proc.returncode == 0
    assert proc.stdout == f"assay {version('assay')}\n"


def test_license_is_the_apache_license_pyproject_names() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["check"],
        ["scan"],
        ["serve"],
        ["admin"],
        ["admin", "key", "create"],
        ["admin", "binder", "create"],
        ["worker"],
        ["mcp"],
        ["passport", "verify"],
    ],
)
def test_help_is_plain_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*argv, "--help"])
    assert ended.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: assay")
    assert "`" not in text  # no reStructuredText or Markdown markup in a terminal
