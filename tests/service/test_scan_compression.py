"""POST /api/v1/scans with a gzip body (Content-Encoding: gzip): accepted like the plain one, bounded as it
is decompressed, and every refusal names the limit and the setting that raises it."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from service_bundles import make_submission
from service_helpers import World, assert_error, bearer

from assay.server.settings import SettingsError, read_environment

LIMIT = 256 * 1024  # the test settings' max_scan_body_bytes


def _headers(key: str, **extra: str) -> dict[str, str]:
    return {**bearer(key), "Content-Type": "application/json", **extra}


async def test_a_gzip_body_is_read_as_the_plain_one(client: httpx.AsyncClient, world: World) -> None:
    body = json.dumps(make_submission(world.system_a)).encode()
    for encoding in ("gzip", "GZip"):
        response = await client.post(
            "/api/v1/scans",
            content=gzip.compress(body),
            headers=_headers(world.agent_key_a, **{"Content-Encoding": encoding, "Idempotency-Key": "same"}),
        )
        assert response.status_code == 201, response.text
    # The same canonical payload as the plain body: the Idempotency-Key replays the scan.
    plain = await client.post(
        "/api/v1/scans", content=body, headers=_headers(world.agent_key_a, **{"Idempotency-Key": "same"})
    )
    assert plain.status_code == 201 and plain.json() == response.json()
    # Two gzip members, as `cat a.gz b.gz` makes, are one body.
    half = len(body) // 2
    members = gzip.compress(body[:half]) + gzip.compress(body[half:])
    response = await client.post(
        "/api/v1/scans", content=members, headers=_headers(world.agent_key_a, **{"Content-Encoding": "gzip"})
    )
    assert response.status_code == 201, response.text


async def test_a_gzip_body_that_inflates_past_the_limit_is_413(client: httpx.AsyncClient, world: World) -> None:
    # 64 MiB of spaces compress to about 64 KiB, well under the limit on the wire.
    bomb = gzip.compress(b"{" + b" " * (64 * 1024 * 1024) + b"}")
    assert len(bomb) < LIMIT
    response = await client.post(
        "/api/v1/scans", content=bomb, headers=_headers(world.agent_key_a, **{"Content-Encoding": "gzip"})
    )
    error = assert_error(response, 413, "INVALID_REQUEST")
    assert f"{LIMIT} bytes" in error["message"] and "decompressed" in error["message"]
    assert "ASSAY_MAX_SCAN_BODY_BYTES" in error["message"]


async def test_a_plain_body_over_the_limit_names_the_setting(client: httpx.AsyncClient, world: World) -> None:
    padded = make_submission(world.system_a)
    padded["padding"] = "x" * LIMIT
    error = assert_error(
        await client.post("/api/v1/scans", content=json.dumps(padded), headers=_headers(world.agent_key_a)),
        413,
        "INVALID_REQUEST",
    )
    assert f"{LIMIT} bytes" in error["message"] and "ASSAY_MAX_SCAN_BODY_BYTES" in error["message"]


@pytest.mark.parametrize(
    ("content", "encoding"),
    [
        (b"not gzip at all", "gzip"),
        (gzip.compress(b'{"aiSystemId": "x"}')[:-12], "gzip"),  # truncated
        (gzip.compress(b'{"aiSystemId": "x"}') + b"trailing", "gzip"),
        (b"{}", "br"),
        (b"{}", "gzip, br"),
    ],
)
async def test_bad_encodings_are_400(client: httpx.AsyncClient, world: World, content: bytes, encoding: str) -> None:
    response = await client.post(
        "/api/v1/scans", content=content, headers=_headers(world.agent_key_a, **{"Content-Encoding": encoding})
    )
    assert_error(response, 400, "INVALID_REQUEST")


def test_the_limit_is_read_from_the_environment() -> None:
    assert read_environment({}).max_scan_body_bytes == 160 * 1024 * 1024
    assert read_environment({"ASSAY_MAX_SCAN_BODY_BYTES": "1048576"}).max_scan_body_bytes == 1024 * 1024
    for bad in ("-1", "lots", "10"):
        with pytest.raises(SettingsError, match="ASSAY_MAX_SCAN_BODY_BYTES"):
            read_environment({"ASSAY_MAX_SCAN_BODY_BYTES": bad})
