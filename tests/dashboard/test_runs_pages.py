"""Runs from the page and the difference between two Evaluations, through HTTP with a signed-in browser's
cookies: a member starts a run (executionMode ui) from the system workspace and follows its page to the
Evaluation; viewers, forged forms, systems with nothing to scan and other organizations get clear refusals;
two Evaluations of one system compare by reason fingerprint, tool and action."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import httpx
import pytest
from dashboard_helpers import People, add_user, csrf_of, sign_in
from runs_helpers import RUNS, STATIC, bind, copy_example, create, wait
from service_helpers import World, bearer
from sqlmodel import func, select
from starlette.applications import Starlette

from assay.backend import systems
from assay.backend.storage.models import Run, utcnow

VIEWER = "vera@acme.example"
_RUN_LINK = re.compile(r"^/dashboard/runs/(run_[A-Za-z0-9_-]+)$")


def _browser(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://assay.test")


async def _runs_of(world: World) -> int:
    async with world.sessions() as session:
        return int((await session.exec(select(func.count()).select_from(Run))).one())


async def _start(browser: httpx.AsyncClient, system: str, **fields: str) -> httpx.Response:
    workspace = await browser.get(f"/dashboard/systems/{system}")
    assert workspace.status_code == 200
    return await browser.post(
        f"/dashboard/systems/{system}/runs", data={"csrf_token": csrf_of(workspace.text), **fields}
    )


async def _follow(browser: httpx.AsyncClient, run_page: str, *, seconds: float = 60) -> str:
    """The run page once it no longer refreshes itself (the run ended), within ``seconds``."""
    with anyio.fail_after(seconds):
        while True:
            page = await browser.get(run_page)
            assert page.status_code == 200, page.text[:300]
            if 'http-equiv="refresh"' not in page.text:
                return page.text
            assert '<meta http-equiv="refresh" content="2">' in page.text and ">Refresh</a>" in page.text
            await anyio.sleep(0.05)


def _section(page: str, name: str) -> str:
    """The compare page's section under ``<h2 id="name">``, up to the next heading of its level."""
    start = page.index(f'<h2 id="{name}">')
    end = page.find("<h2", start + 1)
    return page[start : end if end != -1 else len(page)]


def _modify(repo: Path) -> None:
    """The ops agent a week later: every line of tools.py moved down, purge_cache (shutil.rmtree) gone,
    page_oncall (an HTTP POST) new."""
    tools = repo / "ops_agent" / "tools.py"
    text = tools.read_text()
    text = text.replace(
        '"""Tools the ops agent gives the model."""', '"""Tools the ops agent gives the model.\n\nReviewed.\n"""'
    )
    start = text.index("@function_tool\ndef purge_cache")
    text = (
        text[:start]
        + '@function_tool\ndef page_oncall(message: str) -> str:\n    """Page the on-call engineer."""\n'
        + '    return httpx.post("https://pager.example.com/api/page", json={"text": message}, timeout=10).text\n'
    )
    tools.write_text(text)
    agent = repo / "ops_agent" / "agent.py"
    agent.write_text(agent.read_text().replace("purge_cache", "page_oncall"))


