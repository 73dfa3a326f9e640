"""Rule-pack name matching: the union of patterns that lets most call names skip every table."""

from __future__ import annotations

import fnmatch
from dataclasses import fields

from assay.backend.engines.static.jsts.rules import NOTHING, JsRules, classify
from assay.backend.engines.static.pyast.rules import CompiledRules, compile_rules
from assay.backend.engines.static.rules.match import Patterns, RuleTable
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


def test_each_pattern_matches_what_fnmatch_matches() -> None:
    # Prefixes, suffixes and infixes are tested without a regex; the rest go to one: the answer is
    # fnmatch's for every form (a name without ``*`` is an exact name, ``?`` and ``[`` included).
    patterns = ["os.exec*", "*.unlink", "*approval*", "stripe.*.create", "*.objects.*.delete", "e2b*.*Sandbox.run",
                "x[ab]*", "*a?c", "a?c", "*", "**", "exact.name", "*.*"]  # fmt: skip
    names = ["os.execv", "os.exec", "xos.execv", "p.unlink", "unlink", ".unlink", "need_approval_now", "approval",
             "stripe.Charge.create", "stripe.create", "stripe..create", "m.objects.all.delete", "objects.x.delete",
             "e2b_code.AsyncSandbox.run", "x", "xa", "xc.y", "zabc", "abc", "a?c", "exact.name", "exact", "", "a.b"]  # fmt: skip
    for pattern in patterns:
        one = Patterns([pattern])
        for name in names:
            expected = fnmatch.fnmatchcase(name, pattern) if "*" in pattern else name == pattern
            assert one.matches(name) == expected, (pattern, name)
        assert one.wildcards().matches(pattern) == ("*" in pattern and one.matches(pattern))


def test_wildcard_led_patterns_are_tried_only_on_names_holding_their_text() -> None:
    # Names without any pattern's longest text skip the regex; the answers stay fnmatch's, also where one
    # text holds another (``AllowedFor``, ``Allowed``) and where a ``?`` or ``[`` turns the filter off.
    sets = [["*.is*Allowed", "*#is*AllowedFor*", "*Allowed*For"], ["*.is*Allowed", "*a?c*x"], ["*[ab]*.run", "*.*"]]
    names = ["x.isAllowed", "src/a#isToolAllowedFor.x", "AllowedFor", "x.is", "isAllowed", "Allowed.For", "zabcx",
             "b.run", "a.run", "run", "x.y", "", "x.isallowed"]  # fmt: skip
    for patterns in sets:
        union = Patterns(patterns)
        for name in names:
            assert union.matches(name) == any(fnmatch.fnmatchcase(name, p) for p in patterns), (patterns, name)
    assert Patterns(sets[0]).needles == ("Allowed",)
    assert Patterns(sets[1]).needles is None


def test_a_rule_table_answers_as_trying_every_rule_in_order() -> None:
    rules = compile_rules(load_rule_pack())
    tables = [t for t in (getattr(rules, f.name) for f in fields(CompiledRules)) if isinstance(t, RuleTable)]
    names = ["subprocess.run", "os.system", "pathlib.Path.write_text", "x.write_text", "stripe.Charge.create",
             "requests.post", "input", "check_permission", "my.rate_limit.check", "print", "self.client.get", ""]  # fmt: skip
    for table in tables:
        for name in names:
            every = tuple(rule for rule, patterns in table.entries if patterns.matches(name))
            assert table.all(name) == every
            assert table.first(name) == (every[0] if every else None)
    # Both ways in: a name listed exactly, and one only a wildcard pattern matches.
    assert rules.actions.all("subprocess.run") and rules.actions.all("x.write_text")


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


def test_star_only_patterns_match_what_fnmatch_matches_without_a_regex() -> None:
    # Patterns whose only wildcard is ``*`` are matched by their texts: the answers are fnmatch's, also
    # where the texts overlap, repeat or are empty, and where a name holds a text more than once.
    patterns = ["a*a", "ab*ba", "a*b*a", "a**b", "x.*.y.*.z", "*a*b*", "*.run*run", "aa*aa*aa", "a*", "*a",
                "a*ab*b", "*.objects.*.delete", "\n*\n", "é*ü"]  # fmt: skip
    names = ["a", "aa", "aaa", "aba", "abba", "ababa", "ab", "ba", "abab", "x.y.z", "x.1.y.2.z", "x..y..z", "",
             "aaaa", "aaaaa", "aaaaaa", "aaaaaaa", "b", "q.run", "q.runrun", "a.run.x.run", "aab", "aabb", "abb",
             "m.objects.all.delete", "\n\n", "\n", "éxü", "éü", "é"]  # fmt: skip
    for pattern in patterns:
        one = Patterns([pattern])
        union = Patterns.union([Patterns([pattern]), Patterns(["never.*.this"])])
        for name in names:
            expected = fnmatch.fnmatchcase(name, pattern)
            assert one.matches(name) == expected, (pattern, name)
            assert union.matches(name) == expected, (pattern, name)
