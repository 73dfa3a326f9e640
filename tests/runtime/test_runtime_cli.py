"""``assay probe`` as a subprocess: the deliberately vulnerable server comes out BLOCK (exit status 1) in
one JSON object, its recording evaluated again from the database in a NEW run gives the same judgement,
and a bad suite is a usage error (exit status 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from runtime_helpers import EVERYTHING_WRONG, peer

CLI = [sys.executable, "-m", "assay.server.cli", "probe"]


@pytest.mark.slow
def test_assay_probe_prints_the_disposition_and_exits_1_on_block(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")} | {"ASSAY_DATA_DIR": str(tmp_path)}
    command = peer(EVERYTHING_WRONG)
    done = subprocess.run(
        [*CLI, "--command", command, "--db", str(tmp_path / "probes.db"), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["disposition"] == "BLOCK"
    assert result["runtime"]["targets"][0]["ruleHits"] == 8
    replayed = subprocess.run(
        [*CLI, "--recording", result["runId"], "--db", str(tmp_path / "probes.db"), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert replayed.returncode == 1, replayed.stderr
    again = json.loads(replayed.stdout)
    assert again["runId"] != result["runId"]
    assert (again["disposition"], again["runtime"], again["reasons"]) == (
        result["disposition"], result["runtime"], result["reasons"]
    )  # fmt: skip
    no_db = subprocess.run(
        [*CLI, "--recording", result["runId"]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert no_db.returncode == 2 and "--db" in no_db.stderr
    bad = subprocess.run(
        [*CLI, "--command", command, "--suites", "everything"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "--suites" in bad.stderr
