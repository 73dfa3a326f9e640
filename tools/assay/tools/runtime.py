"""The runtime tool: probe a named MCP server (docs/runtime.md), and the workspace's own server.

A probe is a NEW run with the runtime engine: the server's catalogue is listed (no tool is called),
recorded, and judged by the probe pack's rules. With the embedded service a command or URL is enough (the
target is made, verified and consented on first use); with a shared service name a target an
administrator registered (``assay admin target add``).
"""

from __future__ import annotations

import shlex
import tomllib
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.client import AssayClient, AssayError
from assay.tools.context import AssayBinding, binding, client, system_id
from assay.tools.models import ProbeResult
from assay.tools.reports import evaluation_path
from assay.tools.runs import MAX_WAIT_SECONDS, RUNS, StageReporter, wait_for_run

Suite = Literal["catalogue", "poisoning", "annotations", "active"]


async def resolve_target(bound: AssayBinding, system: str, address: str | None, target_id: str | None) -> str:
    """The target a probe names: ``target_id``, or one made for ``address`` by the embedded service."""
    if (address is None) == (target_id is None):
        raise AssayError("INVALID_REQUEST", "Give exactly one of command, url or target_id.")
    if target_id is not None:
        return target_id
    assert address is not None
    if bound.targets is None:
        raise AssayError(
            "INVALID_REQUEST",
            "This service makes runtime targets through its administrator only",
            next_step="ask for `assay admin target add ... --json`, `target verify` and `target consent`, then pass "
            "its targetId as target_id.",
        )
    return await bound.targets(system, address)


def workspace_command(root: Path) -> str | None:
    """The ``[runtime] mcp_command`` of the workspace's assay.toml, with arguments naming files of the
    workspace made absolute (the probe starts the server in a throwaway directory); None without one."""
    try:
        data = tomllib.loads((root / "assay.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    runtime = data.get("runtime")
    command = runtime.get("mcp_command") if isinstance(runtime, dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    # Relative arguments naming files of the workspace become absolute (never following symlinks: a
    # virtual environment's python must stay itself).
    return shlex.join(str(root / a) if not Path(a).is_absolute() and (root / a).exists() else a for a in argv)


async def run_probe(
    api: AssayClient, body: dict[str, Any], wait_seconds: float, progress: StageReporter
) -> dict[str, Any]:
    run: dict[str, Any] = await api.post_json(RUNS, body, idempotency_key=f"assay-mcp-{uuid.uuid4()}")
    run = await wait_for_run(api, run["runId"], wait_seconds, progress)
    if run["status"] == "FAILED":
        failure = run.get("failure") or {}
        raise AssayError(
            str(failure.get("code") or "RUN_FAILED"),
            f"Run {run['runId']} failed in engine {failure.get('engine')}: {failure.get('message', 'no message')}",
            retryable=bool(failure.get("retryable", False)),
            next_step="fix the cause (the message names it), then probe again.",
        )
    return run


async def probe_mcp_server(
    ctx: Context[Any, Any],
    command: Annotated[
        str | None, Field(description="Start the MCP server with this command line (stdio), e.g. 'npx -y pkg'.")
    ] = None,
    url: Annotated[str | None, Field(description="The MCP server's streamable HTTP endpoint.")] = None,
    target_id: Annotated[str | None, Field(description="A registered runtime target (assay admin target add).")] = None,
    ai_system_id: Annotated[
        str | None, Field(description="The AI System the server belongs to; default: this workspace's system.")
    ] = None,
    suites: Annotated[
        list[Suite] | None,
        Field(
            description="Default: catalogue, poisoning, annotations. 'active' also calls every tool with canary "
            "arguments (the server must be one you may exercise).",
            max_length=4,
        ),
    ] = None,
    wait_seconds: Annotated[
        float, Field(ge=1, le=MAX_WAIT_SECONDS, description="Wait up to this many seconds for the Evaluation.")
    ] = 90,
) -> ProbeResult:
    """Probe one MCP server (give command, url or target_id): list its tools, resources and prompts (no tool is
    called), record the session, and judge it with the probe pack: poisoned or shadowing descriptions
    (BLOCK), drift since the last probe of the same server (REVIEW), hints the code contradicts (REVIEW).
    Each call makes a NEW run and Evaluation. Next: assay_get_agent_audit(evaluation_id) (its runtime section
    names every rule hit and changed tool)."""
    if command is not None and url is not None:
        raise AssayError("INVALID_REQUEST", "Give exactly one of command, url or target_id.")
    bound = binding(ctx)
    api = client(ctx)
    system = await system_id(bound, ai_system_id, api)
    target = await resolve_target(bound, system, command if command is not None else url, target_id)
    runtime: dict[str, Any] = {"enabled": True, "targetId": target}
    if suites:
        runtime["suites"] = list(suites)
    progress = StageReporter(ctx)
    run = await run_probe(api, {"aiSystemId": system, "engines": {"runtime": runtime}}, wait_seconds, progress)
    result: dict[str, Any] = {"status": run["status"], "runId": run["runId"], "aiSystemId": system, "targetId": target}
    evaluation = run.get("evaluation")
    if not evaluation:
        result["nextStep"] = f"the run is still {run['status']}: call assay_get_run(run_id={run['runId']!r})."
        return cast(ProbeResult, result)
    evaluation_id = evaluation["evaluationId"]
    summary: dict[str, Any] = await api.get_json(evaluation_path(evaluation_id, "summary"))
    await progress.stage(f"evaluation {evaluation_id}: {summary.get('disposition')}", done=True)
    result |= {
        "evaluationId": evaluation_id,
        "disposition": summary.get("disposition"),
        "runtime": summary.get("runtime") or {},
        "topReasons": summary.get("topReasons", []),
        "nextStep": f"assay_get_agent_audit(evaluation_id={evaluation_id!r}): its runtime section lists every rule "
        "hit with the field and an excerpt; fix the server's descriptions, then probe again.",
    }
    return cast(ProbeResult, result)
