"""JS/TS analyzer flow, through ``analyze_javascript``: gate dominance, taint, relative imports and
qualnames, frontier, syntax errors, TSX, determinism; and one linked two-file TypeScript project."""

from __future__ import annotations

from jsfix import FIXTURES, actions, expected, facts_of, fixture, gated, gates, tainted

from assay.backend.engines.static.facts import EXIT, FunctionFacts
from assay.backend.engines.static.link import link
from assay.backend.engines.static.rules.pack import load_rule_pack


def test_gate_sites() -> None:
    assert gates(fixture("gates.ts")) == expected("gates.ts").gates


def test_gate_dominance_per_action() -> None:
    """Each action lists exactly the gate kinds that dominate it: early return/throw, inside the
    approved branch, a gate variable, sequential calls, && / ||, loops with continue, callbacks of a
    rate limiter, sandbox targets; and none after the action, in one branch only, in an else-branch,
    or inside a try whose failure is caught."""
    assert gated(fixture("gates.ts")) == expected("gates.ts").gated


def test_taint_origins_on_every_action() -> None:
    facts = fixture("taint.ts")
    assert tainted(facts) == expected("taint.ts").tainted
    assert {m.location.line for m in facts.models} == expected("taint.ts").model_lines


def test_taint_model_output_origin_points_at_the_model_call() -> None:
    facts = fixture("taint.ts")
    (action,) = [a for f in facts.functions for a in f.actions if a.actionClass == "code.exec"]
    assert [(o.kind, o.location.line if o.location else None) for o in action.taint] == [("model_output", 12)]


def test_returns_carry_parameter_taint() -> None:
    facts = fixture("taint.ts", "src/taint.ts")
    helper = next(f for f in facts.functions if f.qualname == "src/taint#helper")
    assert [(o.kind, o.param) for o in helper.returns] == [("param", "input")]


def _project() -> dict[str, FunctionFacts]:
    root = FIXTURES / "project"
    out: dict[str, FunctionFacts] = {}
    for path in sorted(root.rglob("*.ts")):
        facts = facts_of(path.relative_to(root).as_posix(), path.read_bytes())
        out.update({f.qualname: f for f in facts.functions})
    return out


def test_relative_imports_resolve_to_qualnames() -> None:
    functions = _project()
    run = functions["src/agent#tool:run"]
    assert {(c.callee, c.location.line) for c in run.calls} == {
        ("src/lib#format", 14),  # "./lib/index" and "./lib" name the same module
        ("src/tools/shell#runCommand", 14),  # "./tools/shell.js" -> src/tools/shell
    }
    format_call = next(c for c in run.calls if c.callee == "src/lib#format")
    assert [(a.index, [(o.kind, o.param) for o in a.origins]) for a in format_call.args] == [
        (0, [("param", "command")])
    ]
    save = functions["src/agent#tool:save"]
    assert {c.callee for c in save.calls if c.callee != EXIT} == {
        "src/tools/files#writeNote",  # namespace import
        "src/lib#default",  # default import of ./lib, defined as `export default function cleanup`
        "src/agent/core#Agent",  # constructor
        "src/agent/core#Agent.step",  # method on a typed local
        "@/plugins/loader#loadPlugin",  # through a path alias: a module of the tree the linker looks for
    }
    assert "src/lib#default" in functions  # the default export's qualname
    step = functions["src/agent/core#Agent.step"]
    assert [c.callee for c in step.calls if c.callee != EXIT] == ["src/agent/core#Agent.run"]  # this.run(...)
    assert [a.origins[0].kind for c in step.calls for a in c.args] == ["model_output"]


def test_class_field_client_is_a_model_use() -> None:
    source = (FIXTURES / "project/src/agent/core.ts").read_bytes()
    facts = facts_of("src/agent/core.ts", source)
    assert [(m.provider, m.api, m.location.line) for m in facts.models] == [
        ("openai", "openai.chat.completions.create", 8)
    ]


def test_linked_tool_reaches_action_in_another_file_with_gate_and_taint() -> None:
    root = FIXTURES / "project"
    rules = load_rule_pack()
    facts = [facts_of(p.relative_to(root).as_posix(), p.read_bytes()) for p in sorted(root.rglob("*.ts"))]
    linked = link(facts, rules)
    tools = {t.id: t.name for t in linked.tools}
    reach = {
        (a.actionClass, a.location.path, a.location.line): sorted(tools[p.toolId] for p in a.reachedFrom)
        for a in linked.actions
    }
    assert reach == {
        ("shell.exec", "src/tools/shell.ts", 8): ["run"],
        ("file.write", "src/tools/files.ts", 4): ["save"],
        ("file.delete", "src/lib/index.ts", 8): ["save"],
        ("shell.exec", "src/agent/core.ts", 13): ["save"],
    }
    shell = next(a for a in linked.actions if a.location.path == "src/tools/shell.ts")
    gate_kinds = {g.id: g.kind for g in linked.gates}
    assert [gate_kinds[g] for g in shell.gateIds] == ["human_approval"]
    flows = {(f.sourceKind, f.sink.path, f.sink.line) for f in linked.taintFlows}
    assert flows == {
        ("tool_argument", "src/tools/shell.ts", 8),
        ("tool_argument", "src/tools/files.ts", 4),
        ("tool_argument", "src/lib/index.ts", 8),
        ("model_output", "src/agent/core.ts", 13),  # the tool argument went into the prompt, not the command
    }


