"""``make demo``: the main job on the embedded default, over the example systems in ``examples/``.

It starts the assurance service in-process on a fresh SQLite database under ``out/demo``, provisions an
organization, an AI System per example (its folder bound as a verified local source) and an
``assurance-agent`` key, then for each example runs the recommended sequence of the contract (create
run, poll, summary, agent audit, master report) and writes the Master Report PDF and the signed passport
of the first example to the folder it names at the end.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx

from assay.backend import provisioning
from assay.backend.app import create_app
from assay.backend.db import sqlite_url_for
from assay.backend.passport.verify import verify_passport
from assay.backend.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ("ops-agent", "support-agent-ts", "research-assistant")


async def _poll(client: httpx.AsyncClient, headers: dict[str, str], run_id: str) -> dict[str, Any]:
    with anyio.fail_after(120):
        while True:
            run: dict[str, Any] = (await client.get(f"/api/v1/assurance/runs/{run_id}", headers=headers)).json()
            if run["status"] in ("COMPLETED", "FAILED"):
                return run
            await asyncio.sleep(0.05)


async def through_mcp(out: Path) -> None:
    """The main job as a coding agent does it: the MCP server as a stdio subprocess, driven by the SDK client."""
    from mcp import Client, StdioServerParameters

    workspace = ROOT / "examples" / EXAMPLES[0]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "assay.server.cli", "mcp", "--workspace", str(workspace)],
        env={"ASSAY_DATA_DIR": str(out / "mcp"), "PATH": "/usr/bin:/bin"},
    )
    print(f"$ assay mcp  (stdio, embedded)  ->  assay_assess_workspace on examples/{EXAMPLES[0]}")
    async with Client(params) as client:
        result = await client.call_tool("assay_assess_workspace", {})
        if result.is_error:
            raise RuntimeError(result.content[0].text)  # type: ignore[union-attr]
        assessed = result.structured_content or {}
        audit = await client.call_tool("assay_get_agent_audit", {"evaluation_id": assessed["evaluationId"]})
        items = (audit.structured_content or {})["agentAudit"]["verificationItems"]
    print(f"   disposition {assessed['disposition']} (run {assessed['runId']}, evaluation {assessed['evaluationId']})")
    print("   top verification items (assay_get_agent_audit):")
    for item in items[:3]:
        print(f"   - {item['verificationNeeded']}")


async def demo(out: Path) -> int:
    await through_mcp(out)
    print("\n$ the same sequence over the Assurance Service API, for every example")
    settings = ServiceSettings(database_url=sqlite_url_for(out / "assay.db"), data_dir=out)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        sessions = app.state.services.session_factory
        async with sessions() as session:
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
            first_links: dict[str, Any] | None = None
            for name in EXAMPLES:
                created = await client.post(
                    "/api/v1/assurance/runs",
                    json={"aiSystemId": systems[name], "engines": {"static": {"enabled": True}}},
                    headers=headers,
                )
                run = await _poll(client, headers, created.json()["runId"])
                if run["status"] != "COMPLETED":
                    print(f"{name}: run {run['runId']} FAILED: {run['failure']}")
                    return 1
                summary = (await client.get(run["links"]["summary"], headers=headers)).json()
                audit = (await client.get(run["links"]["agentAudit"], headers=headers)).json()["agentAudit"]
                print(f"\n== examples/{name}: {summary['disposition']}  (evaluation {summary['evaluationId']})")
                print(
                    f"   methodology {summary['methodologyVersion']}, coreTruthDigest {summary['digests']['coreTruthDigest']}"
                )
                for reason in summary["topReasons"][:3]:
                    print(f"   {reason['ruleId']}: {reason['message']}")
                print("   top verification items:")
                for item in audit["verificationItems"][:3]:
                    print(f"   - {item['verificationNeeded']}")
                first_links = first_links or run["links"]
            assert first_links is not None
            pdf = await client.get(first_links["masterReportPdf"], headers=headers)
            (out / "master-report.pdf").write_bytes(pdf.content)
            passport = (await client.get(first_links["passport"], headers=headers)).json()
            (out / "passport.json").write_text(json.dumps(passport, indent=2))
            jwks = (await client.get("/.well-known/jwks.json")).json()
            (out / "jwks.json").write_text(json.dumps(jwks, indent=2))
            verified = verify_passport(passport, jwks)
    print(f"\nMaster Report PDF and passport of examples/{EXAMPLES[0]} written to {out}/")
    print(f"  {out / 'master-report.pdf'}  ({len(pdf.content)} bytes)")
    print(f"  {out / 'passport.json'}  (verified with key {verified.kid}; check it yourself with:")
    print(f"     .venv/bin/assay passport verify {out / 'passport.json'} --jwks {out / 'jwks.json'})")
    return 0


def main() -> int:
    out = ROOT / "out" / "demo"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return asyncio.run(demo(out))


if __name__ == "__main__":
    sys.exit(main())
