"""``assay probe`` as a subprocess: the deliberately vulnerable server comes out BLOCK (exit status 1) in
one JSON object, and a bad suite is a usage error (exit status 2)."""

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
        [*CLI, "--command", command, "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["disposition"] == "BLOCK"
    assert result["runtime"]["targets"][0]["ruleHits"] == 8
    bad = subprocess.run(
        [*CLI, "--command", command, "--suites", "everything"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "--suites" in bad.stderr