async def test_a_member_starts_a_run_from_the_workspace_and_follows_it_to_its_evaluation(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, tmp_path: Path
) -> None:
    source = await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        workspace = (await ann.get(f"/dashboard/systems/{world.system_a}")).text
        assert "Start a run" in workspace
        assert f'action="/dashboard/systems/{world.system_a}/runs"' in workspace
        assert f'<option value="{source}">' in workspace
        started = await _start(ann, world.system_a, static="on", source=source)
        assert started.status_code == 303, started.text
        found = _RUN_LINK.match(started.headers["location"])
        assert found is not None
        run_id = found.group(1)
        done = await _follow(ann, started.headers["location"])
        assert "COMPLETED" in done and "Read the evaluation" in done
        assert "executionMode ui, started from the dashboard" in done and people.ann in done
        evaluation = re.search(r'href="(/dashboard/evaluations/(eval_[^"]+))"', done)
        assert evaluation is not None
        assert (await ann.get(evaluation.group(1))).status_code == 200
        # The workspace lists the run.
        assert f'href="/dashboard/runs/{run_id}"' in (await ann.get(f"/dashboard/systems/{world.system_a}")).text
    # The API reads the same run, recorded as started from the dashboard.
    api = await client.get(f"{RUNS}/{run_id}", headers=bearer(world.agent_key_a))
    assert api.status_code == 200 and api.json()["status"] == "COMPLETED"
    assert api.json()["evaluation"]["evaluationId"] == evaluation.group(2)
    listed = (await client.get(RUNS, headers=bearer(world.agent_key_a))).json()["runs"]
    assert [r["staticExecutionMode"] for r in listed if r["runId"] == run_id] == ["ui"]
    async with world.sessions() as session:
        row = await session.get(Run, run_id)
        assert row is not None and row.organization_id == world.org_a and row.api_key_id.startswith("dashboard:usr")
        assert json.loads(row.request_json)["engines"]["static"]["executionMode"] == "ui"


