"""An Evaluation is bounded: lists over their caps keep their first entries, messages name at most ten
tools, and every cut is a limitation with the numbers (docs/methodology.md, Caps)."""

from __future__ import annotations

import json
from pathlib import Path

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.caps import LIST_CAPS, MAX_NAMES_IN_TEXT
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate

HEADER = (
    "import subprocess\nfrom langchain_core.tools import tool\n\n\ndef run_it(cmd):\n    return subprocess.run(cmd)\n"
)
TOOL = '\n\n@tool\ndef tool_{n}(cmd: str) -> str:\n    """Tool {n}."""\n    subprocess.run(cmd, shell=True)\n    return run_it(cmd)\n'


def test_lists_over_their_caps_are_cut_and_said_to_be(tmp_path: Path) -> None:
    # 1,100 tools, each with its own shell call (1,100 code-capable actions), all reaching one helper.
    (tmp_path / "agent.py").write_text(HEADER + "".join(TOOL.format(n=n) for n in range(1100)))
    payload = evaluate(
        make_membership([static_bundle_item(scan_tree(tmp_path).to_json_dict())]),
        ai_system_id="sys-test",
        jurisdiction=None,
    )
    data = payload.data
    reach = data["fourQuestions"]["reach"]["codeCapable"]
    assert len(reach["actions"]) == 1000 and len(reach["tools"]) == 1000
    assert len(data["fourQuestions"]["authority"]["actions"]) == 1000
    # The counts cover every action, listed or not.
    assert sum(reach["byClass"].values()) == 1101
    limitations = "\n".join(data["limitations"])
    assert "101 of 1101 code-capable actions are not listed" in limitations
    assert "100 of 1100 code-capable tools are not listed" in limitations
    # The helper reached from every tool names ten of them and says how many more.
    text = json.dumps(data)
    assert f"and {1100 - MAX_NAMES_IN_TEXT} more" in text
    for item in data["verificationItems"]:
        for value in item.values():
            assert str(value).count("`tool_") <= MAX_NAMES_IN_TEXT
    assert len(payload.canonical()) < 3_000_000
    assert data["disposition"] == "BLOCK"


def test_an_evaluation_under_the_caps_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(HEADER + "".join(TOOL.format(n=n) for n in range(3)))
    data = evaluate(
        make_membership([static_bundle_item(scan_tree(tmp_path).to_json_dict())]),
        ai_system_id="sys-test",
        jurisdiction=None,
    ).data
    assert not any("are not listed" in limitation for limitation in data["limitations"])
    assert "more" not in json.dumps(data["verificationItems"])
    assert all(cap >= 1000 for _, _, cap in LIST_CAPS)
