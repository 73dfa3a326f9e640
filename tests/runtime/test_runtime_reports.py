"""The runtime section in every artifact of an Evaluation with a probe recording: summary, agent audit,
Master Report (JSON, HTML, PDF) and a passport that binds the probe pack and the recording's digest."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import httpx
import pypdf
from runtime_helpers import add_target, run_to_end, runtime_body
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend.passport.verify import verify_passport
from assay.backend.runtime.pack import load_pack

HERE = Path(__file__).resolve().parent


async def test_every_artifact_shows_the_runtime_section(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    state = tmp_path / "starts"
    state.write_text("1")  # the server's second start: its description reads a key file
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'rugpull_server.py'} {state}")
    done = await run_to_end(client, world, runtime_body(world, target))
    assert done["evaluation"]["disposition"] == "BLOCK", done
    links, key = done["links"], world.agent_key_a
    summary = (await client.get(links["summary"], headers=bearer(key))).json()
    assert summary["runtime"]["targets"][0]["ruleHits"] == 1
    assert summary["runtime"]["probePack"]["version"] == load_pack().version
    master = (await client.get(links["masterReport"], headers=bearer(key))).json()["masterReport"]
    recording = master["runtime"]["recordings"][0]
    assert recording["poisoning"][0]["ruleId"] == "RT-POISON-008"
    html = (await client.get(links["masterReport"] + "/html", headers=bearer(key))).text
    assert "Runtime probe" in html and "RT-POISON-008" in html
    pdf = (await client.get(links["masterReportPdf"], headers=bearer(key))).content
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert "Runtime probe" in text and "RT-POISON-008" in text
    passport = (await client.get(links["passport"], headers=bearer(key))).json()
    jwks = (await client.get("/.well-known/jwks.json")).json()
    verified = verify_passport(passport, jwks)
    runtime = verified.statement["predicate"]["runtime"]
    assert runtime["probePack"] == load_pack().ref()
    subjects = {s["name"]: s["digest"]["sha256"] for s in verified.statement["subject"]}
    bound = runtime["recordings"][0]
    assert bound["recordingDigest"] == f"sha256:{subjects['evidence:' + bound['evidenceId']]}"
