"""``make demo``: the main job as a coding agent runs it, then the same sequence over the REST API.

1. ``assay mcp`` as a real stdio subprocess (embedded service, throwaway database under ``out/demo``),
   driven by the MCP SDK's client: ``assay_assess_workspace`` over ``examples/ops-agent``, then
   ``assay_get_agent_audit`` and ``assay_get_passport``. It prints the disposition and the top verification
   items, writes the passport, and then (the stdio session closed) opens the same database in-process to
   write the Master Report PDF and the JWKS the passport verifies with.
2. For every example, the recommended sequence of the contract over the Assurance Service API.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp.types import CallToolResult, TextContent

from assay.backend import provisioning
from assay.backend.passport.verify import verify_passport
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app
from assay.server.embedded import open_embedded
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ("ops-agent", "support-agent-ts", "research-assistant")
MAIN_EXAMPLE = EXAMPLES[0]
TOP_ITEMS = 3


def _structured(result: CallToolResult) -> dict[str, Any]:
    """A tool's answer: its one JSON text block (the error text when the call failed)."""
    block = result.content[0] if result.content else None
    text = block.text if isinstance(block, TextContent) else "the tool call failed"
    if result.is_error:
        raise RuntimeError(text)
    value = json.loads(text)
    if not isinstance(value, dict):
        raise RuntimeError(f"the tool answered {text[:200]!r}, not a JSON object")
    return value


async def through_mcp(out: Path) -> int:
    """The main job: the one-call sequence through the stdio MCP server, then the artifacts it names."""
    workspace = ROOT / "examples" / MAIN_EXAMPLE
    data_dir = out / "mcp"
    database_url = sqlite_url_for(data_dir / "assay.db")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace), "--database-url", database_url],
        env={"ASSAY_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"},
    )
    print(f"$ assay mcp --workspace examples/{MAIN_EXAMPLE}   (stdio, embedded, driven by the MCP SDK client)")
    async with Client(params) as client:
        print("  -> assay_assess_workspace")
        assessed = _structured(await client.call_tool("assay_assess_workspace", {}))
        evaluation_id = assessed["evaluationId"]
        print("  -> assay_get_agent_audit, assay_get_passport (and its resource)")
        audit = _structured(await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id}))
        note = _structured(await client.call_tool("assay_get_passport", {"evaluation_id": evaluation_id}))
        envelope = (await client.read_resource(note["resource"])).contents[0]
        passport = json.loads(getattr(envelope, "text", "{}"))
    summary = assessed["summary"]
    items = audit["verificationItems"]
    total = audit["paging"]["totalItems"]
    print(f"\n== examples/{MAIN_EXAMPLE}: {assessed['disposition']}")
    print(f"   run {assessed['runId']}, evaluation {evaluation_id}, methodology {summary['methodologyVersion']}")
    for reason in summary.get("topReasons", [])[:TOP_ITEMS]:
        print(f"   {reason['ruleId']}: {reason['message']}")
    print(f"   top verification items ({min(TOP_ITEMS, len(items))} of {total}):")
    for item in items[:TOP_ITEMS]:
        print(f"   - [{item['id']}] {item['verificationNeeded']}")

    passport_file = out / "passport.json"
    passport_file.write_text(json.dumps(passport, indent=2) + "\n", encoding="utf-8")
    # The stdio session is closed: open the same database in-process for what MCP does not carry (bytes).
    settings = ServiceSettings(database_url=database_url, data_dir=data_dir)
    async with open_embedded(settings, workspace, log=io.StringIO()) as service:
        api = service.binding.client
        pdf = await api.get_bytes(f"/api/v1/assurance/evaluations/{evaluation_id}/master-report/pdf")
        jwks = await api.get_json("/.well-known/jwks.json")
    pdf_file, jwks_file = out / "master-report.pdf", out / "jwks.json"
    pdf_file.write_bytes(pdf)
    jwks_file.write_text(json.dumps(jwks, indent=2) + "\n", encoding="utf-8")
    verified = verify_passport(passport, jwks)
    print(f"\n   Master Report PDF: {pdf_file}  ({len(pdf)} bytes)")
    print(f"   passport:          {passport_file}  (verified with key {verified.kid})")
    print(f"   check it yourself: .venv/bin/assay passport verify {passport_file} --jwks {jwks_file}")
    return 0


async def _poll(client: httpx.AsyncClient, headers: dict[str, str], run_id: str) -> dict[str, Any]:
    with anyio.fail_after(120):
        while True:
            run: dict[str, Any] = (await client.get(f"/api/v1/assurance/runs/{run_id}", headers=headers)).json()
            if run["status"] in ("COMPLETED", "FAILED"):
                return run
            await anyio.sleep(0.05)


async def over_rest(out: Path) -> int:
    """The recommended sequence over the Assurance Service API for every example."""
    print("\n$ the same sequence over the Assurance Service API (create run, poll, summary, agent audit)")
    settings = ServiceSettings(database_url=sqlite_url_for(out / "rest" / "assay.db"), data_dir=out / "rest")
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with app.state.services.session_factory() as session:
            org = await provisioning.create_organization(session, "Demo")
            systems = {}
            for name in EXAMPLES:
                system = await provisioning.create_ai_system(session, org.id, name)
                source = await provisioning.add_source(session, org.id, system.id, str(ROOT / "examples" / name))
                await provisioning.verify_source(session, source.id)
                systems[name] = system.id
            key = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
            await session.commit()
        headers = {"Authorization": f"Bearer {key.api_key}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://assay.local") as client:
            for name in EXAMPLES:
                body = {"aiSystemId": systems[name], "engines": {"static": {"enabled": True}}}
                created = await client.post("/api/v1/assurance/runs", json=body, headers=headers)
                run = await _poll(client, headers, created.json()["runId"])
                if run["status"] != "COMPLETED":
                    print(f"   examples/{name}: run {run['runId']} FAILED: {run['failure']}")
                    return 1
                summary = (await client.get(run["links"]["summary"], headers=headers)).json()
                audit = (await client.get(run["links"]["agentAudit"], headers=headers)).json()["agentAudit"]
                digest = summary["digests"]["coreTruthDigest"]
                count = len(audit["verificationItems"])
                print(
                    f"   examples/{name}: {summary['disposition']}  (evaluation {summary['evaluationId']}, "
                    f"{count} verification item{'' if count == 1 else 's'}, coreTruthDigest {digest[:19]}…)"
                )
    return 0


async def demo(out: Path) -> int:
    return await through_mcp(out) or await over_rest(out)


def main() -> int:
    out = ROOT / "out" / "demo"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return asyncio.run(demo(out))


if __name__ == "__main__":
    sys.exit(main())
