"""Rule-pack name matching: the union of patterns that lets most call names skip every table."""

from __future__ import annotations

from assay.backend.engines.static.jsts.rules import NOTHING, JsRules, classify
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import load_rule_pack

NAMES = [
    "console.log",
    "z.object",
    "fs.writeFileSync",
    "child_process.exec",
    "openai.OpenAI.chat.completions.create",
    "src/util#requireApproval",
    "mcp.McpServer.tool",
    "@modelcontextprotocol/sdk/server/mcp.js.McpServer.registerTool",
    "twilio.messages.send",
    "send",
    "fetch",
    "limiter.schedule",
    "ai.tool",
    "",
]


def test_a_union_matches_exactly_what_one_of_its_parts_matches() -> None:
    parts = [Patterns(["subprocess.run", "os.*"]), Patterns(["*.approve"]), Patterns(["exact.only"])]
    union = Patterns.union(parts)
    for name in ["subprocess.run", "os.remove", "x.approve", "exact.only", "exact", "subprocess.call", "approve"]:
        assert union.matches(name) == any(p.matches(name) for p in parts), name
    assert Patterns.union([]).matches("anything") is False


def test_classify_skips_only_names_no_rule_can_match() -> None:
    pack = load_rule_pack()
    quick = JsRules(pack)
    full = JsRules(pack)
    full.any_call = Patterns(["*"])  # the prefilter lets every name through to every table
    answers = {name: classify(quick, name) for name in NAMES}
    assert answers == {name: classify(full, name) for name in NAMES}
    assert answers["console.log"] is NOTHING
    assert answers["fs.writeFileSync"].action is not None
    assert answers["twilio.messages.send"].command
