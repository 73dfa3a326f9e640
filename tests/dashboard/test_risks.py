"""Decisions people record: a reason accepted as a known risk from the evaluation page, applied only by the
next run (docs/methodology.md, "Risk acceptances"), shown in the Master Report and bound into the passport.
Through HTTP with a signed-in browser's cookies, and the API with the organization's key."""

from __future__ import annotations

import io
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
import pypdf
import pytest
from dashboard_helpers import People, add_user, csrf_of, sign_in
from runs_helpers import EVALUATIONS, STATIC, completed_run, create, wait
from service_helpers import World, bearer
from sqlmodel import select
from starlette.applications import Starlette

from assay.backend.evaluation.methodology import evaluate
from assay.backend.passport.verify import verify_passport
from assay.backend.runs.persist import load_membership
from assay.backend.storage.models import Evaluation, RiskAcceptance

_FORM = re.compile(
    r'<form class="decide" method="post" action="([^"]+)">.*?name="fingerprint" value="([^"]+)"', re.DOTALL
)
SCRIPT = '<script>alert("owned")</script>'


@pytest.fixture
async def finished(client: httpx.AsyncClient, world: World, tmp_path: Path) -> dict[str, Any]:
    return await completed_run(client, world, tmp_path, "ops-agent")


def _browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


def _today() -> date:
    return date.today()


async def _stored(world: World, evaluation_id: str) -> Evaluation:
    async with world.sessions() as session:
        row = await session.get(Evaluation, evaluation_id)
    assert row is not None
    return row


async def _reasons(client: httpx.AsyncClient, world: World, evaluation_id: str) -> list[dict[str, Any]]:
    answer = await client.get(
        f"{EVALUATIONS}/{evaluation_id}/master-report?detail=full", headers=bearer(world.agent_key_a)
    )
    assert answer.status_code == 200, answer.text
    reasons: list[dict[str, Any]] = answer.json()["masterReport"]["reasons"]
    return reasons


async def _accept_forms(browser: httpx.AsyncClient, evaluation_link: str) -> tuple[str, list[tuple[str, str]]]:
    page = await browser.get(evaluation_link)
    assert page.status_code == 200
    return csrf_of(page.text), _FORM.findall(page.text)


async def _accept(
    browser: httpx.AsyncClient, action: str, csrf: str, fingerprint: str, **fields: str
) -> httpx.Response:
    form = {
        "csrf_token": csrf,
        "fingerprint": fingerprint,
        "owner": "Dana Ops <dana@acme.example>",
        "justification": "The shell tool runs only in the sandboxed runner.",
        "expires_on": (_today() + timedelta(days=30)).isoformat(),
        **fields,
    }
    return await browser.post(action, data=form)


async def _new_run(client: httpx.AsyncClient, world: World) -> dict[str, Any]:
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    assert created.status_code == 202, created.text
    done = await wait(client, world.agent_key_a, created.json()["runId"])
    assert done["status"] == "COMPLETED", done
    return done


async def _count(world: World) -> int:
    async with world.sessions() as session:
        return len((await session.exec(select(RiskAcceptance))).all())


