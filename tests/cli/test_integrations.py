"""The GitHub Action (action.yml) and the pre-commit hooks (.pre-commit-hooks.yaml): their commands, run
as they define them (the steps that are GitHub's own actions, setup-python and upload-sarif, excepted)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_helpers import EXAMPLES, ROOT, assert_valid_sarif, child_env

pytestmark = pytest.mark.slow


def _bin_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    # `assay` on PATH is this checkout's installed command, as after the action's install step.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return child_env(PATH=path, ASSAY_DATA_DIR=str(tmp_path / "data"), **extra)


def _step(action: dict[str, Any], step_id: str) -> dict[str, Any]:
    step: dict[str, Any] = next(s for s in action["runs"]["steps"] if s.get("id") == step_id)
    return step


def _run_step(step: dict[str, Any], inputs: dict[str, str], env: dict[str, str], cwd: Path) -> int:
    # GitHub substitutes ${{ inputs.X }} and ${{ steps.S.outputs.Y }} before the shell sees them.
    values = {k: v.replace("${{ inputs.", "").replace(" }}", "") for k, v in (step.get("env") or {}).items()}
    step_env = {**env, **{k: inputs.get(v, v) for k, v in values.items()}}
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], env=step_env, cwd=cwd, timeout=300)
    return proc.returncode


def test_the_action_checks_writes_sarif_and_a_summary_then_fails_on_block(tmp_path: Path) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    workspace = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "ops-agent", workspace / "agent")
    output, summary = tmp_path / "github-output", tmp_path / "step-summary"
    env = _bin_env(tmp_path, GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary), GITHUB_ACTION_PATH=str(ROOT))
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs = {**defaults, "path": "agent"}

    assert _run_step(_step(action, "check"), inputs, env, workspace) == 0  # the status is kept for later
    assert output.read_text() == "exit-code=5\n"
    log = json.loads((workspace / "assay.sarif").read_text())
    assert_valid_sarif(log)
    assert log["runs"][0]["properties"]["disposition"] == "BLOCK"
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("agent/ops_agent/")  # relative to the repository root, where code scanning looks
    assert summary.read_text().startswith("## ⛔ Assay: BLOCK")
    upload = next(s for s in action["runs"]["steps"] if "upload-sarif" in str(s.get("uses")))
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"

    gate = _step(action, "gate")
    assert subprocess.run(["bash", "-c", gate["run"]], env={**env, "ASSAY_EXIT": "5"}, timeout=10).returncode == 5
    assert subprocess.run(["bash", "-c", gate["run"]], env={**env, "ASSAY_EXIT": "0"}, timeout=10).returncode == 0

    # With the stored result as the baseline nothing is new: the check passes.
    (workspace / "baseline.json").write_text(
        subprocess.run(
            ["assay", "check", "agent", "--format", "json", "--fail-on", "never", "--no-cache"],
            env=env,
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
    )
    output.write_text("")
    assert _run_step(_step(action, "check"), {**inputs, "baseline": "baseline.json"}, env, workspace) == 0
    assert output.read_text() == "exit-code=0\n"


@pytest.mark.parametrize(("path", "status"), [("empty", 3), ("agnet", 2)])
def test_the_action_fails_on_a_folder_with_no_source_or_a_mistyped_path(tmp_path: Path, path: str, status: int) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    workspace = tmp_path / "repo"
    (workspace / "empty").mkdir(parents=True)
    output = tmp_path / "github-output"
    env = _bin_env(tmp_path, GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(tmp_path / "summary"))
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    assert _run_step(_step(action, "check"), {**defaults, "path": path}, env, workspace) == 0
    assert output.read_text() == f"exit-code={status}\n"
    gate = _step(action, "gate")
    failed = subprocess.run(["bash", "-c", gate["run"]], env={**env, "ASSAY_EXIT": str(status)}, timeout=10)
    assert failed.returncode == status  # the job fails


@pytest.mark.parametrize(
    ("example", "hook", "expected"),
    [
        ("ops-agent", "assay-check", 5),
        ("research-assistant", "assay-check", 0),
        ("ops-agent", "assay-scan", 4),
        ("research-assistant", "assay-scan", 0),
    ],
)
def test_pre_commit_hooks_run_their_entry(tmp_path: Path, example: str, hook: str, expected: int) -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    spec = hooks[hook]
    assert spec["language"] == "python" and spec["pass_filenames"] is False
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / example, repo)
    # pre-commit runs `entry` followed by `args`, at the repository root.
    argv = [*shlex.split(spec["entry"]), *spec.get("args", [])]
    proc = subprocess.run(argv, env=_bin_env(tmp_path), cwd=repo, capture_output=True, text=True, timeout=300)
    assert proc.returncode == expected, proc.stderr
