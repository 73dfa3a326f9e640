"""What the engine could not see never ends as ALLOW (docs/methodology.md, "Never a pass").

Each test builds a system that would come out ALLOW if the unseen part were taken as absent, and checks
the methodology keeps it visible: a reason, an unresolved-reach entry and a verification item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

MODEL_CALL = (
    "from openai import OpenAI\n\n"
    "def ask(q: str) -> str:\n"
    '    return OpenAI().chat.completions.create(model="gpt-4o", messages=[]).choices[0].message.content\n'
)
LOOKUP_TOOL = (
    "from langchain_core.tools import tool\n\n"
    "@tool\n"
    "def lookup(key: str) -> str:\n"
    '    """Look a key up."""\n'
    "    return key.upper()\n"
)
DECLARATION = (
    'version = "1"\npurpose = "answers questions"\ntools = ["lookup"]\n'
    '[[actions]]\nclass = "file.delete"\ndescription = "cache cleanup"\n'
    '[[actions]]\nclass = "file.write"\ndescription = "notes"\n'
)


def _evaluate(files: dict[str, str], tmp_path: Path) -> EvaluationPayload:
    root = tmp_path / "system"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    bundle = scan_tree(root).to_json_dict()
    return evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-test", jurisdiction=None)


def _reasons(payload: EvaluationPayload, rule: str) -> list[dict[str, Any]]:
    return [r for r in payload.data["reasons"] if r["ruleId"] == rule]


def _items(payload: EvaluationPayload, kind: str) -> list[dict[str, Any]]:
    return [i for i in payload.data["verificationItems"] if i["kind"] == kind]


def test_declared_high_impact_action_no_tool_reaches_is_unresolved_reach(tmp_path: Path) -> None:
    # The model is called and a harmless tool is recognised; a deletion sits in code no recognised tool
    # reaches. Declared and not reached, it used to pass: now it is REVIEW-008, never absence.
    cleanup = "import shutil\n\ndef purge() -> None:\n    shutil.rmtree('/var/cache/app')\n"
    payload = _evaluate(
        {"agent.py": MODEL_CALL, "tools.py": LOOKUP_TOOL, "cleanup.py": cleanup, "assay.toml": DECLARATION}, tmp_path
    )
    assert payload.disposition == "REVIEW"
    (reason,) = _reasons(payload, "REVIEW-008")
    assert "file.delete" in reason["message"] and "cleanup.py:4" in reason["message"]
    unresolved = payload.data["fourQuestions"]["reach"]["unresolved"]
    assert unresolved["status"] == "UNKNOWN"
    assert [u["kind"] for u in unresolved["items"]] == ["unattributed_action"]
    (item,) = _items(payload, "unattributed_action")
    assert "cleanup.py:4" in item["verificationNeeded"] and item["verificationNeeded"].endswith("NEW run.")
    assert item["evidenceRefs"] == reason["evidenceRefs"]


def test_the_same_action_reached_by_a_tool_and_declared_passes(tmp_path: Path) -> None:
    # The control case: once a recognised tool reaches the declared deletion (gated by approval), the rule
    # is silent, so REVIEW-008 is about attribution and nothing else.
    tool = (
        "import shutil\nfrom langchain_core.tools import tool\n\n"
        "@tool\n"
        "def lookup(key: str) -> str:\n"
        '    """Purge the cache."""\n'
        "    shutil.rmtree('/var/cache/app')\n"
        "    return key\n"
    )
    payload = _evaluate({"agent.py": MODEL_CALL, "tools.py": tool, "assay.toml": DECLARATION}, tmp_path)
    assert not _reasons(payload, "REVIEW-008")
    assert payload.disposition == "ALLOW"


def test_unattributed_medium_impact_action_is_not_unresolved_reach(tmp_path: Path) -> None:
    notes = "def save(text: str) -> None:\n    with open('notes.txt', 'w') as f:\n        f.write(text)\n"
    payload = _evaluate(
        {"agent.py": MODEL_CALL, "tools.py": LOOKUP_TOOL, "notes.py": notes, "assay.toml": DECLARATION}, tmp_path
    )
    assert not _reasons(payload, "REVIEW-008")
    assert payload.disposition == "ALLOW"


def test_without_ai_code_the_rule_is_no_ai_code_not_unattributed(tmp_path: Path) -> None:
    cleanup = "import shutil\n\ndef purge() -> None:\n    shutil.rmtree('/var/cache/app')\n"
    payload = _evaluate({"cleanup.py": cleanup, "assay.toml": DECLARATION}, tmp_path)
    assert not _reasons(payload, "REVIEW-008")
    assert _reasons(payload, "REVIEW-007")
    assert payload.disposition == "REVIEW"


def test_call_a_tool_makes_that_analysis_cannot_follow_is_unresolved_reach(tmp_path: Path) -> None:
    # ``client`` has no type the analysis knows: whatever ``fetch_record`` does is invisible.
    tool = (
        "from langchain_core.tools import tool\n\n"
        "@tool\n"
        "def lookup(client, key: str) -> str:\n"
        '    """Look a key up."""\n'
        "    return client.fetch_record(key)\n"
    )
    payload = _evaluate({"agent.py": MODEL_CALL, "tools.py": tool, "assay.toml": DECLARATION}, tmp_path)
    assert payload.disposition == "REVIEW"
    (reason,) = _reasons(payload, "REVIEW-001")
    assert "unresolved_call" in reason["message"]
    (item,) = _items(payload, "unresolved_reach")
    assert "tools.py:6" in item["verificationNeeded"]
    assert payload.data["fourQuestions"]["reach"]["unresolved"]["status"] == "UNKNOWN"


def test_tools_built_from_data_are_unresolved_reach_not_absence(tmp_path: Path) -> None:
    # A Vercel AI SDK tool set mapped from a list of definitions: the names the model sees are data, so
    # no tool can be named; the tool that runs the model's command is a frontier item, and the execution
    # its handler performs is unattributed reach, never absent.
    agent = (
        'import { generateText, tool } from "ai";\n'
        'import { openai } from "@ai-sdk/openai";\n'
        'import { execSync } from "node:child_process";\n'
        "\n"
        'const definitions = [{ name: "run", description: "Run a command" }];\n'
        "export async function answer(prompt: string) {\n"
        "  const tools = Object.fromEntries(\n"
        "    definitions.map((d) => [\n"
        "      d.name,\n"
        "      tool({ description: d.description, execute: async ({ command }) => execSync(command) }),\n"
        "    ]),\n"
        "  );\n"
        '  return generateText({ model: openai("gpt-4o"), prompt, tools });\n'
        "}\n"
    )
    declaration = 'version = "1"\npurpose = "answers questions"\n'
    payload = _evaluate({"agent.ts": agent, "assay.toml": declaration}, tmp_path)
    assert payload.disposition != "ALLOW"
    (reason,) = _reasons(payload, "REVIEW-001")
    assert "dynamic_dispatch" in reason["message"]
    assert _reasons(payload, "REVIEW-008")
    assert payload.data["fourQuestions"]["reach"]["unresolved"]["status"] == "UNKNOWN"


def test_unanalysed_source_is_partial_coverage_not_a_pass(tmp_path: Path) -> None:
    broken = "def broken(:\n    pass\n"
    payload = _evaluate(
        {"agent.py": MODEL_CALL, "tools.py": LOOKUP_TOOL, "broken.py": broken, "assay.toml": DECLARATION}, tmp_path
    )
    assert payload.disposition == "REVIEW"
    assert _reasons(payload, "REVIEW-005")
    assert _items(payload, "coverage_incomplete")


def test_no_runtime_evidence_is_a_limitation_and_evidence_needed(tmp_path: Path) -> None:
    payload = _evaluate({"agent.py": MODEL_CALL, "tools.py": LOOKUP_TOOL, "assay.toml": DECLARATION}, tmp_path)
    assert payload.disposition == "ALLOW"
    assert payload.data["fourQuestions"]["observed"]["status"] == "EVIDENCE_NEEDED"
    assert any(lim.startswith("No runtime evidence") for lim in payload.data["limitations"])
    assert any(lim.startswith("EFFECTIVELY_GRANTED is EVIDENCE_NEEDED") for lim in payload.data["limitations"])
