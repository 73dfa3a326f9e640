"""What the server offers: tools with titles, descriptions, typed arguments, output schemas and hints;
resource templates; every prompt; and the docs' tool table generated from the server."""

from __future__ import annotations

from pathlib import Path

from mcp_helpers import ROOT, embedded

from assay.backend.settings import ServiceSettings
from assay.prompts.loader import load_prompts
from assay.server.mcp_catalog import between_markers, catalog_server, tool_table_markdown
from assay.tools.registry import TOOLS
from mcp import Client

EXPECTED_TOOLS = {
    "assay_assess_workspace",
    "assay_create_run",
    "assay_get_run",
    "assay_list_runs",
    "assay_get_summary",
    "assay_get_agent_audit",
    "assay_get_master_report",
    "assay_get_passport",
    "assay_list_systems",
    "assay_get_evaluation_sources",
    "assay_list_evidence_binders",
    "assay_ingest_evidence",
    "assay_assessment",
    "assay_answer_assessment",
    "assay_attach_assessment_data",
    "assay_probe_mcp_server",
}


async def test_every_tool_is_described_typed_and_annotated(settings: ServiceSettings, tmp_path: Path) -> None:
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == EXPECTED_TOOLS == {spec.name for spec in TOOLS}
    for tool in tools.values():
        assert tool.title and tool.description and "Next" in tool.description, tool.name
        # One channel: the answer is a JSON text block, never repeated as structured content.
        assert tool.output_schema is None
        assert tool.annotations is not None and tool.annotations.destructive_hint is False
        # Only the probe reaches beyond the service: it starts or contacts the MCP server it names.
        assert tool.annotations.open_world_hint is (tool.name == "assay_probe_mcp_server")
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    creates = {name for name, t in tools.items() if not t.annotations or not t.annotations.read_only_hint}
    assert creates == {
        "assay_assess_workspace",
        "assay_create_run",
        "assay_ingest_evidence",
        "assay_assessment",
        "assay_answer_assessment",
        "assay_attach_assessment_data",
        "assay_probe_mcp_server",
    }
    assert tools["assay_answer_assessment"].annotations.idempotent_hint is True  # type: ignore[union-attr]
    assert tools["assay_create_run"].annotations.idempotent_hint is False  # type: ignore[union-attr]
    assert tools["assay_get_summary"].input_schema["required"] == ["evaluation_id"]
    detail = tools["assay_get_master_report"].input_schema["properties"]["detail"]
    assert detail["enum"] == ["bounded", "full"] and detail["default"] == "bounded"
    assert tools["assay_get_run"].input_schema["properties"]["wait_seconds"]["maximum"] == 120
    section = tools["assay_get_master_report"].input_schema["properties"]["section"]
    assert "omitted" in section["description"]


async def test_the_tool_list_stays_small(settings: ServiceSettings, tmp_path: Path) -> None:
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        listed = await client.list_tools()
    wire = listed.model_dump_json(by_alias=True, exclude_none=True)
    assert len(wire.encode()) < 16 * 1024
    for tool in listed.tools:
        assert len(tool.description or "") <= 600, tool.name


async def test_resources_are_bound_to_exact_evaluations(settings: ServiceSettings, tmp_path: Path) -> None:
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        static = {str(r.uri) for r in (await client.list_resources()).resources}
    assert templates == {
        "assay://evaluations/{evaluationId}/verification-needed",
        "assay://evaluations/{evaluationId}/verification-needed/{itemId}",
        "assay://evaluations/{evaluationId}/verification-needed/pages/{page}",
        "assay://evaluations/{evaluationId}/passport",
        "assay://evaluations/{evaluationId}/summary",
        "assay://evaluations/{evaluationId}/master-report",
        "assay://evaluations/{evaluationId}/agent-audit",
    }
    assert static == {"assay://systems"}
    assert not any("latest" in uri for uri in templates | static)


async def test_every_prompt_is_served_and_renders(settings: ServiceSettings, tmp_path: Path) -> None:
    texts = {p.name: p for p in load_prompts()}
    async with embedded(settings, tmp_path) as (_, server, _log), Client(server) as client:
        listed = {p.name: p for p in (await client.list_prompts()).prompts}
        assert set(listed) == set(texts) >= {"assess_my_change", "close_evidence_gaps", "explain_disposition"}
        for name, prompt in listed.items():
            text = texts[name]
            assert prompt.title == text.title and prompt.description == text.description
            assert [(a.name, a.required) for a in prompt.arguments or []] == [
                (a.name, a.required) for a in text.arguments
            ]
            values = {a.name: f"value-of-{a.name}" for a in text.arguments}
            rendered = (await client.get_prompt(name, values)).messages[0].content
            assert getattr(rendered, "text", None) == text.render(values)
        gaps = (await client.get_prompt("close_evidence_gaps", {"evaluation_id": "eval_x"})).messages[0].content
        assert "assay://evaluations/eval_x/verification-needed" in getattr(gaps, "text", "")
        # An optional argument left out takes the prompt's default.
        assess = (await client.get_prompt("assess_my_change", {})).messages[0].content
        assert "Focus**: the whole system" in getattr(assess, "text", "")


def test_tool_table_is_generated_from_the_server() -> None:
    table = tool_table_markdown(catalog_server())
    assert table.count("\n") == 2 + len(EXPECTED_TOOLS)
    for name in EXPECTED_TOOLS:
        assert f"| `{name}` |" in table


def test_docs_hold_exactly_the_generated_tool_table() -> None:
    table = tool_table_markdown(catalog_server())
    for document in ("docs/mcp.md", "README.md"):
        held = between_markers((ROOT / document).read_text(encoding="utf-8"))
        assert held == table, (
            f"{document} is out of step with the server: paste `python -m assay.server.mcp_catalog` between its markers"
        )