def test_frontier() -> None:
    facts = fixture("frontier.ts")
    got = {(f.kind, f.location.line) for f in facts.frontier if f.location}
    assert got == expected("frontier.ts").frontier


def test_syntax_errors_keep_what_parsed() -> None:
    facts = fixture("broken.ts")
    assert facts.parseError is None
    assert [(f.kind, f.location.line if f.location else None) for f in facts.frontier] == [("parse_error", 7)]
    assert ("shell.exec", 4) in actions(facts)
    garbage = facts_of("src/garbage.ts", b"}}}} ))) (((( ;;;; ]]]] @@@@ ::::\n")
    assert garbage.parseError is not None
    assert [f.kind for f in garbage.frontier] == ["parse_error"]


def test_tsx_and_jsx() -> None:
    facts = fixture("app.tsx")
    assert facts.language == "tsx"
    assert actions(facts) == {("shell.exec", 7)}
    jsx = facts_of(
        "src/view.jsx",
        b'import { exec } from "child_process";\nexport const V = () => <a onClick={() => exec("ls")}>x</a>;\n',
    )
    assert actions(jsx) == {("shell.exec", 2)}


def test_determinism() -> None:
    for name in ("actions.ts", "gates.ts", "taint.ts", "tools_frameworks.ts", "frontier.ts"):
        assert fixture(name).model_dump_json() == fixture(name).model_dump_json()


def test_unresolved_calls_skip_bound_names() -> None:
    code = b"let runner;\nfunction go(fn) {\n  fn();\n  runner();\n  const local = () => 1;\n  local();\n  JSON.parse('{}');\n  ghost();\n  ghost();\n}\n"
    facts = facts_of("src/u.js", code)
    assert [(f.kind, f.location.line if f.location else 0) for f in facts.frontier] == [("unresolved_call", 8)]


def test_deeply_nested_code_is_reported_not_fatal() -> None:
    concat = b"const s = " + b" + ".join(b'"a"' for _ in range(3000)) + b";\n"
    assert facts_of("src/concat.js", concat).frontier == []
    chain = (
        b'const { exec } = require("child_process");\nfunction f() {\n  exec("x");\n  x' + b".a()" * 3000 + b";\n}\n"
    )
    facts = facts_of("src/chain.js", chain)
    assert actions(facts) == {("shell.exec", 3)}
    assert [(f.kind, f.location.line if f.location else 0) for f in facts.frontier] == [("parse_error", 2)]
    assert facts.parseError is None


def test_class_qualnames_default_exports_and_duplicates() -> None:
    code = (
        b"export default class Foo {\n  run() { return 1; }\n}\n"
        b"class Bar {\n  get v() { return 1; }\n  set v(x) {}\n  static { boot(); }\n  go() { new Foo().run(); this.v; }\n}\n"
    )
    facts = facts_of("src/k.ts", code)
    assert [(f.qualname, [c.callee for c in f.calls if c.callee != EXIT]) for f in facts.functions] == [
        ("src/k#default.run", []),
        ("src/k#Bar.v", []),
        ("src/k#Bar.v@6:3", []),
        ("src/k#Bar.<static>", []),
        ("src/k#Bar.go", ["src/k#default", "src/k#default.run"]),
    ]
    assert len({f.id for f in facts.functions}) == len(facts.functions)


def test_top_level_callbacks_see_top_level_taint() -> None:
    code = (
        b'import { generateText } from "ai";\nimport { exec } from "node:child_process";\n'
        b'const plan = await generateText({ model: m, prompt: "p" });\n'
        b'app.post("/run", (req, res) => exec(plan.text));\n'
        b'app.post("/fixed", (req, plan) => exec("ls"));\n'
    )
    assert tainted(facts_of("src/server.ts", code)) == {(4, frozenset({"model_output"})), (5, frozenset())}


def test_inherited_methods_resolve_to_the_defining_class() -> None:
    code = (
        b'import { Base } from "./base";\n'
        b"class A extends Base {\n  run() { this.helper(); super.run(); this.own(); }\n  own() {}\n}\n"
        b"class B extends A {\n  go() { this.helper(); this.own(); }\n}\n"
    )
    calls = {
        f.qualname: [c.callee for c in f.calls if c.callee != EXIT]
        for f in facts_of("src/a.ts", code).functions
        if f.calls
    }
    assert calls == {
        "src/a#A.run": ["src/base#Base.helper", "src/base#Base.run", "src/a#A.own"],
        "src/a#B.go": ["src/base#Base.helper", "src/a#A.own"],
        # Overrides: a call typed by the base class reaches the subclass's method too.
        "src/base#Base.run": ["src/a#A.run"],
        "src/base#Base.own": ["src/a#A.own"],
        "src/a#A.go": ["src/a#B.go"],
    }
