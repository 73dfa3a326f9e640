"""Issue 20, Python: a framework the engine has never met, handing a model a tools list it cannot fully
enumerate, keeps the disposition from ALLOW with a frontier item naming the call; the same system with
every tool visible and declared is ALLOW."""

from __future__ import annotations

from pathlib import Path

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate

AGENT = (
    "from acme_agents import Brain\n"
    "from acme_agents.toolbox import WeatherLookup\n\n\n"
    "def lookup(city: str) -> str:\n"
    '    """Look a city up."""\n'
    "    return city.upper()\n\n\n"
    "brain = Brain(model='gpt-4o', tools=[{tools}])\n"
)
DECLARATION = 'version = "1"\npurpose = "answers questions about cities"\ntools = ["lookup"]\n'


def _evaluate(tools: str, tmp_path: Path) -> tuple[dict[str, object], EvaluationPayload]:
    root = tmp_path / "system"
    root.mkdir()
    (root / "agent.py").write_text(AGENT.format(tools=tools))
    (root / "assay.toml").write_text(DECLARATION)
    bundle = scan_tree(root).to_json_dict()
    return bundle, evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys", jurisdiction=None)


def test_an_unfamiliar_tools_list_is_a_frontier_item_that_keeps_the_system_from_allow(tmp_path: Path) -> None:
    bundle, payload = _evaluate('lookup, WeatherLookup(units="metric")', tmp_path)
    assert [t["name"] for t in bundle["tools"]] == ["lookup"]  # the tree's function, found by its role
    (item,) = [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]
    assert item["detail"].startswith("Brain(tools=...)") and "WeatherLookup" in item["detail"]
    assert item["location"]["line"] == 10
    assert payload.disposition != "ALLOW"
    assert any(i["kind"] == "unresolved_reach" for i in payload.data["verificationItems"])


def test_the_same_framework_with_every_tool_visible_and_declared_is_allow(tmp_path: Path) -> None:
    bundle, payload = _evaluate("lookup", tmp_path)
    assert [t["name"] for t in bundle["tools"]] == ["lookup"]
    assert not [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]
    assert payload.disposition == "ALLOW"
