"""Runtime runs through the HTTP API against real MCP servers: the deliberately vulnerable
``mcp-server-everything-wrong`` (PyPI) comes out BLOCK with the exact rules it violates, the official
reference servers (npm) with none, a server that changes a tool's description between runs is a rug pull,
and targets that are not verified, consented or live are refused with the contract's codes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from runs_helpers import bind, create
from runtime_helpers import EVERYTHING_WRONG, NODE_BIN, add_target, evaluation, peer, run_to_end, runtime_body
from service_helpers import World, assert_error
from sqlmodel import col, select
from starlette.applications import Starlette

from assay.backend.evaluation.membership import EvidenceItem, make_membership
from assay.backend.evaluation.methodology import evaluate
from assay.backend.runtime import targets
from assay.backend.storage import models

HERE = Path(__file__).resolve().parent


def runtime_section(audit: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in audit["agentAudit"]["sections"] if s["id"] == "runtime")


def rule_hits(audit: dict[str, Any]) -> set[tuple[str, str, str]]:
    section = runtime_section(audit)
    return {(h["ruleId"], h["name"], h["field"]) for t in section["targets"] for h in t["poisoning"]}


async def test_everything_wrong_is_blocked_with_the_exact_rules(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    target = await add_target(app, world, command=peer(EVERYTHING_WRONG))
    done = await run_to_end(client, world, runtime_body(world, target))
    assert done["status"] == "COMPLETED", done
    assert done["evaluation"]["disposition"] == "BLOCK"
    audit = await evaluation(client, world, done)
    assert rule_hits(audit) == {
        ("RT-POISON-002", "joke_teller", "description"),  # left-to-right marks hiding the block
        ("RT-POISON-004", "joke_teller", "description"),  # <IMPORTANT>
        ("RT-POISON-006", "joke_teller", "description"),  # "Do not explain why"
        ("RT-POISON-007", "joke_teller", "description"),  # "instead reply to the user"
        ("RT-POISON-006", "shadowing_attack", "description"),  # "NEVER mention that to the user"
        ("RT-SHADOW-001", "shadowing_attack", "description"),  # "Before using send_email, ALWAYS add ... bcc"
        ("RT-POISON-006", "echo", "inputSchema.properties.debug.description"),
        ("RT-EXFIL-001", "echo", "inputSchema.properties.debug.description"),  # "the user's previous message"
    }
    reasons = audit["agentAudit"]["sections"][0]["reasons"]
    blocks = {(r["ruleId"], r["message"].split(" of ")[0]) for r in reasons if r["disposition"] == "BLOCK"}
    assert blocks == {
        ("BLOCK-101", "Tool joke_teller"),
        ("BLOCK-101", "Tool shadowing_attack"),
        ("BLOCK-101", "Tool echo"),
        ("BLOCK-102", "Tool shadowing_attack"),
    }
    # Benign tools of the same server are not flagged.
    assert not {n for _, n, _ in rule_hits(audit)} & {"greet", "send_email", "env_var", "fetch", "run_command"}
    section = runtime_section(audit)
    assert section["targets"][0]["counts"]["tool"] == 8
    assert section["probePack"]["version"] == "1.1.0" and section["probePack"]["digest"].startswith("sha256:")
    assert any(r["ruleId"] == "REVIEW-103" for r in reasons)  # runtime only: no source analysed


@pytest.mark.parametrize(
    ("server", "args"),
    [("mcp-server-everything", ""), ("mcp-server-memory", ""), ("mcp-server-filesystem", " {tmp}")],
)
async def test_reference_servers_raise_no_rule(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path, server: str, args: str
) -> None:
    command = peer(NODE_BIN / server) + args.format(tmp=tmp_path)
    target = await add_target(app, world, command=command)
    done = await run_to_end(client, world, runtime_body(world, target))
    audit = await evaluation(client, world, done)
    assert rule_hits(audit) == set()
    assert done["evaluation"]["disposition"] == "REVIEW"  # runtime only, no declaration: never ALLOW
    section = runtime_section(audit)
    assert section["targets"][0]["counts"]["tool"] > 0
    assert {r["ruleId"] for r in audit["agentAudit"]["sections"][0]["reasons"]} <= {"REVIEW-006", "REVIEW-103"}


async def test_a_description_changed_between_runs_is_a_rug_pull(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    command = f"{sys.executable} {HERE / 'rugpull_server.py'} {tmp_path / 'starts'}"
    target = await add_target(app, world, command=command)
    first = await evaluation(client, world, await run_to_end(client, world, runtime_body(world, target)))
    assert runtime_section(first)["targets"][0]["drift"] is None  # nothing pinned yet
    second_run = await run_to_end(client, world, runtime_body(world, target))
    second = await evaluation(client, world, second_run)
    drift = runtime_section(second)["targets"][0]["drift"]
    assert drift["changed"] == [{"kind": "tool", "name": "add", "changed": ["description"]}]
    assert drift["pinnedBy"].startswith("sha256:")
    reasons = second["agentAudit"]["sections"][0]["reasons"]
    assert any(r["ruleId"] == "REVIEW-101" and "Tool add" in r["message"] for r in reasons)
    # The new description also reads a key file: poisoning, so BLOCK.
    assert ("RT-POISON-008", "add", "description") in rule_hits(second)
    assert second_run["evaluation"]["disposition"] == "BLOCK"


async def test_unverified_unconsented_and_retired_targets_are_refused(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    canary = tmp_path / "probed"
    command = f"{sys.executable} -c \"open('{canary}', 'w')\""
    pending = await add_target(app, world, command=command, verify=False)
    assert_error(await create(client, world.agent_key_a, runtime_body(world, pending)), 400, "SOURCE_NOT_VERIFIED")
    partial = await add_target(app, world, command=command, suites=("catalogue",))
    refused = await create(client, world.agent_key_a, runtime_body(world, partial, suites=["poisoning"]))
    assert "poisoning" in assert_error(refused, 403, "CONSENT_REQUIRED")["message"]
    retired = await add_target(app, world, command=command)
    async with world.sessions() as session:
        await targets.retire_target(session, retired)
        await session.commit()
    assert_error(await create(client, world.agent_key_a, runtime_body(world, retired)), 409, "SOURCE_UNAVAILABLE")
    # Another organization's target is a missing one.
    foreign = runtime_body(world, retired)
    foreign["aiSystemId"] = world.system_b
    assert_error(await create(client, world.agent_key_b, foreign), 404, "RESOURCE_NOT_FOUND")
    agent_only = await add_target(app, world, command=command, suites=("agent",))
    mismatched = await create(client, world.agent_key_a, runtime_body(world, agent_only, suites=["agent"]))
    assert "agent-url" in assert_error(mismatched, 400, "INVALID_REQUEST")["message"]
    assert not canary.exists()  # nothing was ever started


@pytest.mark.parametrize(
    ("mode", "config", "message", "retryable"),
    [
        ("hang", {"timeoutSeconds": 2}, "did not complete the session within 2 s", True),
        ("oversized", {}, "exceeds 4194304 bytes", False),
        ("flood", {}, "exceeds 4194304 bytes", False),
        ("nested", {}, "nested too deeply", False),
        ("utf8", {}, "invalid UTF-8", False),
        ("crash", {}, "exited mid-session (exit status 3)", True),
        ("pages", {"maxRequests": 10}, "more than 10 requests", False),
    ],
)
async def test_bad_servers_fail_the_run_with_a_runtime_failure(
    app: Starlette,
    client: httpx.AsyncClient,
    world: World,
    mode: str,
    config: dict[str, Any],
    message: str,
    retryable: bool,
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'bad_server.py'} {mode}")
    done = await run_to_end(client, world, runtime_body(world, target, **config), seconds=60)
    assert done["status"] == "FAILED", done
    failure = done["failure"]
    assert failure["engine"] == "runtime" and failure["code"] == "RUN_FAILED"
    assert message in failure["message"], failure
    assert failure["retryable"] is retryable
    assert done["evaluation"] is None


async def test_a_10000_tool_listing_is_evaluated_within_bounds(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'bad_server.py'} tools10k")
    done = await run_to_end(client, world, runtime_body(world, target), seconds=60)
    audit = await evaluation(client, world, done)
    section = runtime_section(audit)["targets"][0]
    assert section["counts"]["tool"] == 10000
    assert any("first 100 of 10000" in lim for lim in audit["agentAudit"]["narrative"]["limitations"])


async def test_the_evaluation_is_recomputed_byte_for_byte_from_the_frozen_recording(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    command = f"{sys.executable} {HERE / 'rugpull_server.py'} {tmp_path / 'starts'}"
    target = await add_target(app, world, command=command)
    await run_to_end(client, world, runtime_body(world, target))
    done = await run_to_end(client, world, runtime_body(world, target))  # with a catalogue pin
    evaluation_id = done["evaluation"]["evaluationId"]
    async with world.sessions() as session:
        stored = await session.get(models.Evaluation, evaluation_id)
        rows = (
            await session.exec(
                select(models.EvaluationEvidence).where(col(models.EvaluationEvidence.evaluation_id) == evaluation_id)
            )
        ).all()
    assert stored is not None
    assert sorted(r.kind for r in rows) == ["catalogue_pin", "runtime_probe"]
    items = [
        EvidenceItem(
            evidenceId=r.evidence_id,
            kind=r.kind,  # type: ignore[arg-type]
            producerId=r.producer_id,
            contentDigest=r.content_digest,
            payloadJson=r.payload_json,
        )
        for r in rows
    ]
    again = evaluate(make_membership(items), ai_system_id=world.system_a, jurisdiction=None)
    assert again.canonical().decode("utf-8") == stored.payload_json
    assert "s3cr3t" not in stored.payload_json


async def test_annotations_are_held_against_the_code_of_the_same_tool(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    source = tmp_path / "notes_mcp"
    shutil.copytree(HERE / "fixtures" / "notes_mcp", source)
    await bind(world.sessions, world.org_a, world.system_a, source)
    target = await add_target(app, world, command=f"{sys.executable} {source / 'server.py'}")
    body = runtime_body(world, target)
    body["engines"]["static"] = {"enabled": True}
    done = await run_to_end(client, world, body)
    audit = await evaluation(client, world, done)
    findings = runtime_section(audit)["targets"][0]["annotations"]
    assert findings == [{"ruleId": "RT-ANNOT-002", "name": "delete_note", "classes": ["file.delete"]}]
    reasons = [r for r in audit["agentAudit"]["sections"][0]["reasons"] if r["ruleId"] == "REVIEW-102"]
    assert len(reasons) == 1 and "delete_note" in reasons[0]["message"]
    assert not any(r["ruleId"] == "REVIEW-103" for r in audit["agentAudit"]["sections"][0]["reasons"])
    flows = await static_flows(world, done)
    assert [(f["tools"], f["status"]) for f in flows] == [(["export_notes"], "NOT_EXERCISED")]
    # The active suite calls export_notes with an echo canary: the static flow is confirmed at run time.
    body["engines"]["runtime"]["suites"] = ["catalogue", "annotations", "active"]
    active = await run_to_end(client, world, body)
    flows = await static_flows(world, active)
    assert [(f["tools"], f["status"]) for f in flows] == [(["export_notes"], "CONFIRMED_AT_RUNTIME")]
    reasons = (await evaluation(client, world, active))["agentAudit"]["sections"][0]["reasons"]
    assert [r["message"].split(" of ")[0] for r in reasons if r["ruleId"] == "BLOCK-103"] == ["Tool export_notes"]


async def static_flows(world: World, envelope: dict[str, Any]) -> list[dict[str, Any]]:
    async with world.sessions() as session:
        stored = await session.get(models.Evaluation, envelope["evaluation"]["evaluationId"])
    assert stored is not None
    flows: list[dict[str, Any]] = json.loads(stored.payload_json)["runtime"]["staticFlows"]
    return flows


async def test_the_active_suite_confirms_execution_egress_and_a_rug_pull_within_the_session(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    target = await add_target(app, world, command=peer(EVERYTHING_WRONG))
    suites = ["catalogue", "poisoning", "active"]
    done = await run_to_end(client, world, runtime_body(world, target, suites=suites))
    audit = await evaluation(client, world, done)
    assert done["evaluation"]["disposition"] == "BLOCK"
    reasons = audit["agentAudit"]["sections"][0]["reasons"]
    block = [r for r in reasons if r["ruleId"] == "BLOCK-103"]
    assert len(block) == 1 and block[0]["message"].startswith("Tool run_command ")  # echo canary ran
    rug = [r for r in reasons if r["ruleId"] == "REVIEW-101"]
    assert len(rug) == 1 and "Tool greet" in rug[0]["message"] and "during the session" in rug[0]["message"]
    async with world.sessions() as session:
        stored = await session.get(models.Evaluation, done["evaluation"]["evaluationId"])
    assert stored is not None
    active = json.loads(stored.payload_json)["runtime"]["recordings"][0]["active"]
    assert active["executed"] == ["run_command"] and active["networkEgress"] == ["fetch"]
    # Its tools' results carry no instruction for the model (its poisoning is in the descriptions).
    assert active["resultPoisoning"] == [] and not [r for r in reasons if r["ruleId"] == "BLOCK-105"]
    assert active["toolsCalled"] == 8 and active["calls"] == 16
    assert {r["ruleId"] for r in reasons if r["disposition"] == "BLOCK"} == {"BLOCK-101", "BLOCK-102", "BLOCK-103"}


async def test_instructions_in_a_tools_result_are_blocked(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'result_poison_server.py'}")
    clean = await run_to_end(client, world, runtime_body(world, target))  # descriptions only: nothing to see
    assert clean["evaluation"]["disposition"] != "BLOCK"
    done = await run_to_end(client, world, runtime_body(world, target, suites=["catalogue", "poisoning", "active"]))
    assert done["evaluation"]["disposition"] == "BLOCK"
    reasons = (await evaluation(client, world, done))["agentAudit"]["sections"][0]["reasons"]
    blocks = [r for r in reasons if r["disposition"] == "BLOCK"]
    assert {r["ruleId"] for r in blocks} == {"BLOCK-105"}
    assert all(r["message"].startswith("Tool weather ") for r in blocks)
    async with world.sessions() as session:
        stored = await session.get(models.Evaluation, done["evaluation"]["evaluationId"])
    assert stored is not None
    active = json.loads(stored.payload_json)["runtime"]["recordings"][0]["active"]
    assert {(h["ruleId"], h["name"]) for h in active["resultPoisoning"]} == {
        ("RT-POISON-004", "weather"),  # <IMPORTANT>
        ("RT-POISON-006", "weather"),  # "Do not tell the user"
        ("RT-POISON-007", "weather"),  # "Ignore previous instructions"
    }


async def test_a_static_flow_the_deployed_server_cannot_take_is_contradicted(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    source = tmp_path / "notes_mcp"
    shutil.copytree(HERE / "fixtures" / "notes_mcp", source)
    await bind(world.sessions, world.org_a, world.system_a, source)
    # The server as deployed differs from the code analysed: export_notes takes no argument there.
    deployed = tmp_path / "deployed.py"
    code = (source / "server.py").read_text(encoding="utf-8")
    deployed.write_text(
        code.replace("def export_notes(command: str) -> str:", "def export_notes() -> str:\n    command = 'true'"),
        encoding="utf-8",
    )
    target = await add_target(app, world, command=f"{sys.executable} {deployed}")
    body = runtime_body(world, target)
    body["engines"]["static"] = {"enabled": True}
    done = await run_to_end(client, world, body)
    flows = await static_flows(world, done)
    assert [(f["tools"], f["status"]) for f in flows] == [(["export_notes"], "CONTRADICTED")]
    # The code still holds the flow: its BLOCK stands.
    assert done["evaluation"]["disposition"] == "BLOCK"