async def test_an_accepted_reason_is_applied_by_the_next_run_only_and_bound_everywhere(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, finished: dict[str, Any], tmp_path: Path
) -> None:
    first_id = finished["evaluation"]["evaluationId"]
    before = await _stored(world, first_id)
    assert before.disposition == "BLOCK"
    blocking = [r for r in await _reasons(client, world, first_id) if r["disposition"] == "BLOCK"]
    assert blocking

    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        csrf, forms = await _accept_forms(ann, finished["links"]["dashboardEvaluation"])
        # One form per reason, each naming it by fingerprint; REVIEW-013 is never offered.
        assert len(forms) == len(await _reasons(client, world, first_id))
        fingerprints = [fp for _, fp in forms]
        # Every BLOCK reason accepted (they are listed first): HTML in the owner and justification stays text.
        for action, fingerprint in forms[: len(blocking)]:
            answer = await _accept(
                ann, action, csrf, fingerprint, owner=f"Dana {SCRIPT}", justification=f"Sandboxed {SCRIPT}"
            )
            assert answer.status_code == 303 and answer.headers["location"].endswith("/risks")
        listed = await ann.get(f"/dashboard/systems/{world.system_a}/risks")
        assert listed.status_code == 200
        assert SCRIPT not in listed.text and "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;" in listed.text
        assert listed.text.count('class="badge ACTIVE"') == len(blocking)
        # The evaluation page says the decision is recorded and applies from the next run; the page's own
        # Evaluation is unchanged.
        again = (await ann.get(finished["links"]["dashboardEvaluation"])).text
        assert "applies from the next run" in again and SCRIPT not in again
        assert 'class="word">BLOCK</h1>' in again

    # The earlier Evaluation is never modified: same bytes, same digest, same answers.
    after = await _stored(world, first_id)
    assert after.payload_json == before.payload_json and after.core_truth_digest == before.core_truth_digest

    second = await _new_run(client, world)
    second_id = second["evaluation"]["evaluationId"]
    stored = await _stored(world, second_id)
    data = orjson.loads(stored.payload_json)
    assert data["methodologyVersion"] == "assay-methodology/1.5.0"
    # Accepted BLOCK reasons stay listed but no longer block; REVIEW-013 keeps the disposition at REVIEW.
    assert stored.disposition == "REVIEW"
    accepted = [r for r in data["reasons"] if "acceptance" in r]
    assert len(accepted) == len(blocking) and all(r["disposition"] == "BLOCK" for r in accepted)
    assert {r["acceptance"]["fingerprint"] for r in accepted} == set(fingerprints[: len(blocking)])
    assert accepted[0]["acceptance"]["owner"] == f"Dana {SCRIPT}"
    assert any(r["ruleId"] == "REVIEW-013" for r in data["reasons"])
    assert {m["kind"] for m in data["membership"]} == {"static_bundle", "risk_acceptance"}
    assert len(data["riskAcceptances"]["accepted"]) == len(blocking)

    # Determinism: the persisted membership evaluated again gives the stored bytes exactly.
    async with world.sessions() as session:
        membership = await load_membership(session, second_id)
    replay = evaluate(membership, ai_system_id=world.system_a, jurisdiction=None)
    assert replay.canonical().decode("utf-8") == stored.payload_json
    # A third run on the same source with the same acceptances: the same core truth.
    third = await _stored(world, (await _new_run(client, world))["evaluation"]["evaluationId"])
    assert third.core_truth_digest == stored.core_truth_digest and third.payload_json == stored.payload_json

    # The Master Report (JSON, HTML, PDF) has an "Accepted risks" section; the passport binds them.
    key = world.agent_key_a
    report = (await client.get(second["links"]["masterReport"], headers=bearer(key))).json()["masterReport"]
    assert {a["fingerprint"] for a in report["acceptedRisks"]["accepted"]} == set(fingerprints[: len(blocking)])
    html = (await client.get(report["links"]["html"], headers=bearer(key))).text
    assert "Accepted risks" in html and SCRIPT not in html and "&lt;script&gt;" in html
    pdf = (await client.get(second["links"]["masterReportPdf"], headers=bearer(key))).content
    (tmp_path / "accepted.pdf").write_bytes(pdf)
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert "Accepted risks" in text and "Disposition: REVIEW" in text
    audit = (await client.get(second["links"]["agentAudit"], headers=bearer(key))).json()["agentAudit"]
    section = next(x for x in audit["sections"] if x["id"] == "acceptedRisks")
    assert {a["fingerprint"] for a in section["accepted"]} == set(fingerprints[: len(blocking)])
    summary = (await client.get(second["links"]["summary"], headers=bearer(key))).json()
    assert summary["acceptedRisks"] == {"accepted": len(blocking), "acceptedBlock": len(blocking), "expired": 0}
    assert any("acceptance" in r for r in summary["topReasons"])
    passport = (await client.get(second["links"]["passport"], headers=bearer(key))).json()
    jwks = (await client.get("/.well-known/jwks.json")).json()
    verified = verify_passport(passport, jwks)
    assert verified.disposition == "REVIEW"
    bound = verified.statement["predicate"]["acceptedRisks"]
    assert {a["fingerprint"] for a in bound["accepted"]} == set(fingerprints[: len(blocking)])
    assert all(a["owner"] == f"Dana {SCRIPT}" and a["expiresOn"] for a in bound["accepted"])
    assert "acceptedRisks" in verified.statement["predicate"]["digests"]


