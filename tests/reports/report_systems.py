"""Systems the report tests evaluate: the three examples and a generated 60-tool system, as payloads."""

from __future__ import annotations

from pathlib import Path

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import EvidenceMembership, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_NAMES = ("ops-agent", "support-agent-ts", "research-assistant")
WIDE_TOOLS = 60

# One sink per tool, cycling through four action classes, spread over nested packages so paths are long
# and line numbers run past 9 (sorted as text, "100" would come before "20").
_SINKS = (
    ("import subprocess", "subprocess.run(arg, shell=True)"),
    ("import shutil", "shutil.rmtree(arg)"),
    ("import os", "os.remove(arg)"),
    ("import httpx", "httpx.post('https://example.com/hook', json={'v': arg})"),
)


def write_wide_system(root: Path, tools: int = WIDE_TOOLS) -> Path:
    """A LangChain agent with ``tools`` tools, each reaching one ungated high-impact action."""
    for module in range(6):
        package = root / "wide_agent" / "integrations" / f"provider_{module}"
        package.mkdir(parents=True, exist_ok=True)
        lines = ["from langchain_core.tools import tool", *sorted({imp for imp, _ in _SINKS}), ""]
        for n in range(module, tools, 6):
            call = _SINKS[n % len(_SINKS)][1]
            lines += [
                "",
                "@tool",
                f"def tool_{n:02d}(arg: str) -> str:",
                f"    '''Tool number {n}: acts on the argument.'''",
                f"    {call}",
                "    return arg",
                "",
            ]
        (package / "tools.py").write_text("\n".join(lines) + "\n")
    return root


def evaluated(root: Path, ai_system_id: str = "sys-1") -> tuple[EvidenceMembership, EvaluationPayload]:
    membership = make_membership([static_bundle_item(scan_tree(root).to_json_dict())])
    return membership, evaluate(membership, ai_system_id=ai_system_id, jurisdiction=None)


def evaluated_example(name: str) -> tuple[EvidenceMembership, EvaluationPayload]:
    return evaluated(EXAMPLES / name)
