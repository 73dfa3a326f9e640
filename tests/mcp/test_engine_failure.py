"""Engine failures: a run that fails in its engine, and a local scanner that fails, are clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import copy_example, data, embedded, error_text

from assay.backend.engines.static import scan
from assay.backend.runs import worker
from assay.backend.runs.engines import EngineFailureError
from assay.backend.settings import ServiceSettings
from mcp import Client


def _broken_scan(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("analyzer crashed")


async def test_a_run_failing_in_the_static_engine_reads_as_failed(
    settings: ServiceSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = copy_example("research-assistant", tmp_path)
    monkeypatch.setattr(scan, "scan_tree", _broken_scan)  # the one-call tool's local scan
    monkeypatch.setattr(scan, "scan_tree_canonical", _broken_scan)  # a run's fresh scan
    async with embedded(settings, workspace) as (_, server, _log), Client(server) as client:
        created = data(await client.call_tool("assay_create_run", {"execution_mode": "api"}))
        run = data(await client.call_tool("assay_get_run", {"run_id": created["runId"], "wait_seconds": 30}))
        assert run["status"] == "FAILED" and run["evaluation"] is None
        assert run["failure"]["engine"] == "static" and run["failure"]["code"] == "RUN_FAILED"
        assert "failed" in run["nextStep"] and "NEW run" in run["nextStep"]
        # The local scanner of the one-call tool fails too: a tool error naming it, nothing submitted.
        local = await client.call_tool("assay_assess_workspace", {})
        assert local.is_error
        assert "SCAN_FAILED: The static engine failed on" in error_text(local)
        assert data(await client.call_tool("assay_list_runs", {}))["total"] == 1


async def test_assess_workspace_reports_the_runs_engine_failure(
    settings: ServiceSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def failing_evidence(*args: Any, **kwargs: Any) -> Any:
        raise EngineFailureError("RUN_FAILED", "static", "The attached scan could not be loaded.", retryable=True)

    monkeypatch.setattr(worker, "static_evidence", failing_evidence)
    workspace = copy_example("research-assistant", tmp_path)
    async with embedded(settings, workspace) as (_, server, _log), Client(server) as client:
        result = await client.call_tool("assay_assess_workspace", {})
        assert result.is_error
        text = error_text(result)
        assert (
            "RUN_FAILED: Run run_" in text and "failed in engine static: The attached scan could not be loaded" in text
        )
        assert "Next: fix the cause, then call assay_assess_workspace again" in text
