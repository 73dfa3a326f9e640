"""Bearer keys, scopes per route, and the organization taken from the key only."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_bundles import make_submission
from service_helpers import World, assert_error, bearer
from starlette.applications import Starlette

from assay.backend import provisioning
from assay.backend.api_keys import generate_api_key, hash_api_key
from assay.backend.scopes import PURPOSE_SCOPES
from assay.backend.storage.models import utcnow

# Every route that requires a scope, with a request that reaches it. A test below checks this table
# against the app's route table, so a new route cannot skip the matrix.
SCOPED_ROUTES: dict[tuple[str, str], str] = {
    ("GET", "/api/v1/systems"): "system:read",
    ("GET", "/api/v1/systems/{systemId}/evaluation-sources"): "source:read",
    ("GET", "/api/v1/evidence/binders"): "source:read",
    ("POST", "/api/v1/scans"): "scan:submit",
    ("GET", "/api/v1/scans/{scanId}"): "scan:read",
    ("POST", "/api/ci/scan"): "scan:create",
    ("POST", "/api/v1/assurance/runs"): "scan:create",
    ("GET", "/api/v1/assurance/runs"): "scan:read",
    ("GET", "/api/v1/assurance/runs/{runId}"): "scan:read",
    **{
        ("GET", f"/api/v1/assurance/evaluations/{{evaluationId}}{suffix}"): "report:read"
        for suffix in (
            "/summary",
            "/agent-audit",
            "/master-report",
            "/master-report/html",
            "/master-report/pdf",
            "/report",
            "/report/pdf",
            "/passport",
            "/ll144-summary",
            "/ll144-summary/html",
            "/ll144-summary/pdf",
            "/oscal-assessment-results",
        )
    },
    ("POST", "/api/v1/assessments"): "scan:submit",
    ("GET", "/api/v1/assessments"): "scan:read",
    ("GET", "/api/v1/assessments/{assessmentId}"): "scan:read",
    ("PUT", "/api/v1/assessments/{assessmentId}/answers/{questionId}"): "scan:submit",
    ("POST", "/api/v1/assessments/{assessmentId}/data"): "scan:submit",
    ("GET", "/api/v1/evidence/binders/{binderId}/receipts"): "source:read",
    ("POST", "/api/ingest/structured"): "evidence:ingest",
    ("POST", "/api/ingest/log"): "evidence:ingest",
    ("POST", "/api/ingest/sarif"): "evidence:ingest",
    ("POST", "/api/otlp/v1/traces"): "evidence:ingest",
    ("POST", "/api/otlp/v1/metrics"): "evidence:ingest",
    ("POST", "/api/otlp/v1/logs"): "evidence:ingest",
    ("GET", "/api/v1/_test/boom"): "system:read",
    ("GET", "/api/v1/_test/limited"): "system:read",
}


def _request(world: World, method: str, template: str) -> tuple[str, dict[str, Any] | None]:
    path = (
        template.replace("{systemId}", world.system_a)
        .replace("{scanId}", "scan_0000")
        .replace("{runId}", "run_0000")
        .replace("{evaluationId}", "eval_0000")
        .replace("{binderId}", "bnd_0000")
        .replace("{assessmentId}", "asm_0000")
        .replace("{questionId}", "uses_aedt")
    )
    body: dict[str, Any] | None = None
    if template == "/api/v1/scans":
        body = make_submission(world.system_a)
    elif template == "/api/v1/assurance/runs" and method == "POST":
        body = {"aiSystemId": world.system_a, "engines": {"static": {"enabled": True}}}
    elif template == "/api/v1/assessments" and method == "POST":
        body = {"aiSystemId": world.system_a, "framework": "nyc_ll144"}
    elif template.endswith("/answers/{questionId}"):
        body = {"value": True}
    elif template == "/api/ci/scan":
        body = {"repoUrl": "/nowhere/repo", "branch": "main", "framework": "auto", "commitSha": "abcdef1"}
    return path, body


async def _call(client: httpx.AsyncClient, method: str, path: str, body: Any, key: str | None) -> httpx.Response:
    headers = bearer(key) if key else {}
    return await client.request(method, path, json=body, headers=headers)


def test_scope_matrix_covers_every_scoped_route(app: Starlette) -> None:
    table = {(s.method, s.path): s.scope for s in app.state.route_specs if s.scope is not None}
    assert table == SCOPED_ROUTES


@pytest.mark.parametrize(("method", "template"), sorted(SCOPED_ROUTES))
async def test_route_refuses_a_key_without_its_scope(
    client: httpx.AsyncClient, world: World, method: str, template: str
) -> None:
    scope = SCOPED_ROUTES[(method, template)]
    path, body = _request(world, method, template)
    response = await _call(client, method, path, body, await world.key_without(scope))
    assert_error(response, 403, "INSUFFICIENT_SCOPE")
    assert f'scope="{scope}"' in response.headers["www-authenticate"]


@pytest.mark.parametrize(("method", "template"), sorted(SCOPED_ROUTES))
async def test_route_admits_a_key_with_only_its_scope(
    client: httpx.AsyncClient, world: World, method: str, template: str
) -> None:
    path, body = _request(world, method, template)
    response = await _call(client, method, path, body, await world.key([SCOPED_ROUTES[(method, template)]]))
    assert response.status_code not in (401, 403), response.text


@pytest.mark.parametrize(("method", "template"), sorted(SCOPED_ROUTES))
async def test_route_requires_a_key(client: httpx.AsyncClient, world: World, method: str, template: str) -> None:
    path, body = _request(world, method, template)
    response = await _call(client, method, path, body, None)
    assert_error(response, 401, "UNAUTHORIZED")
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "authorization",
    [
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer ",
        "Bearer not-a-key",
        "Bearer svc_live_tooshort",
        "Bearer svc_prod_" + "a" * 43,
        "svc_live_" + "a" * 43,
        "Bearer svc_live_" + "a" * 43 + " extra",
    ],
)
async def test_malformed_authorization_is_401(client: httpx.AsyncClient, world: World, authorization: str) -> None:
    response = await client.get("/api/v1/systems", headers={"Authorization": authorization})
    assert_error(response, 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    ("authorization", "says"),
    [
        ("Basic dXNlcjpwYXNz", "it carries another scheme"),
        ("svc_live_" + "a" * 43, "it carries the key without 'Bearer '"),
        ("Bearer ", "the key after 'Bearer' is missing"),
        ("Bearer not-a-key", "starts with svc_live_ or svc_test_, and this one does not"),
        ("Bearer svc_live_tooshort", "at least 43 characters after svc_live_, and this one has 8 (cut short?)"),
        ("Bearer svc_test_" + "a" * 129, "at most 128 characters after svc_test_, and this one has 129"),
        ("Bearer svc_live_" + "a" * 42 + '"', "holds other characters"),
        ("Bearer svc_live_" + "a" * 43 + " extra", "holds other characters"),
    ],
)
async def test_a_malformed_key_is_told_what_is_wrong(
    client: httpx.AsyncClient, world: World, authorization: str, says: str
) -> None:
    response = await client.get("/api/v1/systems", headers={"Authorization": authorization})
    message = assert_error(response, 401, "UNAUTHORIZED")["message"]
    assert says in message
    assert "a" * 20 not in message and "tooshort" not in message  # the key itself is never echoed


async def test_unknown_revoked_and_expired_keys_get_the_same_401(client: httpx.AsyncClient, world: World) -> None:
    unknown = generate_api_key("live")
    revoked = await world.key(["system:read"])
    async with world.sessions() as session:
        await provisioning.revoke_api_key(session, world.key_ids[revoked])
        await session.commit()
    expired = await world.key(["system:read"], expires_in=timedelta(hours=1), now=utcnow() - timedelta(hours=2))
    answers = [await client.get("/api/v1/systems", headers=bearer(k)) for k in (unknown, revoked, expired)]
    for response in answers:
        assert_error(response, 401, "UNAUTHORIZED")
    assert len({r.content for r in answers}) == 1


async def test_revocation_takes_effect_on_the_next_request(client: httpx.AsyncClient, world: World) -> None:
    key = await world.key(["system:read"])
    assert (await client.get("/api/v1/systems", headers=bearer(key))).status_code == 200
    async with world.sessions() as session:
        await provisioning.revoke_api_key(session, world.key_ids[key])
        await session.commit()
    assert_error(await client.get("/api/v1/systems", headers=bearer(key)), 401, "UNAUTHORIZED")


async def test_key_with_a_future_expiry_and_test_keys_work(client: httpx.AsyncClient, world: World) -> None:
    live = await world.key(["system:read"], expires_in=timedelta(days=30))
    test = await world.key(["system:read"], environment="test")
    assert test.startswith("svc_test_") and live.startswith("svc_live_")
    for key in (live, test):
        assert (await client.get("/api/v1/systems", headers=bearer(key))).status_code == 200


async def test_organization_comes_from_the_key_only(client: httpx.AsyncClient, world: World) -> None:
    response = await client.get(
        "/api/v1/systems",
        params={"organizationId": world.org_b},
        headers={**bearer(world.agent_key_a), "X-Organization-Id": world.org_b},
    )
    assert response.status_code == 200
    assert {s["aiSystemId"] for s in response.json()["systems"]} == {world.system_a, world.system_a2}


def test_assurance_agent_purpose_never_grants_evidence_ingest() -> None:
    assert PURPOSE_SCOPES["assurance-agent"] == {
        "scan:submit",
        "scan:create",
        "scan:read",
        "report:read",
        "system:read",
        "source:read",
    }
    assert provisioning.resolve_scopes("evidence-intake", None) == ["evidence:ingest"]
    assert "evidence:ingest" in provisioning.resolve_scopes(None, ["scan:read", "evidence:ingest"])


async def test_keys_are_stored_only_as_hashes(app: Starlette, world: World) -> None:
    key = await world.key(["system:read"])
    database = app.state.services.settings.database_url.removeprefix("sqlite+aiosqlite:///")
    await app.state.services.engine.dispose()  # flush WAL into the file we read
    raw = b"".join(p.read_bytes() for p in Path(database).parent.glob("service.db*"))
    secret = key.removeprefix("svc_live_")
    assert secret.encode() not in raw
    assert hash_api_key(key).encode() in raw


async def test_openapi_is_documentation_served_without_a_key(client: httpx.AsyncClient, world: World) -> None:
    assert (await client.get("/api/v1/openapi.json")).status_code == 200
    only_ingest = await world.key(["evidence:ingest"])
    assert (await client.get("/api/v1/openapi.json", headers=bearer(only_ingest))).status_code == 200
