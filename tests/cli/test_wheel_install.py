"""Done when (issue 16): in a fresh virtual environment a wheel built from this checkout installs, and
`assay check examples/ops-agent --fail-on block` exits with the BLOCK status and writes SARIF that validates."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from cli_helpers import ROOT, assert_valid_sarif, child_env

from assay.server.commands.check import EXIT_BLOCK

pytestmark = pytest.mark.slow


def test_built_wheel_installs_and_checks(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("assay-*.whl")

    env_dir = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--prefer-binary", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr
    assay = env_dir / "bin" / "assay"

    version = subprocess.run([str(assay), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("assay ")
    sarif = tmp_path / "assay.sarif"
    env = child_env(ASSAY_DATA_DIR=str(tmp_path / "data"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    checked = subprocess.run(
        [str(assay), "check", "examples/ops-agent", "--fail-on", "block", "--format", "sarif", "--out", str(sarif)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == EXIT_BLOCK, checked.stderr
    assert checked.stdout.startswith("examples/ops-agent: BLOCK\n")
    log = json.loads(sarif.read_text())
    assert_valid_sarif(log)
    assert log["runs"][0]["properties"]["disposition"] == "BLOCK"
