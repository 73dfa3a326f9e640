"""One probe session per runtime target at a time, across runs: two runs of the same target, executed by
two workers, probe it one after the other; a run that cannot get the target within its wait fails
retryably; a hold left by a dead worker expires. The test server holds its session until the test lets
it go, so nothing here waits on a clock."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import anyio
import anyio.abc
import httpx
import pytest
from runs_helpers import create, wait
from runtime_helpers import add_target, run_to_end, runtime_body
from service_helpers import World
from starlette.applications import Starlette

from assay.backend.settings import ServiceSettings
from assay.backend.storage import models

HERE = Path(__file__).resolve().parent
ENGINE_LOGGER = "assay.backend.runtime.engine"


@pytest.fixture
def settings(settings: ServiceSettings, request: pytest.FixtureRequest) -> ServiceSettings:
    # Two in-process workers: two runs execute at once unless the target bound holds one back.
    wait_seconds = float(getattr(request, "param", 60.0))
    return replace(settings, run_workers=2, runtime_target_wait_seconds=wait_seconds)


async def accept(listener: anyio.abc.SocketListener) -> anyio.abc.SocketStream:
    with anyio.fail_after(60):
        return await listener.accept()


async def busy(caplog: pytest.LogCaptureFixture, run_ids: set[str]) -> set[str]:
    """The runs of ``run_ids`` a worker said wait for their target, once there is one (bounded)."""
    with anyio.fail_after(60):
        while True:
            found = {
                str(getattr(r, "runId", ""))
                for r in caplog.records
                if getattr(r, "event", None) == "run.target_busy" and getattr(r, "runId", None) in run_ids
            }
            if found:
                return found
            await anyio.sleep(0.01)


async def test_two_runs_of_one_target_probe_it_one_after_the_other(
    app: Starlette, client: httpx.AsyncClient, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    gate = listener.listeners[0]
    port = gate.extra(anyio.abc.SocketAttribute.local_port)
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'gate_server.py'} {port}")
    async with listener:
        with caplog.at_level(logging.INFO, logger=ENGINE_LOGGER):
            first = (await create(client, world.agent_key_a, runtime_body(world, target))).json()["runId"]
            second = (await create(client, world.agent_key_a, runtime_body(world, target))).json()["runId"]
            server_one = await accept(gate)  # one server started and holds its session
            # The other run, claimed by the second worker, waits for the target instead of starting a server.
            assert len(await busy(caplog, {first, second})) == 1
            await server_one.send(b"go")
            server_two = await accept(gate)
            # By the time the second server starts, the first one's process is gone.
            with anyio.fail_after(10), pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
                await server_one.receive()
            await server_two.send(b"go")
            for run_id in (first, second):
                done = await wait(client, world.agent_key_a, run_id, seconds=60)
                assert done["status"] == "COMPLETED", done
            await server_one.aclose()
            await server_two.aclose()


@pytest.mark.parametrize("settings", [0.5], indirect=True)
async def test_a_run_that_cannot_get_its_target_in_time_fails_retryably(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'rugpull_server.py'} {tmp_path / 's'}")
    # Another worker's session holds the target's only slot (its hold runs for another hour).
    async with world.sessions() as session:
        session.add(
            models.RuntimeProbeSlot(
                target_id=target, slot=0, holder="run_elsewhere", expires_at=models.utcnow() + timedelta(hours=1)
            )
        )
        await session.commit()
    done = await run_to_end(client, world, runtime_body(world, target))
    assert done["status"] == "FAILED"
    assert done["failure"]["engine"] == "runtime" and done["failure"]["retryable"] is True
    assert "another run is probing it" in done["failure"]["message"]
    assert not (tmp_path / "s").exists()  # the server was never started


async def test_a_hold_left_by_a_dead_worker_expires(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    target = await add_target(app, world, command=f"{sys.executable} {HERE / 'rugpull_server.py'} {tmp_path / 's'}")
    async with world.sessions() as session:
        session.add(
            models.RuntimeProbeSlot(
                target_id=target, slot=0, holder="run_dead", expires_at=models.utcnow() - timedelta(seconds=1)
            )
        )
        await session.commit()
    done = await run_to_end(client, world, runtime_body(world, target))
    assert done["status"] == "COMPLETED", done
    async with world.sessions() as session:
        assert await session.get(models.RuntimeProbeSlot, (target, 0)) is None  # given back after the session


def test_the_bound_is_read_from_the_environment() -> None:
    from assay.server.settings import SettingsError, read_environment

    assert read_environment({"ASSAY_RUNTIME_TARGET_SESSIONS": "3"}).runtime_target_sessions == 3
    assert read_environment({}).runtime_target_sessions == 1
    for bad in ("0", "1.5", "many"):
        with pytest.raises(SettingsError, match="ASSAY_RUNTIME_TARGET_SESSIONS"):
            read_environment({"ASSAY_RUNTIME_TARGET_SESSIONS": bad})
