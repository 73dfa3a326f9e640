"""The wizard on PostgreSQL (asyncpg): answers, a data file, a wizard-only run, and immutable data files.
Own database per test; skipped when no server is reachable (ASSAY_TEST_POSTGRES_URL)."""

from __future__ import annotations

import httpx
import pytest
from runs_helpers import create, provision_world, wait
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from wizard_helpers import answer_all, attach, candidates, create_assessment

from assay.backend.settings import RateLimitSettings, ServiceSettings
from assay.backend.web.app import create_app

pytestmark = pytest.mark.postgres


async def test_assessment_and_wizard_run_on_postgres(pg_url: str) -> None:
    app = create_app(ServiceSettings(database_url=pg_url, rate_limit=RateLimitSettings(enabled=False)))
    async with app.router.lifespan_context(app):
        world = await provision_world(app.state.services.session_factory)
        key = world.agent_key_a
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://pg") as client:
            assessment = (await create_assessment(client, key, world.system_a, "nyc_ll144"))["assessmentId"]
            await answer_all(client, key, assessment, {"uses_aedt": True, "output_type": "selection"})
            rows = "candidate,sex,race_ethnicity,selected\n" + "".join(
                f"c{i},{s},{r},{v}\n" for i, (s, r, v) in enumerate(candidates(300))
            )
            attached = await attach(client, key, assessment, rows.encode())
            assert attached.status_code == 201, attached.text
            body = {"aiSystemId": world.system_a, "engines": {"wizard": {"enabled": True, "assessmentId": assessment}}}
            created = await create(client, key, body)
            done = await wait(client, key, created.json()["runId"])
            assert done["status"] == "COMPLETED", done
        data_id = attached.json()["attached"]["dataId"]
        for statement in (
            "UPDATE assessment_data SET row_count=0 WHERE id=:id",
            "DELETE FROM assessment_data WHERE id=:id",
        ):
            with pytest.raises(DBAPIError, match="immutable"):
                async with app.state.services.engine.begin() as connection:
                    await connection.execute(text(statement), {"id": data_id})