async def test_executionmode_ui_is_the_dashboards_and_refused_over_the_api(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    answer = await create(
        client, world.agent_key_a, {"aiSystemId": world.system_a, "engines": {"static": {"executionMode": "ui"}}}
    )
    assert answer.status_code == 400
    assert "started from the dashboard" in answer.json()["error"]["message"]
    assert await _runs_of(world) == 0


async def test_viewers_see_no_form_and_their_post_is_refused(
    app: Starlette, world: World, people: People, tmp_path: Path
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    await add_user(world.sessions, world.org_a, VIEWER, role="viewer")
    async with _browser(app) as vera:
        await sign_in(vera, VIEWER)
        workspace = await vera.get(f"/dashboard/systems/{world.system_a}")
        assert workspace.status_code == 200 and "Start a run" not in workspace.text
        refused = await _start(vera, world.system_a, static="on")
        assert refused.status_code == 403 and "Only members, admins and owners" in refused.text
        assert "can start runs" in refused.text
    assert await _runs_of(world) == 0


async def test_forged_and_cross_site_run_forms_are_refused(
    app: Starlette, world: World, people: People, tmp_path: Path
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    target = f"/dashboard/systems/{world.system_a}/runs"
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        forged = await ann.post(target, data={"csrf_token": "forged", "static": "on"})
        assert forged.status_code == 403 and "expired or did not come from this page" in forged.text
        missing = await ann.post(target, data={"static": "on"})
        assert missing.status_code == 403
        token = csrf_of((await ann.get(f"/dashboard/systems/{world.system_a}")).text)
        cross = await ann.post(
            target, data={"csrf_token": token, "static": "on"}, headers={"Origin": "https://evil.example"}
        )
        assert cross.status_code == 403 and "another site" in cross.text
    async with _browser(app) as stranger:
        answer = await stranger.post(target, data={"static": "on"})
        assert answer.status_code == 303 and answer.headers["location"].startswith("/dashboard/login")
    assert await _runs_of(world) == 0


async def test_a_run_that_cannot_start_gets_a_clear_page_not_a_500(
    app: Starlette, world: World, people: People, tmp_path: Path
) -> None:
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        # No source at all: nothing is offered, and a POST anyway is a 400 that says why.
        workspace = (await ann.get(f"/dashboard/systems/{world.system_a2}")).text
        assert (
            "This system has nothing to run yet" in workspace
            and '<form method="post" action="/dashboard/systems' not in workspace
        )
        bare = await _start(ann, world.system_a2, static="on")
        assert bare.status_code == 400 and "no bound source" in bare.text
        # A source not verified yet.
        await bind(world.sessions, world.org_a, world.system_a2, copy_example("ops-agent", tmp_path), verify=False)
        workspace = (await ann.get(f"/dashboard/systems/{world.system_a2}")).text
        assert "pending" in workspace
        pending = await _start(ann, world.system_a2, static="on")
        assert pending.status_code == 400 and "The run could not be started" in pending.text
        assert "cannot be scanned" in pending.text
        # A verified source whose directory is gone: 409.
        gone = tmp_path / "gone"
        source = await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", gone))
        for path in sorted(gone.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        vanished = await _start(ann, world.system_a, static="on", source=source)
        assert vanished.status_code == 409 and "cannot be scanned" in vanished.text
        # No engine ticked; another organization's source id; an unknown jurisdiction.
        nothing = await _start(ann, world.system_a, source=source)
        assert nothing.status_code == 400 and "No engine is enabled" in nothing.text
        unknown = await _start(ann, world.system_a, static="on", source="src_of_someone_else")
        assert unknown.status_code == 404
        odd = await _start(ann, world.system_a, static="on", source=source, jurisdiction="<mars>")
        assert odd.status_code == 400 and "jurisdiction" in odd.text and "<mars>" not in odd.text
        # A retired system offers no form, and a POST anyway is refused.
        async with world.sessions() as session:
            await systems.retire_ai_system(session, world.org_a, world.system_a)
            await session.commit()
        retired = (await ann.get(f"/dashboard/systems/{world.system_a}")).text
        assert "it takes no new run" in retired and 'class="start"' not in retired
        late = await _start(ann, world.system_a, static="on", source=source)
        assert late.status_code == 400 and "retired" in late.text
    assert await _runs_of(world) == 0


async def test_another_organizations_runs_and_systems_are_the_same_404_as_missing_ones(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, tmp_path: Path
) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    run_id = created.json()["runId"]
    await wait(client, world.agent_key_a, run_id)
    async with _browser(app) as bob:
        await sign_in(bob, people.bob)
        missing = await bob.get("/dashboard/runs/run_does_not_exist")
        assert missing.status_code == 404
        other = await bob.get(f"/dashboard/runs/{run_id}")
        assert other.status_code == 404 and other.text == missing.text
        token = csrf_of((await bob.get("/dashboard")).text)
        post = await bob.post(f"/dashboard/systems/{world.system_a}/runs", data={"csrf_token": token, "static": "on"})
        assert post.status_code == 404
        compare = await bob.get(f"/dashboard/systems/{world.system_a}/compare", params={"base": "a", "head": "b"})
        assert compare.status_code == 404
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        page = await ann.get(f"/dashboard/runs/{run_id}")
        assert page.status_code == 200 and "started over the API" in page.text and "an API key" in page.text
    async with _browser(app) as stranger:
        answer = await stranger.get(f"/dashboard/runs/{run_id}")
        assert (
            answer.status_code == 303
            and answer.headers["location"] == f"/dashboard/login?next=/dashboard/runs/{run_id}"
        )


async def test_a_failed_run_says_why_in_words(app: Starlette, world: World, people: People) -> None:
    now = utcnow()
    plan = {
        "ai_system_id": world.system_a,
        "static_mode": "ui",
        "source_asset_id": None,
        "source_path": "/srv/ops-agent",
        "attached_scan_id": None,
        "jurisdiction": None,
        "attachments": [],
        "runtime": None,
        "wizard": None,
    }
    async with world.sessions() as session:
        session.add(
            Run(
                id="run_failed_one",
                organization_id=world.org_a,
                ai_system_id=world.system_a,
                api_key_id="dashboard:usr_gone",
                status="FAILED",
                request_json="{}",
                plan_json=json.dumps(plan),
                static_execution_mode="ui",
                failure={
                    "code": "SOURCE_UNAVAILABLE",
                    "engine": "static",
                    "message": "The source <path> is gone.",
                    "retryable": False,
                },
                created_at=now,
                started_at=now,
                completed_at=now,
            )
        )
        await session.commit()
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        page = (await ann.get("/dashboard/runs/run_failed_one")).text
    assert "FAILED" in page and "Why it failed" in page
    assert "The source &lt;path&gt; is gone." in page and "<code>SOURCE_UNAVAILABLE</code>" in page
    assert "Starting it again will fail the same way" in page and 'http-equiv="refresh"' not in page
    assert "Read the evaluation" not in page


async def test_two_evaluations_compare_by_fingerprint_tool_and_action(
    app: Starlette, client: httpx.AsyncClient, world: World, people: People, tmp_path: Path
) -> None:
    repo = copy_example("ops-agent", tmp_path)
    await bind(world.sessions, world.org_a, world.system_a, repo)
    first = await wait(
        client,
        world.agent_key_a,
        (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()["runId"],
    )
    _modify(repo)
    second = await wait(
        client,
        world.agent_key_a,
        (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()["runId"],
    )
    base, head = first["evaluation"]["evaluationId"], second["evaluation"]["evaluationId"]
    compare = f"/dashboard/systems/{world.system_a}/compare"
    async with _browser(app) as ann:
        await sign_in(ann, people.ann)
        workspace = (await ann.get(f"/dashboard/systems/{world.system_a}")).text
        # The newest row compares with the one before it; the form preselects the same pair.
        assert f'href="{compare}?base={base}&amp;head={head}"' in workspace
        assert f'<option value="{base}" selected>' in workspace and f'<option value="{head}" selected>' in workspace
        page = await ann.get(compare, params={"base": base, "head": head})
        assert page.status_code == 200, page.text[:500]
        text = page.text
        section = {name: _section(text, name) for name in ("new", "fixed", "tools", "actions", "unchanged")}
        # purge_cache's rmtree is fixed; page_oncall is new; the shell flow moved two lines and is unchanged.
        assert "purge_cache" in section["fixed"] and "purge_cache" not in section["new"]
        assert "page_oncall" in section["new"]
        assert "reaches shell.exec at ops_agent/tools.py:" in section["unchanged"]
        assert "reaches shell.exec" not in section["new"] + section["fixed"]
        tools, actions = section["tools"], section["actions"]
        assert tools.index("page_oncall") < tools.index("Removed (") < tools.index("purge_cache")
        assert "restart_service" not in tools and "run_diagnostic" not in tools
        assert actions.index("network.egress httpx.post via page_oncall") < actions.index("Removed (")
        assert actions.index("Removed (") < actions.index("file.delete shutil.rmtree via purge_cache")
        assert "subprocess.run" not in actions
        # Swapped, new and fixed trade places.
        swapped = (await ann.get(compare, params={"base": head, "head": base})).text
        assert f'href="{compare}?base={base}&amp;head={head}"' in swapped
        assert "page_oncall" in _section(swapped, "fixed") and "purge_cache" in _section(swapped, "new")
        # Bad pairs get clear answers.
        same = await ann.get(compare, params={"base": head, "head": head})
        assert same.status_code == 400 and "compared with itself" in same.text
        one = await ann.get(compare, params={"head": head})
        assert one.status_code == 400 and "Choose two evaluations" in one.text
        assert (await ann.get(compare, params={"base": "eval_missing", "head": head})).status_code == 404
        # An evaluation of another system of the organization is named as such.
        await bind(world.sessions, world.org_a, world.system_a2, copy_example("ops-agent", tmp_path / "a2"))
        other = await wait(
            client,
            world.agent_key_a,
            (await create(client, world.agent_key_a, {"aiSystemId": world.system_a2, **STATIC})).json()["runId"],
        )
        mixed = await ann.get(compare, params={"base": other["evaluation"]["evaluationId"], "head": head})
        assert mixed.status_code == 400 and "another AI System" in mixed.text


@pytest.mark.parametrize("role", ["member", "admin", "owner"])
async def test_members_and_above_see_the_form(app: Starlette, world: World, tmp_path: Path, role: str) -> None:
    await bind(world.sessions, world.org_a, world.system_a, copy_example("ops-agent", tmp_path))
    email = f"{role}@acme.example"
    await add_user(world.sessions, world.org_a, email, role=role)
    async with _browser(app) as someone:
        await sign_in(someone, email)
        assert "Start a run" in (await someone.get(f"/dashboard/systems/{world.system_a}")).text
