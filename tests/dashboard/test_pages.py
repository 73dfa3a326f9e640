"""The pages behind a finished run's links, through HTTP with a signed-in browser's cookies: every
``dashboard*`` link of the run envelope and the Master Report's dashboard links answer 200 to a member of
the organization, send a stranger to sign in, and are the same 404 as a missing page to a member of another
organization."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from dashboard_helpers import People, sign_in
from runs_helpers import EVALUATIONS, completed_run
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend import provisioning
from assay.backend.storage.models import Evaluation, new_id

MASTER_LINKS = ("evaluation", "decisionReceipt", "systemWorkspace")


@pytest.fixture
async def finished(client: httpx.AsyncClient, world: World, tmp_path: Path) -> dict[str, Any]:
    return await completed_run(client, world, tmp_path, "ops-agent")


def _browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


async def _page_links(client: httpx.AsyncClient, world: World, run: dict[str, Any]) -> dict[str, str]:
    links = {k: v for k, v in run["links"].items() if k.startswith("dashboard")}
    master = await client.get(run["links"]["masterReport"], headers=bearer(world.agent_key_a))
    for name in MASTER_LINKS:
        links[f"masterReport.{name}"] = master.json()["masterReport"]["links"][name]
    assert master.json()["masterReport"]["links"]["investigation"] is None
    return links


async def test_every_dashboard_link_of_a_finished_run_is_a_real_page_for_members_only(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, finished: dict[str, Any]
) -> None:
    links = await _page_links(client, world, finished)
    assert len(links) == 9 and all(isinstance(v, str) and v.startswith("/dashboard/") for v in links.values())

    async with _browser(app) as stranger:
        for name, link in links.items():
            answer = await stranger.get(link)
            assert answer.status_code == 303, name
            assert answer.headers["location"].startswith("/dashboard/login?next=/dashboard/")

    async with _browser(app) as ann:
        assert (await sign_in(ann, people.ann)).status_code == 303
        for name, link in links.items():
            answer = await ann.get(link, follow_redirects=True)
            assert answer.status_code == 200, (name, answer.text[:500])
            assert answer.headers["content-type"].startswith("text/html")
        # The Master Report link redirects to the canonical document page.
        moved = await ann.get(finished["links"]["dashboardMasterReport"])
        assert moved.status_code == 303 and moved.headers["location"].endswith("/master-report/document")

    async with _browser(app) as bob:
        assert (await sign_in(bob, people.bob)).status_code == 303
        missing = await bob.get("/dashboard/evaluations/eval_does_not_exist")
        assert missing.status_code == 404
        for name, link in links.items():
            answer = await bob.get(link)
            assert answer.status_code == 404, name
            assert answer.text == missing.text  # indistinguishable from a missing page


async def test_the_evaluation_page_puts_the_verdict_first_and_chains_each_reason(
    app: Starlette, people: People, finished: dict[str, Any]
) -> None:
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        page = (await ann.get(finished["links"]["dashboardEvaluation"])).text
    main = page[page.index('<main id="main"') :]
    verdict = main.index('class="word">BLOCK</h1>')
    assert verdict < main.index("Reasons by rule")
    # Rules heaviest first, each with its reasons.
    assert main.index("BLOCK-001") < main.index("BLOCK-002") < main.index("REVIEW-")
    # A reason's chain: the rule, the code location, and the verification item that closes it.
    reason = main[main.index("reaches shell.exec at ops_agent/tools.py:37") :]
    chain = reason[: reason.index("</ol>")]
    assert "<code>ops_agent/tools.py:37</code>" in chain or "<code>ops_agent/tools.py:35</code>" in chain
    assert "Break the flow from a model-chosen tool argument to subprocess.run at ops_agent/tools.py:37" in chain
    assert re.search(r"verification item <code>vi-[0-9a-f]+</code>", chain)


async def test_the_reports_page_offers_every_artifact_as_the_api_serves_it(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, finished: dict[str, Any]
) -> None:
    evaluation_id = finished["evaluation"]["evaluationId"]
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        page = (await ann.get(finished["links"]["dashboardReports"])).text
        hrefs = re.findall(r'href="(/dashboard/evaluations/[^"]+/download/[^"]+)"', page)
        names = {h.rsplit("/", 1)[1] for h in hrefs}
        assert {
            "master-report.pdf",
            "master-report.html",
            "master-report.json",
            "summary.json",
            "agent-audit.json",
        } <= names
        assert {"passport.json", "evidence-report.json", "evidence-report-auditor.pdf"} <= names
        assert "oscal-assessment-results.json" not in names  # no jurisdiction in this run
        for href in hrefs:
            answer = await ann.get(href)
            assert answer.status_code == 200, (href, answer.text[:300])
            assert answer.headers["content-disposition"].startswith("attachment; filename=")
            if href.endswith(".pdf"):
                assert answer.content.startswith(b"%PDF-")
        full = await ann.get(f"/dashboard/evaluations/{evaluation_id}/download/master-report.json")
        api = await client.get(
            f"{EVALUATIONS}/{evaluation_id}/master-report?detail=full", headers=bearer(world.agent_key_a)
        )
        assert (
            json.loads(full.content)["masterReport"]["coreTruthDigest"] == api.json()["masterReport"]["coreTruthDigest"]
        )
        assert (await ann.get(f"/dashboard/evaluations/{evaluation_id}/download/nothing.txt")).status_code == 404


async def test_the_master_report_document_links_to_downloads_and_allows_only_its_own_style(
    app: Starlette, people: People, finished: dict[str, Any]
) -> None:
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        document = await ann.get(finished["links"]["dashboardMasterReport"], follow_redirects=True)
    assert document.status_code == 200
    csp = document.headers["content-security-policy"]
    assert re.search(r"style-src 'self' 'unsafe-hashes'( 'sha256-[A-Za-z0-9+/]+=*')+;", csp)
    assert "unsafe-inline" not in csp and "script-src" not in csp
    assert "/download/master-report.pdf" in document.text and "Authorization" not in document.text


async def test_the_system_workspace_pages_a_thousand_evaluations(app: Starlette, world: World, people: People) -> None:
    async with world.sessions() as session:
        for n in range(1000):
            session.add(
                Evaluation(
                    id=f"eval_{n:04d}",
                    organization_id=world.org_a,
                    ai_system_id=world.system_a,
                    run_id=new_id("run"),
                    disposition=("ALLOW", "REVIEW", "BLOCK")[n % 3],
                    methodology_version="test",
                    core_truth_digest="sha256:0",
                    evidence_bundle_digest="sha256:0",
                    payload_json="{}",
                )
            )
        await session.commit()
    workspace = f"/dashboard/systems/{world.system_a}"
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        first = await ann.get(workspace)
        assert first.status_code == 200
        assert "Page 1 of 20" in first.text and first.text.count('class="badge ') == 50
        assert 'rel="next"' in first.text and 'rel="prev"' not in first.text
        last = await ann.get(workspace, params={"page": "20"})
        assert "Page 20 of 20" in last.text and last.text.count('class="badge ') == 50
        assert 'rel="next"' not in last.text
        seen = set(re.findall(r"<code>(eval_\d{4})</code>", first.text)) | set(
            re.findall(r"<code>(eval_\d{4})</code>", last.text)
        )
        assert len(seen) == 100
        beyond = await ann.get(workspace, params={"page": "21"})
        assert beyond.status_code == 200 and "No evaluation yet on this page" in beyond.text
        for bad in ("0", "-1", "abc", "9999999999"):
            assert (await ann.get(workspace, params={"page": bad})).status_code == 400
    async with _browser(app) as bob:
        await sign_in(bob, people.bob)
        assert (await bob.get(workspace)).status_code == 404


async def test_names_from_people_and_repositories_are_escaped_on_every_page(
    app: Starlette, world: World, people: People
) -> None:
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    async with world.sessions() as session:
        system = await provisioning.create_ai_system(session, world.org_a, hostile, system_type=hostile)
        await session.commit()
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        for path in ("/dashboard", f"/dashboard/systems/{system.id}"):
            page = await ann.get(path)
            assert page.status_code == 200
            assert "<script>" not in page.text and "<img src=x" not in page.text
            assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page.text
