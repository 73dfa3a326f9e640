"""Qualified scan submission (POST /api/v1/scans) and the scan status read."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest
from service_bundles import make_bundle, make_submission, rehash
from service_helpers import World, assert_error, bearer
from sqlmodel import select

from assay.backend.canonical import digest_json
from assay.backend.scans.bundle import content_hash
from assay.backend.storage import models


async def _submit(client: httpx.AsyncClient, key: str, body: Any, **headers: str) -> httpx.Response:
    return await client.post("/api/v1/scans", json=body, headers={**bearer(key), **headers})


async def test_valid_submission_is_accepted_stored_and_readable(client: httpx.AsyncClient, world: World) -> None:
    bundle = make_bundle()
    response = await _submit(client, world.agent_key_a, make_submission(world.system_a, bundle))
    assert response.status_code == 201, response.text
    accepted = response.json()
    scan_id = accepted["scanId"]
    assert scan_id.startswith("scan_")
    assert accepted == {
        "scanId": scan_id,
        "status": "COMPLETED",
        "aiSystemId": world.system_a,
        "sourceIdentity": bundle["sourceIdentity"],
        "qualifiedEvidence": {
            "schemaVersion": "1.0.0",
            "producerId": "ci-cd-scanner",
            "contentHash": bundle["contentHash"],
            "limitations": bundle["limitations"],
        },
        "attach": {"executionMode": "ci-attached", "attachedScanId": scan_id},
    }
    read = await client.get(f"/api/v1/scans/{scan_id}", headers=bearer(world.agent_key_a))
    assert read.status_code == 200
    record = read.json()
    assert record["kind"] == "qualified-submission" and record["origin"] == "ci"
    assert record["attach"] == accepted["attach"] and record["qualifiedEvidence"] == accepted["qualifiedEvidence"]
    assert record["bundleDigest"] == digest_json(bundle)
    assert record["commitSha"] == bundle["sourceIdentity"]["gitCommit"] and record["branch"] == "main"
    async with world.sessions() as session:
        row = (await session.exec(select(models.QualifiedScan))).one()
    stored = json.loads(row.bundle_json)
    assert stored == bundle and content_hash(stored) == bundle["contentHash"]


async def test_idempotent_retry_replays_and_a_different_payload_conflicts(
    client: httpx.AsyncClient, world: World
) -> None:
    body = make_submission(world.system_a)
    first = await _submit(client, world.agent_key_a, body, **{"Idempotency-Key": "ci-run-42"})
    assert first.status_code == 201
    # Same payload, different member order and whitespace: the same answer, byte for byte.
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=2)
    replay = await client.post(
        "/api/v1/scans",
        content=reordered,
        headers={**bearer(world.agent_key_a), "Idempotency-Key": "ci-run-42", "Content-Type": "application/json"},
    )
    assert replay.status_code == 201 and replay.content == first.content
    changed = make_submission(world.system_a, origin="local")
    conflict = await _submit(client, world.agent_key_a, changed, **{"Idempotency-Key": "ci-run-42"})
    assert_error(conflict, 409, "IDEMPOTENCY_CONFLICT")
    # The key is scoped to the API key: another key may use the same value.
    other_key = await world.key(["scan:submit"])
    other = await _submit(client, other_key, changed, **{"Idempotency-Key": "ci-run-42"})
    assert other.status_code == 201 and other.json()["scanId"] != first.json()["scanId"]
    # Without a key, every submission is a new scan.
    again = await _submit(client, world.agent_key_a, body)
    assert again.status_code == 201 and again.json()["scanId"] != first.json()["scanId"]
    async with world.sessions() as session:
        assert len((await session.exec(select(models.QualifiedScan))).all()) == 3


async def test_bad_idempotency_key_is_400(client: httpx.AsyncClient, world: World) -> None:
    response = await _submit(
        client, world.agent_key_a, make_submission(world.system_a), **{"Idempotency-Key": "x" * 256}
    )
    assert_error(response, 400, "INVALID_REQUEST")


async def test_submission_for_another_organizations_system_is_404(client: httpx.AsyncClient, world: World) -> None:
    response = await _submit(client, world.agent_key_a, make_submission(world.system_b))
    assert_error(response, 404, "AI_SYSTEM_NOT_FOUND")


async def test_missing_scan_is_404(client: httpx.AsyncClient, world: World) -> None:
    for scan_id in ("scan_missing", "lscan_missing", "whatever"):
        assert_error(
            await client.get(f"/api/v1/scans/{scan_id}", headers=bearer(world.agent_key_a)), 404, "RESOURCE_NOT_FOUND"
        )


async def test_oversized_body_is_413_even_without_content_length(client: httpx.AsyncClient, world: World) -> None:
    limit = 256 * 1024  # the test settings' max_scan_body_bytes
    padded = make_submission(world.system_a)
    padded["padding"] = "x" * limit
    declared = await _submit(client, world.agent_key_a, padded)
    error = assert_error(declared, 413, "INVALID_REQUEST")
    assert str(limit) in error["message"]

    async def chunks() -> Any:
        data = json.dumps(padded).encode()
        for i in range(0, len(data), 65536):
            yield data[i : i + 65536]

    streamed = await client.post(
        "/api/v1/scans", content=chunks(), headers={**bearer(world.agent_key_a), "Content-Type": "application/json"}
    )
    assert "content-length" not in streamed.request.headers
    assert_error(streamed, 413, "INVALID_REQUEST")


def _edit(world: World, change: Any) -> dict[str, Any]:
    body = make_submission(world.system_a)
    change(body)
    return body


def _set(path: str, value: Any, *, rehash_bundle: bool = False) -> Any:
    def change(body: dict[str, Any]) -> None:
        target = body
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(parts[-1])] = value
        else:
            target[parts[-1]] = value
        if rehash_bundle:
            body["bundle"] = rehash(body["bundle"])

    return change


def _delete(path: str) -> Any:
    def change(body: dict[str, Any]) -> None:
        target = body
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[part]
        del target[parts[-1]]

    return change


BAD_SUBMISSIONS: dict[str, tuple[Any, str]] = {
    "unknown top-level field": (_set("organizationId", "org_x"), "organizationId"),
    "missing aiSystemId": (_delete("aiSystemId"), "aiSystemId"),
    "wrong type aiSystemId": (_set("aiSystemId", 42), "aiSystemId"),
    "wrong producer": (_set("producerId", "sarif-import"), "producerId"),
    "wrong origin": (_set("origin", "cloud"), "origin"),
    "string for boolean dirty": (_set("sourceIdentity.dirty", "false"), "dirty"),
    "unknown sourceIdentity field": (_set("sourceIdentity.token", "t"), "token"),
    "bundle not an object": (_set("bundle", []), "bundle"),
    "bundle fails its schema": (
        _set("bundle.coverage.parseErrors", -1, rehash_bundle=True),
        "bundle.coverage.parseErrors",
    ),
    "bundle unknown field": (_set("bundle.extra", 1, rehash_bundle=True), "bundle"),
    "bundle wrong schemaVersion": (_set("bundle.schemaVersion", "2.0.0", rehash_bundle=True), "schemaVersion"),
    "content hash mismatch": (_set("bundle.limitations", ["edited after hashing"]), "contentHash"),
    "source identity mismatch": (_set("sourceIdentity.workspaceDigest", "sha256:" + "1" * 64), "sourceIdentity"),
    "commitSha mismatch": (_set("commitSha", "fedcba9"), "commitSha"),
    "branch mismatch": (_set("branch", "release"), "branch"),
    "raw source at top level": (_set("sourceCode", "import os\nos.system(x)"), "sourceCode"),
    "snippet inside the bundle": (_set("bundle.findings", [{"snippet": "os.system(x)"}]), "snippet"),
    "file contents list": (_set("fileContents", ["print(1)"]), "fileContents"),
}


@pytest.mark.parametrize("case", sorted(BAD_SUBMISSIONS))
async def test_bad_submission_is_400(client: httpx.AsyncClient, world: World, case: str) -> None:
    change, mentioned = BAD_SUBMISSIONS[case]
    response = await _submit(client, world.agent_key_a, _edit(world, change))
    error = assert_error(response, 400, "INVALID_REQUEST")
    assert mentioned in error["message"], error["message"]


async def test_producer_must_match_the_bundle(client: httpx.AsyncClient, world: World) -> None:
    from assay.backend.scans.scan_intake import check_submission

    # producerId is a one-value enum, so a mismatch can only come from a bundle that passes its own
    # schema with another producer id, which v1.0.0 forbids as well: both layers refuse it.
    bundle = make_bundle()
    bundle["producer"]["id"] = "other-scanner"
    body = make_submission(world.system_a, rehash(bundle))
    response = await _submit(client, world.agent_key_a, body)
    assert_error(response, 400, "INVALID_REQUEST")
    with pytest.raises(Exception, match="producer"):
        check_submission(body)


async def test_a_location_object_named_source_is_not_raw_source(client: httpx.AsyncClient, world: World) -> None:
    bundle = make_bundle()
    bundle["taintFlows"] = [
        {
            "id": "flow-1",
            "ruleId": "py.taint.model-to-shell",
            "sourceKind": "model_output",
            "source": {"path": "agent.py", "line": 3, "column": 1},
            "sink": {"path": "agent.py", "line": 20, "column": 9},
            "actionId": "act-1",
            "actionClass": "shell.exec",
            "path": [],
        }
    ]
    response = await _submit(client, world.agent_key_a, make_submission(world.system_a, rehash(bundle)))
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b'{"aiSystemId": ', "application/json"),
        (b"[1, 2]", "application/json"),
        (b'{"a": NaN}', "application/json"),
        (b'{"a": 1, "a": 2}', "application/json"),
        (b"\xff\xfe{}", "application/json"),
        (b"{}", "text/plain"),
        (b"{}", "application/json; charset=latin-1"),
        (b"aiSystemId=x", "application/x-www-form-urlencoded"),
        (b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}", "application/json"),
    ],
)
async def test_malformed_bodies_are_400(
    client: httpx.AsyncClient, world: World, content: bytes, content_type: str
) -> None:
    response = await client.post(
        "/api/v1/scans", content=content, headers={**bearer(world.agent_key_a), "Content-Type": content_type}
    )
    assert_error(response, 400, "INVALID_REQUEST")


async def test_missing_content_type_is_400(client: httpx.AsyncClient, world: World) -> None:
    body = json.dumps(make_submission(world.system_a)).encode()
    response = await client.post("/api/v1/scans", content=body, headers=bearer(world.agent_key_a))
    assert_error(response, 400, "INVALID_REQUEST")


async def test_error_messages_do_not_echo_submitted_values(client: httpx.AsyncClient, world: World) -> None:
    marker = "SECRET_VALUE_5521"
    body = make_submission(world.system_a)
    body["bundle"] = copy.deepcopy(body["bundle"])
    body["bundle"]["coverage"]["languages"] = {"python": marker}
    response = await _submit(client, world.agent_key_a, body)
    assert_error(response, 400, "INVALID_REQUEST")
    assert marker not in response.text


@pytest.mark.parametrize(
    "content",
    [
        b'{"aiSystemId": "x", "SECRET_NAME_5521": 1, "SECRET_NAME_5521": 2}',  # a repeated member name
        b'{"aiSystemId": "x", "n": 9007199254740993552100}',  # a number outside the RFC 8785 range
    ],
)
async def test_syntax_errors_do_not_echo_submitted_values(
    client: httpx.AsyncClient, world: World, content: bytes
) -> None:
    response = await client.post(
        "/api/v1/scans", content=content, headers={**bearer(world.agent_key_a), "Content-Type": "application/json"}
    )
    assert_error(response, 400, "INVALID_REQUEST")
    assert "5521" not in response.text
