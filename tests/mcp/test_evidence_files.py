"""An agent attaches evidence it produced locally: an OTLP/JSON trace of its conversations and a SARIF
file of a real linter (ruff), through assay_ingest_evidence or assay_assess_workspace(evidence_files=...)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_helpers import copy_example, data, embedded, error_text

from assay.backend.settings import ServiceSettings
from mcp import Client


def _ruff_sarif(workspace: Path) -> Path:
    out = workspace / "ruff.sarif"
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [
            str(ruff),
            "check",
            "--isolated",
            "--select",
            "F401,S608",
            "--output-format",
            "sarif",
            "--output-file",
            str(out),
            ".",
        ],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.exists(), done.stderr
    return out


async def test_assess_with_a_trace_and_a_sarif_file_attached(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("refund-agent", tmp_path)
    (workspace / "refund_agent" / "tools.py").write_text(
        "import os\n" + (workspace / "refund_agent" / "tools.py").read_text()
    )
    sarif = _ruff_sarif(workspace)
    async with embedded(settings, workspace) as (_, server, _), Client(server) as client:
        plain = data(await client.call_tool("assay_assess_workspace", {}))
        attached = data(
            await client.call_tool(
                "assay_assess_workspace",
                {"evidence_files": ["traces/refunds.otlp.json", str(sarif)]},
            )
        )
        assert "evidenceReceipts" not in plain
        kinds = {r["kind"]: r for r in attached["evidenceReceipts"]}
        assert set(kinds) == {"otlp-traces", "sarif"}
        assert kinds["otlp-traces"]["producerId"] == "structured-ingress"
        assert kinds["sarif"]["producerId"] == "sarif-import"

        async def part(section: str) -> Any:
            arguments = {"evaluation_id": attached["evaluationId"], "detail": "full", "section": section}
            return data(await client.call_tool("assay_get_master_report", arguments))["value"]

        report = {
            name: await part(name)
            for name in ("evaluationScenarioSnapshot", "fourQuestions.observed", "reportProjection", "reasons")
        }
        report["fourQuestions"] = {"observed": report.pop("fourQuestions.observed")}
        snapshot = report["evaluationScenarioSnapshot"]
        assert snapshot["status"] == "DIVERGED"
        assert snapshot["earliestDivergence"]["observedState"] == "issue_refund"
        observed = {a["tool"]: a["count"] for a in report["fourQuestions"]["observed"]["actions"]}
        assert observed == {"verify_identity": 2, "approve": 1, "issue_refund": 2}
        imported = report["reportProjection"]["importedFindings"]
        assert {(f["ruleId"], f["location"]["path"]) for f in imported} >= {("F401", "refund_agent/tools.py")}
        assert any(r["ruleId"] == "REVIEW-010" for r in report["reasons"])
        # The earlier Evaluation is untouched by the later intake.
        again = data(await client.call_tool("assay_get_summary", {"evaluation_id": plain["evaluationId"]}))
        assert again["disposition"] == plain["disposition"]


async def test_ingest_evidence_returns_receipts_to_attach(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("refund-agent", tmp_path)
    async with embedded(settings, workspace) as (_, server, _), Client(server) as client:
        first = data(await client.call_tool("assay_ingest_evidence", {"files": ["traces/refunds.otlp.json"]}))
        second = data(await client.call_tool("assay_ingest_evidence", {"files": ["traces/refunds.otlp.json"]}))
        (receipt,) = first["receipts"]
        assert first["externalEvidenceAttachments"] == [
            {"producerId": "structured-ingress", "producerRunId": receipt["producerRunId"]}
        ]
        # One binder per system and adapter, reused.
        assert second["receipts"][0]["binderId"] == receipt["binderId"]
        assert "assay_assess_workspace" in first["nextStep"]


async def test_files_that_are_not_evidence_are_refused(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = copy_example("refund-agent", tmp_path)
    shutil.copy(workspace / "assay.toml", workspace / "notes.json")
    (workspace / "plain.json").write_text('{"hello": 1}')
    async with embedded(settings, workspace) as (_, server, _), Client(server) as client:
        not_json = await client.call_tool("assay_ingest_evidence", {"files": ["notes.json"]})
        assert not_json.is_error and "is not JSON" in error_text(not_json)
        other = await client.call_tool("assay_ingest_evidence", {"files": ["plain.json"]})
        assert other.is_error and "neither an OTLP/JSON" in error_text(other)
        missing = await client.call_tool("assay_assess_workspace", {"evidence_files": ["nowhere.json"]})
        assert missing.is_error and "cannot be read" in error_text(missing)