async def test_expired_and_revoked_acceptances_are_not_applied(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, finished: dict[str, Any]
) -> None:
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        csrf, forms = await _accept_forms(ann, finished["links"]["dashboardEvaluation"])
        action, fingerprint = forms[0]
        assert (await _accept(ann, action, csrf, fingerprint)).status_code == 303
    # Time passes: the acceptance's last day is yesterday.
    async with world.sessions() as session:
        row = (await session.exec(select(RiskAcceptance))).one()
        row.expires_on = (_today() - timedelta(days=1)).isoformat()
        session.add(row)
        await session.commit()
    expired = await _new_run(client, world)
    data = orjson.loads((await _stored(world, expired["evaluation"]["evaluationId"])).payload_json)
    assert data["disposition"] == "BLOCK"
    assert not any("acceptance" in r for r in data["reasons"])
    lapsed = [r for r in data["reasons"] if "acceptanceExpired" in r]
    assert [r["acceptanceExpired"]["fingerprint"] for r in lapsed] == [fingerprint]
    assert any("expired on" in line and fingerprint in line for line in data["limitations"])
    assert data["riskAcceptances"]["expired"][0]["fingerprint"] == fingerprint

    # Renewed, then revoked on the system's page: the next run applies nothing.
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        csrf, forms = await _accept_forms(ann, finished["links"]["dashboardEvaluation"])
        assert (await _accept(ann, forms[0][0], csrf, fingerprint)).status_code == 303
        page = (await ann.get(f"/dashboard/systems/{world.system_a}/risks")).text
        revoke = re.findall(r'<form class="revoke" method="post" action="([^"]+)">', page)
        # The renewal revoked the expired acceptance it replaces: one is left to revoke.
        assert len(revoke) == 1 and page.count('class="badge REVOKED"') == 1
        forged = await ann.post(revoke[0], data={"csrf_token": "forged"})
        assert forged.status_code == 403
        for target in revoke:
            assert (await ann.post(target, data={"csrf_token": csrf})).status_code == 303
        page = (await ann.get(f"/dashboard/systems/{world.system_a}/risks")).text
        assert page.count('class="badge REVOKED"') == 2
    revoked = await _new_run(client, world)
    data = orjson.loads((await _stored(world, revoked["evaluation"]["evaluationId"])).payload_json)
    assert data["disposition"] == "BLOCK" and "riskAcceptances" not in data
    assert {m["kind"] for m in data["membership"]} == {"static_bundle"}


async def test_bad_acceptances_are_refused_and_nothing_is_written(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, finished: dict[str, Any]
) -> None:
    today = _today()
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        csrf, forms = await _accept_forms(ann, finished["links"]["dashboardEvaluation"])
        action, fingerprint = forms[0]
        forged = await _accept(ann, action, "forged-token", fingerprint)
        assert forged.status_code == 403
        cross = await ann.post(
            action,
            data={"csrf_token": csrf, "fingerprint": fingerprint, "owner": "x", "justification": "y"},
            headers={"origin": "https://evil.example"},
        )
        assert cross.status_code == 403
        for fields, words in (
            ({"justification": "   "}, "justification"),
            ({"owner": ""}, "owner"),
            ({"expires_on": today.isoformat()}, "after today"),
            ({"expires_on": (today - timedelta(days=3)).isoformat()}, "after today"),
            ({"expires_on": (today + timedelta(days=400)).isoformat()}, "at most a year"),
            ({"expires_on": "next week"}, "YYYY-MM-DD"),
            ({"justification": "x" * 2001}, "at most 2000"),
        ):
            answer = await _accept(ann, action, csrf, fingerprint, **fields)
            assert answer.status_code == 400, fields
            assert words in answer.text and "The risk was not accepted" in answer.text
        unknown = await _accept(ann, action, csrf, "0" * 32 + ":1")
        assert unknown.status_code == 404
    async with _browser(app) as bob:
        await sign_in(bob, people.bob)
        bob_page = await bob.get("/dashboard")
        other = await _accept(bob, action, csrf_of(bob_page.text), fingerprint)
        missing = await bob.get("/dashboard/evaluations/eval_missing")
        assert other.status_code == 404 and other.text == missing.text
        assert (await bob.get(f"/dashboard/systems/{world.system_a}/risks")).status_code == 404
    # A viewer reads the page without forms; a POST anyway is refused.
    await add_user(world.sessions, world.org_a, "vera@acme.example", "viewer")
    async with _browser(app) as vera:
        await sign_in(vera, "vera@acme.example")
        csrf, forms = await _accept_forms(vera, finished["links"]["dashboardEvaluation"])
        assert forms == []
        refused = await _accept(vera, action, csrf, fingerprint)
        assert refused.status_code == 403
        assert (await vera.get(f"/dashboard/systems/{world.system_a}/risks")).status_code == 200
    assert await _count(world) == 0
