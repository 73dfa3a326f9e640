"""Reading runs: the list (pagination, status filter, bounds), one run, and the organization boundary on
runs and evaluations (another organization's resource is byte for byte the same 404 as a missing one)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from runs_helpers import EVALUATIONS, RUNS, STATIC, bind, copy_example, create
from service_helpers import World, assert_error, bearer

from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings

LIST_ITEM_MEMBERS = {
    "runId",
    "aiSystemId",
    "status",
    "stage",
    "staticExecutionMode",
    "jurisdiction",
    "createdAt",
    "startedAt",
    "completedAt",
    "links",
}


@pytest.fixture
def settings(settings: ServiceSettings) -> ServiceSettings:
    # No in-process worker: the tests decide which runs execute (Worker.run_once), so statuses are exact.
    return replace(settings, run_workers=0)


async def test_pagination_status_filter_and_bounds(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    key = world.agent_key_a
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    ids = [(await create(client, key, {"aiSystemId": world.system_a, **STATIC})).json()["runId"] for _ in range(5)]
    worker = Worker(world.sessions, settings)
    assert await worker.run_once() and await worker.run_once()  # the two oldest complete

    everything = (await client.get(RUNS, headers=bearer(key))).json()
    assert (everything["page"], everything["limit"], everything["total"]) == (1, 20, 5)
    assert [r["runId"] for r in everything["runs"]] == ids[::-1]  # newest first
    assert set(everything["runs"][0]) == LIST_ITEM_MEMBERS
    assert everything["runs"][0]["links"] == {"self": f"{RUNS}/{ids[-1]}"}
    assert everything["runs"][0]["staticExecutionMode"] == "api"

    page = (await client.get(RUNS, params={"page": 2, "limit": 2}, headers=bearer(key))).json()
    assert (page["page"], page["limit"], page["total"]) == (2, 2, 5)
    assert [r["runId"] for r in page["runs"]] == [ids[2], ids[1]]
    beyond = (await client.get(RUNS, params={"page": 4, "limit": 2}, headers=bearer(key))).json()
    assert beyond["runs"] == [] and beyond["total"] == 5
    assert (await client.get(RUNS, params={"limit": 50}, headers=bearer(key))).json()["limit"] == 50

    def filtered(status: str) -> dict[str, str]:
        return {"status": status}

    completed = (await client.get(RUNS, params=filtered("COMPLETED"), headers=bearer(key))).json()
    assert completed["total"] == 2 and {r["runId"] for r in completed["runs"]} == set(ids[:2])
    assert all(r["completedAt"] is not None for r in completed["runs"])
    queued = (await client.get(RUNS, params=filtered("queued"), headers=bearer(key))).json()
    assert queued["total"] == 3 and all(r["startedAt"] is None for r in queued["runs"])
    for status in ("RUNNING", "FAILED"):
        assert (await client.get(RUNS, params=filtered(status), headers=bearer(key))).json()["total"] == 0

    for params in (
        {"limit": 51},
        {"limit": 0},
        {"limit": -1},
        {"limit": "ten"},
        {"page": 0},
        {"page": "1.5"},
        # An offset beyond 64 bits, thousands of digits (int() refuses over 4,300), non-ASCII digits.
        {"page": str(2**63)},
        {"page": "9" * 5000},
        {"page": "1000000001"},
        {"page": "\uff11"},
        {"limit": "\u0662"},
        {"page": " 1"},
        {"status": "DONE"},
        {"status": ""},
    ):
        assert_error(await client.get(RUNS, params=params, headers=bearer(key)), 400, "INVALID_REQUEST")
    assert (await client.get(RUNS, headers=bearer(world.agent_key_b))).json()["total"] == 0


async def test_a_queued_run_has_only_its_self_link(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    created = (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()
    envelope = (await client.get(f"{RUNS}/{created['runId']}", headers=bearer(world.agent_key_a))).json()
    assert envelope == created
    assert envelope["status"] == "QUEUED" and envelope["stage"] is None and envelope["startedAt"] is None
    assert envelope["evaluation"] is None and envelope["failure"] is None
    assert {k for k, v in envelope["links"].items() if v is not None} == {"self"}
    assert set(envelope["links"]) == {
        "self",
        "summary",
        "report",
        "masterReport",
        "masterReportPdf",
        "agentAudit",
        "passport",
        "pdf",
        "dashboard",
        "dashboardEvaluation",
        "dashboardMasterReport",
        "dashboardSystemWorkspace",
        "dashboardAssurance",
        "dashboardReports",
    }


async def test_cross_organization_runs_and_evaluations_are_indistinguishable_404s(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    created = (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()
    assert await Worker(world.sessions, settings).run_once()
    done = (await client.get(f"{RUNS}/{created['runId']}", headers=bearer(world.agent_key_a))).json()
    evaluation_id = done["evaluation"]["evaluationId"]
    pairs = [(f"{RUNS}/{done['runId']}", f"{RUNS}/run_00000000000000000000")]
    for suffix in ("/summary", "/agent-audit"):
        pairs.append((f"{EVALUATIONS}/{evaluation_id}{suffix}", f"{EVALUATIONS}/eval_00000000000000000000{suffix}"))
    for foreign, missing in pairs:
        assert (await client.get(foreign, headers=bearer(world.agent_key_a))).status_code == 200
        a = await client.get(foreign, headers=bearer(world.agent_key_b))
        b = await client.get(missing, headers=bearer(world.agent_key_b))
        assert_error(a, 404, "RUN_NOT_FOUND" if foreign.startswith(f"{RUNS}/") else "RESOURCE_NOT_FOUND")
        assert a.content == b.content
        assert dict(a.headers) == dict(b.headers)


async def test_evaluation_reads_need_report_read(
    client: httpx.AsyncClient, world: World, tmp_path: Path, settings: ServiceSettings
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
    created = (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()
    assert await Worker(world.sessions, settings).run_once()
    done = (await client.get(created["links"]["self"], headers=bearer(world.agent_key_a))).json()
    runs_only = await world.key(["scan:create", "scan:read"])
    assert_error(await client.get(done["links"]["summary"], headers=bearer(runs_only)), 403, "INSUFFICIENT_SCOPE")
    reports_only = await world.key(["report:read"])
    assert (await client.get(done["links"]["agentAudit"], headers=bearer(reports_only))).status_code == 200
    assert_error(await client.get(done["links"]["self"], headers=bearer(reports_only)), 403, "INSUFFICIENT_SCOPE")
