"""`assay check`: scan, evaluate and report in one command (embedded), its formats, gate and baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import EXAMPLES, ROOT, assert_valid_sarif

from assay.server.cli import main
from assay.server.commands.check import EXIT_BLOCK, EXIT_NOT_ASSESSED, EXIT_PASSED, EXIT_REVIEW, EXIT_USAGE


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    for name in ("ASSAY_BASE_URL", "ASSAY_API_KEY", "ASSAY_SYSTEM_ID", "ASSAY_DATABASE_URL", "CI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASSAY_DATA_DIR", str(tmp_path / "user-data"))


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args, "--no-cache"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_report_of_a_blocked_system_fails_the_default_gate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, "examples/ops-agent")
    assert code == EXIT_BLOCK, err
    assert out.startswith("examples/ops-agent: BLOCK\n")
    # Reasons grouped by disposition, each at its place in the code; then the verification items.
    block, review = out.index("\nBLOCK (3):"), out.index("\nREVIEW (5):")
    assert block < review < out.index("\nVerification needed (5):")
    assert "BLOCK-001  examples/ops-agent/ops_agent/tools.py:37  Model-chosen data" in out
    assert "[vi-" in out and "Gate --fail-on block: FAILED (exit 5)" in out


def test_fail_on_review_and_never(capsys: pytest.CaptureFixture[str]) -> None:
    assert check(capsys, "examples/ops-agent", "--fail-on", "never")[0] == EXIT_PASSED
    code, out, _ = check(capsys, "examples/support-agent-ts", "--fail-on", "review")
    assert out.startswith("examples/support-agent-ts: REVIEW\n")
    assert code == EXIT_REVIEW
    assert check(capsys, "examples/support-agent-ts")[0] == EXIT_PASSED  # REVIEW passes --fail-on block


def test_json_result_and_baseline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    stored = tmp_path / "baseline.json"
    code, out, _ = check(capsys, "examples/ops-agent", "--format", "json", "--out", str(stored))
    assert code == EXIT_BLOCK
    assert "json written to" in out
    result = json.loads(stored.read_text())
    assert result["schemaVersion"] == "assay-check/1" and result["disposition"] == "BLOCK"
    assert {r["disposition"] for r in result["reasons"]} == {"BLOCK", "REVIEW"}
    assert all(r["fingerprint"] and r["locations"] for r in result["reasons"])
    assert result["gate"] == {
        "failOn": "block",
        "baseline": False,
        "newReasons": 0,
        "failed": True,
        "worst": "BLOCK",
        "exitCode": EXIT_BLOCK,
    }
    # Against its own result nothing is new: the same BLOCK no longer fails the build.
    code, out, _ = check(capsys, "examples/ops-agent", "--baseline", str(stored))
    assert code == EXIT_PASSED, out
    assert "0 reason(s) new since the baseline" in out
    # A baseline missing one BLOCK reason: that reason is new and fails the gate again.
    result["reasons"] = [r for r in result["reasons"] if r["ruleId"] != "BLOCK-001"]
    stored.write_text(json.dumps(result))
    code, out, _ = check(capsys, "examples/ops-agent", "--baseline", str(stored), "--format", "json")
    assert code == EXIT_BLOCK
    again = json.loads(out)
    assert [r["ruleId"] for r in again["reasons"] if r["baselineState"] == "new"] == ["BLOCK-001"]
    assert again["gate"]["newReasons"] == 1


def test_fingerprints_do_not_depend_on_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "ops-agent"
    shutil.copytree(EXAMPLES / "ops-agent", tree)
    first = json.loads(check(capsys, str(tree), "--format", "json")[1])
    tools = tree / "ops_agent" / "tools.py"
    tools.write_text("# a comment moves every line down\n\n" + tools.read_text())
    second = json.loads(check(capsys, str(tree), "--format", "json")[1])
    lines = (
        {r["locations"][0]["line"] for r in first["reasons"]},
        {r["locations"][0]["line"] for r in second["reasons"]},
    )
    assert lines[0] != lines[1]
    assert sorted(r["fingerprint"] for r in first["reasons"]) == sorted(r["fingerprint"] for r in second["reasons"])


def test_sarif_validates_and_carries_what_code_scanning_needs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, "examples/ops-agent", "--format", "sarif")
    assert code == EXIT_BLOCK
    log = json.loads(out)
    assert_valid_sarif(log)
    run = log["runs"][0]
    assert run["properties"]["disposition"] == "BLOCK"
    assert run["properties"]["evaluationId"].startswith("eval_")
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"BLOCK-001", "BLOCK-002", "REVIEW-002", "REVIEW-003"}
    assert all(r["help"]["text"] and r["shortDescription"]["text"] for r in rules.values())
    levels = {(r["ruleId"], r["level"]) for r in run["results"]}
    assert ("BLOCK-001", "error") in levels and ("REVIEW-002", "warning") in levels
    first = next(r for r in run["results"] if r["ruleId"] == "BLOCK-001")
    where = first["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "examples/ops-agent/ops_agent/tools.py"
    assert where["region"]["startLine"] == 37
    assert "Verification needed: Break the flow" in first["message"]["text"]
    fingerprints = [r["partialFingerprints"]["assay/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)
    for result in run["results"]:
        assert rules[result["ruleId"]] == run["tool"]["driver"]["rules"][result["ruleIndex"]]


def test_markdown_for_pull_requests_and_the_job_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    code, out, _ = check(capsys, "examples/ops-agent", "--format", "markdown", "--summary", str(summary))
    assert code == EXIT_BLOCK
    assert out.startswith("## ⛔ Assay: BLOCK\n")
    assert "### BLOCK (3)" in out and "| `BLOCK-001` | `examples/ops-agent/ops_agent/tools.py:37` |" in out
    assert "### Verification needed (5)" in out
    appended = summary.read_text()
    assert appended.startswith("earlier step\n## ⛔ Assay: BLOCK")


def test_named_database_keeps_the_evaluations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "history" / "assay.db"
    db.parent.mkdir()
    first = json.loads(check(capsys, "examples/ops-agent", "--db", str(db), "--format", "json")[1])
    second = json.loads(check(capsys, "examples/ops-agent", "--db", str(db), "--format", "json")[1])
    assert db.is_file()
    assert first["aiSystemId"] == second["aiSystemId"]  # the workspace's system, provisioned once
    assert first["evaluationId"] != second["evaluationId"]  # every check is a NEW Evaluation
    assert first["digests"]["coreTruthDigest"] == second["digests"]["coreTruthDigest"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["examples/no-such-system"], "is not a folder"),
        (["examples/ops-agent", "--out", "/missing/dir/x.json"], "the folder /missing/dir does not exist"),
        (["examples/ops-agent", "--baseline", "README.md"], "cannot use the baseline README.md"),
        (["examples/ops-agent", "--db", "/missing/dir/assay.db"], "does not exist"),
        (["examples/ops-agent", "--base-url", "http://127.0.0.1:9"], "needs an API key in ASSAY_API_KEY"),
    ],
)
def test_usage_errors_exit_2_before_any_work(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = check(capsys, *args)
    assert code == EXIT_USAGE
    assert message in err and out == ""
    assert not Path("/missing").exists()


def test_unreachable_service_is_not_assessed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_API_KEY", "svc_test_nothing")
    code, out, err = check(capsys, "examples/ops-agent", "--base-url", "http://127.0.0.1:9", "--system-id", "sys_x")
    assert code == EXIT_NOT_ASSESSED
    assert "not assessed: CONNECTION_FAILED" in err and out == ""


def _many_items_tree(root: Path) -> Path:
    """A tree whose Evaluation has more verification items than one page of the agent audit (20), more
    reasons of one rule than the text view lists, and one REVIEW-001 that the Evaluation lists first."""
    root.mkdir()
    lines = [
        "import shutil",
        "from langchain_core.tools import tool",
        "from openai import OpenAI",
        "",
        "client = OpenAI()",
        "",
        "",
        "def ask(q: str) -> str:",
        "    reply = client.chat.completions.create(model='gpt-4o', messages=[{'role': 'user', 'content': q}])",
        "    return reply.choices[0].message.content or ''",
        "",
        "",
        "@tool",
        "def lookup(key: str) -> str:",
        '    """Look a record up."""',
        "    return registry.fetch_record(key)",
        "",
    ]
    for i in range(25):
        lines += ["", f"def purge_{i}() -> None:", f"    shutil.rmtree('/var/cache/app{i}')", ""]
    (root / "app.py").write_text("\n".join(lines))
    return root


def test_every_format_carries_every_item_and_reason(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = _many_items_tree(tmp_path / "many")
    outputs = {}
    for fmt in ("json", "sarif", "markdown", "text"):
        code, out, err = check(capsys, str(tree), "--format", fmt, "--fail-on", "never")
        assert code == EXIT_PASSED, err
        outputs[fmt] = out
    result = json.loads(outputs["json"])
    items = {i["id"] for i in result["verificationItems"]}
    rules = [r["ruleId"] for r in result["reasons"]]
    assert len(items) == 28 and len(rules) == 52
    # Heaviest rule first: REVIEW-001 (what analysis could not see) comes after every high-impact reason.
    assert rules == ["REVIEW-003"] * 25 + ["REVIEW-008"] * 25 + ["REVIEW-006", "REVIEW-001"]
    run = json.loads(outputs["sarif"])["runs"][0]
    assert_valid_sarif(json.loads(outputs["sarif"]))
    assert {i["id"] for i in run["properties"]["verificationItems"]} == items
    assert run["properties"]["verificationItemCount"] == 28
    assert [r["ruleId"] for r in run["results"]] == rules
    markdown = outputs["markdown"]
    assert {line.split("`")[1] for line in markdown.splitlines() if line.startswith("- **`vi-")} == items
    rows = [line.split("`")[1] for line in markdown.splitlines() if line.startswith("| `RE")]
    assert sorted(rows) == sorted(rules)
    assert rows[:6] == ["REVIEW-003"] * 3 + ["REVIEW-008"] * 3  # unfolded: the first of each rule
    assert "<details><summary>44 more REVIEW reason(s)</summary>" in markdown
    # The text view is bounded: five reasons per rule, ten items, then a count and where the rest is.
    text = outputs["text"].splitlines()
    assert sum(1 for line in text if line.startswith("  REVIEW-003")) == 5
    assert "  ... and 20 more REVIEW-003 (--format json, sarif or markdown lists every one)" in text
    assert [line.split()[0] for line in text if line.startswith("  REVIEW-0")][-2:] == ["REVIEW-006", "REVIEW-001"]
    assert "Verification needed (28):" in text
    assert "  ... and 18 more (--format json, sarif or markdown lists every one)" in text


def test_a_folder_with_no_source_to_analyse_is_not_assessed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = check(capsys, str(empty))
    assert code == EXIT_NOT_ASSESSED and out == ""
    assert (
        f"not assessed: NO_SOURCE_FILES: no Python, JavaScript or TypeScript source file to analyse under {empty}"
        in err
    )
    other = tmp_path / "go-only"
    other.mkdir()
    (other / "main.go").write_text("package main\n")
    code, _, err = check(capsys, str(other), "--fail-on", "never")
    assert code == EXIT_NOT_ASSESSED
    assert "main.go (unsupported_language)" in err
    code, _, err = check(capsys, str(tmp_path / "agnet"))  # a typo
    assert code == EXIT_USAGE and "agnet is not a folder" in err


def test_exclude_leaves_code_out_and_every_format_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = _many_items_tree(tmp_path / "many")
    (tree / "scripts").mkdir()
    (tree / "scripts" / "purge.py").write_text("import shutil\nshutil.rmtree('/srv/data')\n")
    (tree / "assay.toml").write_text('version = "1"\nexclude = ["scripts/"]\n')
    code, out, err = check(capsys, str(tree), "--format", "json", "--fail-on", "never", "--exclude", "app.py")
    assert code == EXIT_NOT_ASSESSED, out  # everything left out: nothing to assess
    assert "e.g. app.py (excluded)" in err
    (tree / "agent.py").write_text((tree / "app.py").read_text())
    code, out, _ = check(capsys, str(tree), "--format", "json", "--fail-on", "never", "--exclude", "app.py")
    result = json.loads(out)
    assert result["target"]["excluded"] == {"patterns": ["scripts/", "app.py"], "paths": ["app.py", "scripts"]}
    assert all(loc["path"] in ("agent.py", "assay.toml") for r in result["reasons"] for loc in r["locations"])
    assert any(lim.startswith("Left out by exclude patterns (scripts/, app.py)") for lim in result["limitations"])
    _, out, _ = check(capsys, str(tree), "--fail-on", "never", "--exclude", "app.py")
    assert "  left out: 2 path(s) matching the exclude patterns scripts/, app.py (not analysed)" in out
    _, out, _ = check(capsys, str(tree), "--format", "sarif", "--fail-on", "never", "--exclude", "app.py")
    assert json.loads(out)["runs"][0]["properties"]["excluded"]["paths"] == ["app.py", "scripts"]
    _, out, _ = check(capsys, str(tree), "--format", "markdown", "--fail-on", "never", "--exclude", "app.py")
    assert "Left out by the exclude patterns `scripts/`, `app.py`: 2 path(s), not analysed." in out


def test_scan_takes_exclude_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = _many_items_tree(tmp_path / "many")
    assert main(["scan", str(tree), "--json", "--no-cache", "--exclude", "*.py"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    assert bundle["coverage"]["excluded"] == ["*.py"] and bundle["coverage"]["files"] == []
    assert main(["scan", str(tree), "--no-cache", "--exclude", "!"]) == 2
    assert "bad exclude pattern" in capsys.readouterr().err


def test_test_code_is_not_the_systems_unless_included(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = tmp_path / "with-tests"
    (tree / "tests").mkdir(parents=True)
    (tree / "app.py").write_text("from openai import OpenAI\n\nOpenAI().chat.completions.create(model='gpt-4o')\n")
    (tree / "tests" / "test_purge.py").write_text("import shutil\n\n\ndef test_purge():\n    shutil.rmtree('/srv')\n")
    _, out, _ = check(capsys, str(tree), "--format", "json", "--fail-on", "never")
    result = json.loads(out)
    assert all(loc["path"] != "tests/test_purge.py" for r in result["reasons"] for loc in r["locations"])
    assert any(lim.startswith("1 test file(s) left out of the system's surface") for lim in result["limitations"])
    _, out, _ = check(capsys, str(tree), "--format", "json", "--fail-on", "never", "--include-tests")
    result = json.loads(out)
    assert any(loc["path"] == "tests/test_purge.py" for r in result["reasons"] for loc in r["locations"])
    assert not any("test file(s)" in lim for lim in result["limitations"])
