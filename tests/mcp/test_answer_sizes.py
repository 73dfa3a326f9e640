"""Every tool answer stays under 16 KB on a large system, and nothing is lost: verification items come
whole, page by page, exactly as the service holds them; a report's parts left out are each readable
through the call `omitted` names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mcp_helpers import data, embedded
from tests.reports.report_systems import write_wide_system

from assay.backend.settings import ServiceSettings
from assay.tools.answers import ANSWER_BUDGET, fit, select
from mcp import Client

READ = re.compile(r"assay_get_(?:master_report|agent_audit)\(evaluation_id='[^']+', section='([^']+)'")


def test_fit_leaves_out_whole_members_and_names_where_they_are() -> None:
    document = {
        "small": "s",
        "big": {"text": "x" * 5_000, "list": [{"n": n, "pad": "y" * 300} for n in range(40)]},
        "short": ["a" * 2_000, "b" * 10],
    }
    fitted, omitted = fit(document, 3_000, lambda path: f"section='{path}'")
    assert len(json.dumps(fitted, separators=(",", ":"))) <= 3_000
    for path in omitted:
        value = select(document, path)
        assert value  # each path reads the part left out, whole (a long list: from its first cut entry on)
    assert "big.text" in omitted and fitted["small"] == "s"
    # A text is never cut: every string left is whole.
    assert fitted["short"][1] == "b" * 10


async def test_a_large_system_answers_in_bounded_pages(settings: ServiceSettings, tmp_path: Path) -> None:
    workspace = write_wide_system(tmp_path / "wide")
    async with embedded(settings, workspace) as (service, server, _log), Client(server) as client:
        listed = await client.list_tools()
        assert len(listed.model_dump_json(by_alias=True, exclude_none=True).encode()) < 16 * 1024
        assessed = data(await client.call_tool("assay_assess_workspace", {}))
        evaluation_id = assessed["evaluationId"]
        whole = await service.binding.client.get_json(
            f"/api/v1/assurance/evaluations/{evaluation_id}/agent-audit", params={"detail": "full"}
        )
        expected = whole["agentAudit"]["verificationItems"]
        assert len(json.dumps(expected)) > 4 * ANSWER_BUDGET  # large enough to need pages

        # Tool pages: every item once, whole and in order; the last page says there is no next one.
        seen: list[dict[str, Any]] = []
        page: int | None = 1
        while page is not None:
            answer = data(
                await client.call_tool("assay_get_agent_audit", {"evaluation_id": evaluation_id, "page": page})
            )
            seen += answer["verificationItems"]
            page = answer["paging"]["nextPage"]
            if page is not None:
                assert f"page={page}" in answer["nextStep"]
        assert seen == expected and answer["paging"]["totalItems"] == len(expected)

        # The resource pages the same way, by URI.
        uri: str | None = f"assay://evaluations/{evaluation_id}/verification-needed"
        read: list[dict[str, Any]] = []
        while uri is not None:
            text = getattr((await client.read_resource(uri)).contents[0], "text", "")
            assert len(text.encode()) <= ANSWER_BUDGET
            document = json.loads(text)
            assert document["itemIds"] == [item["id"] for item in expected]
            read += document["verificationItems"]
            uri = document["nextPage"]
        assert read == expected

        # The Master Report (bounded and full): each part left out is readable with the call given.
        for detail in ("bounded", "full"):
            report = (
                await service.binding.client.get_json(
                    f"/api/v1/assurance/evaluations/{evaluation_id}/master-report", params={"detail": detail}
                )
            )["masterReport"]
            answer = data(
                await client.call_tool("assay_get_master_report", {"evaluation_id": evaluation_id, "detail": detail})
            )
            assert answer["omitted"]
            # Full detail is large: its first two parts stand for the rest.
            for path, entry in list(answer["omitted"].items())[: None if detail == "bounded" else 2]:
                section = READ.search(entry["read"])
                assert section and section.group(1) == path
                part = data(
                    await client.call_tool(
                        "assay_get_master_report", {"evaluation_id": evaluation_id, "detail": detail, "section": path}
                    )
                )
                if not part["omitted"]:
                    assert part["value"] == select(report, path)

        for tool, arguments in (
            ("assay_get_summary", {}),
            ("assay_get_passport", {}),
            ("assay_get_agent_audit", {"section": "sections"}),
            ("assay_get_agent_audit", {"section": "narrative"}),
        ):
            data(await client.call_tool(tool, {"evaluation_id": evaluation_id, **arguments}))
        for suffix in ("summary", "master-report", "agent-audit"):
            text = getattr(
                (await client.read_resource(f"assay://evaluations/{evaluation_id}/{suffix}")).contents[0], "text", ""
            )
            assert len(text.encode()) <= ANSWER_BUDGET
