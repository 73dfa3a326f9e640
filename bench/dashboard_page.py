"""Dashboard figure (issue 24): median time of the evaluation page of the largest example, signed in,
against the summary API read of the same Evaluation, alternated in one run through the same ASGI app.
Target: the page within 2x the summary read."""

from __future__ import annotations

import asyncio
import re
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from assay.backend import provisioning
from assay.backend.dashboard import users
from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REPEATS = 30
PASSWORD = "a benchmark's passphrase"


async def _measure(tmp: Path) -> None:
    largest = max(
        (p for p in EXAMPLES.iterdir() if (p / "assay.toml").exists()),
        key=lambda p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()),
    )
    settings = ServiceSettings(
        database_url=sqlite_url_for(tmp / "bench.db"), data_dir=tmp, rate_limit=RateLimitSettings(enabled=False)
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        sessions = app.state.services.session_factory
        async with sessions() as session:
            org = await provisioning.create_organization(session, "Bench")
            system = await provisioning.create_ai_system(session, org.id, "Largest example")
            source = await provisioning.add_source(session, org.id, system.id, str(largest))
            await provisioning.verify_source(session, source.id)
            key = (await provisioning.create_api_key(session, org.id, purpose="assurance-agent")).api_key
            await users.create_user(session, org.id, "bench@example.com", "viewer", PASSWORD)
            await session.commit()
        auth = {"Authorization": f"Bearer {key}"}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            run = (
                await client.post(
                    "/api/v1/assurance/runs",
                    json={"aiSystemId": system.id, "engines": {"static": {"enabled": True}}},
                    headers=auth,
                )
            ).json()
            deadline = time.monotonic() + 300
            while run["status"] not in ("COMPLETED", "FAILED"):
                assert time.monotonic() < deadline, "the run did not finish"
                await asyncio.sleep(0.05)
                run = (await client.get(run["links"]["self"], headers=auth)).json()
            assert run["status"] == "COMPLETED", run
            login = await client.get("/dashboard/login")
            token = re.search(r'name="csrf_token" value="([^"]+)"', login.text)
            assert token is not None
            form = {
                "csrf_token": token.group(1),
                "next": "/dashboard",
                "email": "bench@example.com",
                "password": PASSWORD,
            }
            assert (await client.post("/dashboard/login", data=form)).status_code == 303
            page_url, summary_url = run["links"]["dashboardEvaluation"], run["links"]["summary"]
            page_times, summary_times = [], []
            size = 0
            for _ in range(REPEATS):
                start = time.perf_counter()
                page = await client.get(page_url)
                page_times.append(time.perf_counter() - start)
                assert page.status_code == 200
                size = len(page.content)
                start = time.perf_counter()
                assert (await client.get(summary_url, headers=auth)).status_code == 200
                summary_times.append(time.perf_counter() - start)
    page_median, summary_median = statistics.median(page_times), statistics.median(summary_times)
    print(f"largest example: {largest.name}; evaluation page {size} bytes")
    print(
        f"evaluation page median {page_median * 1000:.1f} ms, summary API median {summary_median * 1000:.1f} ms "
        f"over {REPEATS} alternated reads; ratio {page_median / summary_median:.2f}x (target <= 2x)"
    )


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_measure(Path(tmp)))
