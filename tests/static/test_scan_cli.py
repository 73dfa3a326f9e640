"""``assay scan``: the summary, the JSON bundle, worker processes, and the options it refuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bench.gen_tree import generate

from assay.server.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ops-agent"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "tree"
    generate(root, total_lines=8_000)  # enough files for the scan to start worker processes
    return root


def test_any_number_of_jobs_gives_the_same_bundle(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for jobs in ("1", "2"):
        assert main(["scan", str(tree), "--json", "--no-cache", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["coverage"]["analysed"]["count"] >= 64


def test_summary_and_out_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bundle.json"  # its folder must exist: --out never creates one
    assert main(["scan", str(EXAMPLE), "--no-cache", "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith("Scanned ") and f"Evidence Bundle written to {out}" in summary
    assert main(["scan", str(EXAMPLE), "--no-cache", "--json"]) == 0
    assert capsys.readouterr().out == out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "jobs, message", [("0", "needs at least 1 process, got 0"), ("two", "expected a whole number of processes")]
)
def test_bad_jobs_are_refused(jobs: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["scan", str(EXAMPLE), "--jobs", jobs])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_missing_path_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(tmp_path / "nope"), "--no-cache"]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_scan_does_not_load_the_service() -> None:
    # The web and database stack costs over a second to import; a scan has no use for it.
    code = (
        "import sys\n"
        "from assay.server.cli import main\n"
        f"assert main(['scan', {str(EXAMPLE)!r}, '--no-cache']) == 0\n"
        "print(sorted(m for m in ('assay.backend.web.app', 'sqlalchemy', 'uvicorn', 'mcp') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]"
