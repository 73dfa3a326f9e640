"""SARIF results of another scanner (a real one: ruff) become findings of the Evaluation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.agent_audit import build_agent_audit
from assay.backend.evaluation.membership import ingested_item, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

AGENT = '''import os
from langchain_core.tools import tool
from openai import OpenAI


def ask(q: str) -> str:
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[]).choices[0].message.content


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()
'''
DECLARATION = 'version = "1"\npurpose = "answers"\ntools = ["lookup"]\n'


def _ruff_sarif(root: Path) -> dict[str, Any]:
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "check", "--isolated", "--select", "F401", "--output-format", "sarif", "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # ruff exits 1 when it reports results
    log: dict[str, Any] = json.loads(done.stdout)
    return log


def _evaluate(tmp_path: Path, with_sarif: bool) -> EvaluationPayload:
    root = tmp_path / "system"
    root.mkdir(exist_ok=True)
    (root / "agent.py").write_text(AGENT)
    (root / "util.py").write_text("import sys\n\n\ndef f() -> int:\n    return 1\n")
    (root / "assay.toml").write_text(DECLARATION)
    items = [static_bundle_item(scan_tree(root).to_json_dict())]
    if with_sarif:
        items.append(ingested_item("sarif_report", "sarif-import", {"sarif": _ruff_sarif(root)}))
    return evaluate(make_membership(items), ai_system_id="sys-t", jurisdiction=None)


def test_ruff_results_become_findings_and_errors_on_tool_code_are_review(tmp_path: Path) -> None:
    assert _evaluate(tmp_path, with_sarif=False).disposition == "ALLOW"
    payload = _evaluate(tmp_path, with_sarif=True)
    found = payload.data["importedFindings"]
    assert [(f["tool"], f["ruleId"], f["level"], f["location"], f["onReachableCode"]) for f in found] == [
        ("ruff", "F401", "error", {"path": "agent.py", "line": 1}, True),
        ("ruff", "F401", "error", {"path": "util.py", "line": 1}, False),
    ]
    assert payload.disposition == "REVIEW"
    (reason,) = [r for r in payload.data["reasons"] if r["ruleId"] == "REVIEW-010"]
    assert "ruff" in reason["message"] and "agent.py:1" in reason["message"]
    assert reason["evidenceRefs"] == found[0]["evidenceRefs"]
    audit = build_agent_audit("eval-x", payload)
    items = [i for i in audit["agentAudit"]["verificationItems"] if i["relationIds"] == [found[0]["id"]]]
    assert len(items) == 1 and "agent.py:1" in items[0]["verificationNeeded"]
    assert "sarif-import" in items[0]["verificationNeeded"]


def test_warnings_and_results_off_tool_code_do_not_change_the_disposition(tmp_path: Path) -> None:
    payload = _evaluate(tmp_path, with_sarif=True)
    util = [f for f in payload.data["importedFindings"] if f["location"]["path"] == "util.py"]
    assert util and not util[0]["onReachableCode"]
    assert all("util.py" not in r["message"] for r in payload.data["reasons"])
