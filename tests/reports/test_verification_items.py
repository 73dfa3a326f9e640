"""verificationNeeded is the authoritative evidence request: whole in every projection, with structured
members beside the prose; the agent audit is paged by default and whole on request."""

from __future__ import annotations

import copy

import pytest
from report_systems import WIDE_TOOLS, evaluated, evaluated_example, write_wide_system

from assay.backend.evaluation.agent_audit import PAGE_SIZE, build_agent_audit
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.reports.master import MAX_TEXT, build_master_report


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> EvaluationPayload:
    return evaluated(write_wide_system(tmp_path_factory.mktemp("wide")))[1]


def test_bounded_master_report_never_cuts_verification_needed() -> None:
    _, payload = evaluated_example("ops-agent")
    data = copy.deepcopy(payload.data)
    long_request = "Provide the approval records of every refund. " * 20  # well past MAX_TEXT
    assert len(long_request) > MAX_TEXT
    data["verificationItems"][0]["verificationNeeded"] = long_request
    data["verificationItems"][0]["whyItMatters"] = long_request
    report = build_master_report("e", EvaluationPayload(data), links={})["masterReport"]
    item = report["verificationItems"][0]
    assert item["verificationNeeded"] == long_request
    assert item["whyItMatters"].endswith("…") and len(item["whyItMatters"]) == MAX_TEXT  # other prose is bounded
    assert "verificationItems[].verificationNeeded#chars" not in report["omitted"]


def test_items_carry_structured_location_tool_class_and_severity(wide: EvaluationPayload) -> None:
    items = build_agent_audit("e", wide, detail="full")["agentAudit"]["verificationItems"]
    located = [i for i in items if i["actionClass"] is not None]
    assert len(located) >= WIDE_TOOLS
    for item in located:
        where = f"{item['location']['path']}:{item['location']['line']}"
        assert where in item["whatHaiecFound"] and item["tool"] in item["verificationNeeded"]
        assert item["severity"] in ("critical", "high", "medium", "low")
    runtime = next(i for i in items if i["kind"] == "runtime_evidence_needed")
    assert (runtime["location"], runtime["tool"], runtime["tools"], runtime["actionClass"]) == (None, None, [], None)
    assert runtime["toolCount"] == 0 and all(i["toolCount"] == len(i["tools"]) for i in located)


def test_agent_audit_is_paged_by_default_and_whole_on_request(wide: EvaluationPayload) -> None:
    full = build_agent_audit("e", wide, detail="full")["agentAudit"]
    every = full["verificationItems"]
    assert len(every) > 2 * PAGE_SIZE and full["omitted"] == {} and full["rest"] is None
    first = build_agent_audit("e", wide)["agentAudit"]
    paging = first["paging"]
    assert paging == {
        "page": 1,
        "pageSize": PAGE_SIZE,
        "pages": -(-len(every) // PAGE_SIZE),
        "totalItems": len(every),
        "nextPage": 2,
    }
    assert first["omitted"]["verificationItems"] == len(every) - PAGE_SIZE
    assert first["rest"] is not None and "?page=2" in first["rest"] and "?detail=full" in first["rest"]
    for path, count in first["omitted"].items():  # every cut list is named with its count
        assert count > 0 and path in {
            "verificationItems",
            "sections.disposition.reasons",
            "sections.reach.differences",
            "sections.proofBoundary.unresolved",
            "narrative.established",
            "narrative.unestablished",
            "narrative.notAssessed",
            "narrative.limitations",
        }
    pages, page = [], 1
    while page is not None:
        audit = build_agent_audit("e", wide, page=page)["agentAudit"]
        pages += audit["verificationItems"]
        assert audit["narrative"]["evidenceGaps"] == [i["verificationNeeded"] for i in audit["verificationItems"]]
        page = audit["paging"]["nextPage"]
    assert pages == every  # the pages, read in order, are the whole list: nothing lost, nothing repeated
    with pytest.raises(ValueError, match="page must be between 1 and"):
        build_agent_audit("e", wide, page=paging["pages"] + 1)


def test_small_audit_is_one_page_with_nothing_omitted() -> None:
    _, payload = evaluated_example("ops-agent")
    audit = build_agent_audit("e", payload)["agentAudit"]
    assert audit["paging"]["nextPage"] is None and audit["omitted"] == {} and audit["rest"] is None
    assert (
        audit["verificationItems"] == build_agent_audit("e", payload, detail="full")["agentAudit"]["verificationItems"]
    )


def test_wide_system_fixture_has_the_tools_it_promises(wide: EvaluationPayload) -> None:
    assert len(wide.data["fourQuestions"]["reach"]["codeCapable"]["tools"]) == WIDE_TOOLS
