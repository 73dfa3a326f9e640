"""`assay scan --fail-on SEVERITY`, `--format sarif`, the bounded summary for people, and its progress."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import EXAMPLES, ROOT, assert_valid_sarif

from assay.server.cli import main
from assay.server.commands.scan import SUMMARY_ITEMS, progress


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def scan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["scan", *args, "--no-cache"])
    return code, capsys.readouterr().out


def test_fail_on_severity(capsys: pytest.CaptureFixture[str]) -> None:
    # examples/ops-agent has a critical finding (F-TAINT-EXEC); research-assistant has none at all.
    assert scan(capsys, "examples/ops-agent")[0] == 0  # default: never
    assert scan(capsys, "examples/ops-agent", "--fail-on", "critical")[0] == 4
    assert scan(capsys, "examples/research-assistant", "--fail-on", "info")[0] == 0
    assert scan(capsys, "examples/ops-agent", "--fail-on", "never")[0] == 0


def test_sarif_of_findings_validates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = scan(capsys, "examples/ops-agent", "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    assert_valid_sarif(log)
    run = log["runs"][0]
    assert {r["ruleId"] for r in run["results"]} >= {"F-TAINT-EXEC", "F-UNDECLARED-ACTION"}
    taint = next(r for r in run["results"] if r["ruleId"] == "F-TAINT-EXEC")
    assert taint["level"] == "error"
    assert taint["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("examples/ops-agent/")
    assert run["properties"]["contentHash"].startswith("sha256:")


def test_summary_is_bounded_on_a_large_tree(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = tmp_path / "many"
    package = tree / "agent"
    package.mkdir(parents=True)
    shutil.copy(EXAMPLES / "ops-agent" / "ops_agent" / "tools.py", package / "tools.py")
    source = (package / "tools.py").read_text()
    for n in range(12):  # 12 copies of a file with several tools and actions
        (package / f"tools_{n}.py").write_text(source)
    code, out = scan(capsys, str(tree))
    assert code == 0
    assert out.count("\n") < 12 * SUMMARY_ITEMS
    assert "more (--json or --out FILE lists every one)" in out
    assert "by severity: critical" in out
    # The most severe findings come first.
    findings = out[out.index("Findings (") :].splitlines()[2:5]
    assert all("[critical]" in line for line in findings), findings


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_only_when_slow() -> None:
    quiet, slow_pipe, fast_tty, slow_tty = io.StringIO(), io.StringIO(), _Terminal(), _Terminal()
    with progress("scanning", after=0.0, stream=slow_pipe):
        pass
    with progress("scanning", after=30.0, stream=fast_tty):
        pass
    assert slow_pipe.getvalue() == fast_tty.getvalue() == quiet.getvalue() == ""
    import threading

    shown = threading.Event()

    class _Watching(_Terminal):
        def write(self, text: str) -> int:
            if "scanning" in text:
                shown.set()
            return super().write(text)

    slow_tty = _Watching()
    with progress("scanning", after=0.0, stream=slow_tty):
        assert shown.wait(10)
    assert "scanning" in slow_tty.getvalue()
