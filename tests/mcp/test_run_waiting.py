"""Waiting for a run: each read asks the service to hold its answer until the run moves on (Prefer: wait);
a service that does not honour that is polled with backoff instead. Waits are recorded, never slept."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from assay.tools import runs
from assay.tools.client import AssayClient

STATES = [("RUNNING", "static"), ("RUNNING", "evaluation"), ("COMPLETED", None)]


def _service(honour: bool) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status, stage = STATES[min(len(seen) - 1, len(STATES) - 1)]
        headers = {"Preference-Applied": "wait=10"} if honour and "prefer" in request.headers else {}
        return httpx.Response(200, json={"runId": "run_1", "status": status, "stage": stage}, headers=headers)

    return httpx.MockTransport(handler), seen


@pytest.mark.parametrize("honour", [True, False])
async def test_a_run_is_followed_one_read_per_state(honour: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []

    async def record(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(runs.anyio, "sleep", record)
    transport, seen = _service(honour)
    api = AssayClient("http://remote.test", "k", transport=transport)
    try:
        run: dict[str, Any] = await runs.wait_for_run(api, "run_1", 60)
    finally:
        await api.aclose()
    assert run["status"] == "COMPLETED"
    assert len(seen) == len(STATES)
    assert "prefer" not in seen[0].headers  # the first read answers at once
    assert [r.headers["prefer"] for r in seen[1:]] == ["wait=10", "wait=10"]
    assert slept == ([] if honour else [0.1])  # backoff only when the service answered without waiting
