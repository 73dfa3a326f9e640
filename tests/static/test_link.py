"""The linker through analyze_python: call resolution, reach, gates on every path, interprocedural
taint with one flow per source, unresolved calls in tool reach, bounds and determinism; and facts
written by hand in the JS naming scheme, to hold the linker language-neutral."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.facts import (
    ActionSite,
    ArgTaint,
    CallFact,
    FileFacts,
    FunctionFacts,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.link import link
from assay.backend.engines.static.link.graph import MAX_DEPTH
from assay.backend.engines.static.pyast.frontend import analyze_python
from assay.backend.engines.static.rules.pack import load_rule_pack
from assay.backend.scans.bundle import Location

TOOL = "from agents import function_tool\n"


def _flows(files: dict[str, str]) -> set[tuple[str, str, int, str, int]]:
    return {(f.sourceKind, f.source.path, f.source.line, f.sink.path, f.sink.line) for f in analyse(files).taintFlows}


def test_one_flow_per_source_when_two_tools_share_a_helper() -> None:
    files = {
        "tools.py": TOOL + "from helpers import run\n\n@function_tool\ndef a(cmd: str):\n    return run(cmd)\n\n"
        "@function_tool\ndef b(cmd: str):\n    return run('x ' + cmd)\n",
        "helpers.py": "import os\n\ndef run(line):\n    os.system(line)\n",
    }
    linked = analyse(files)
    assert {(f.source.line, tuple((p.path, p.line) for p in f.path)) for f in linked.taintFlows} == {
        (5, (("tools.py", 6), ("helpers.py", 4))),
        (9, (("tools.py", 10), ("helpers.py", 4))),
    }
    assert {f.ruleId for f in linked.taintFlows} == {"TAINT-EXEC-001"}


def test_returns_are_read_at_each_call_site() -> None:
    # ``wrap`` returns its argument: the tool's call is tainted, the constant call elsewhere is not.
    files = {
        "a.py": TOOL + "import os\n\ndef wrap(x):\n    return x.strip()\n\n@function_tool\ndef t(cmd: str):\n"
        "    os.system(wrap(cmd))\n\ndef cron():\n    os.system(wrap('uptime'))\n",
    }
    assert _flows(files) == {("tool_argument", "a.py", 8, "a.py", 9)}


def test_model_output_returned_through_two_helpers() -> None:
    files = {
        "llm.py": "from openai import OpenAI\nclient = OpenAI()\n\ndef ask(q):\n"
        "    r = client.chat.completions.create(model='m', messages=[q])\n    return r.choices[0].message.content\n\n"
        "def plan(q):\n    return ask(q)\n",
        "run.py": "import subprocess\nfrom llm import plan\n\ndef go():\n    subprocess.run(plan('x'), shell=True)\n",
    }
    linked = analyse(files)
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.source.path, flow.source.line) == ("model_output", "llm.py", 5)
    assert [(p.path, p.line) for p in flow.path] == [("llm.py", 9), ("run.py", 5), ("run.py", 5)]


def test_calls_outside_the_tree_pass_taint_through() -> None:
    files = {
        "a.py": TOOL + "import os\nimport shlex\n\n@function_tool\ndef t(cmd: str):\n    os.system(shlex.quote(cmd))\n"
    }
    assert _flows(files) == {("tool_argument", "a.py", 6, "a.py", 7)}


def test_src_layout_and_ambiguous_suffixes_resolve_to_the_closest_module() -> None:
    files = {
        "src/a/tools.py": TOOL + "from a import helpers\n\n@function_tool\ndef t(p: str):\n    helpers.wipe(p)\n",
        "src/a/helpers.py": "import shutil\n\ndef wipe(p):\n    shutil.rmtree(p)\n",
        "src/b/helpers.py": "import os\n\ndef wipe(p):\n    os.remove(p)\n",
    }
    linked = analyse(files)
    reached = {(a.location.path, a.actionClass) for a in linked.actions if a.reachedFrom}
    assert reached == {("src/a/helpers.py", "file.delete")}
    assert {a.location.path for a in linked.actions} == {"src/a/helpers.py", "src/b/helpers.py"}


def test_class_constructor_runs_init() -> None:
    files = {
        "a.py": TOOL + "import os\n\nclass Job:\n    def __init__(self, cmd):\n        os.system(cmd)\n\n"
        "@function_tool\ndef t(cmd: str):\n    Job(cmd)\n",
    }
    linked = analyse(files)
    (action,) = linked.actions
    assert [c.line for c in action.reachedFrom[0].calls] == [10]
    assert _flows(files) == {("tool_argument", "a.py", 9, "a.py", 6)}


def test_cycles_terminate_and_depth_is_bounded() -> None:
    chain = "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n\n" for i in range(MAX_DEPTH + 2))
    code = (
        TOOL + "import os\n\n" + chain + f"def f{MAX_DEPTH + 2}(x):\n    os.system(x)\n    return f0(x)\n\n"
        "@function_tool\ndef near(x: str):\n    return f3(x)\n\n@function_tool\ndef far(x: str):\n    return f0(x)\n"
    )
    linked = analyse({"a.py": code})
    tools = {t.id: t.name for t in linked.tools}
    (action,) = linked.actions
    # f3 -> ... -> f14 is 12 calls from ``near``; f0 -> ... -> f14 is 15 from ``far``, beyond the bound.
    assert [(tools[p.toolId], len(p.calls)) for p in action.reachedFrom] == [("near", MAX_DEPTH)]


def test_constructor_tools_take_parameters_from_their_function() -> None:
    code = (
        "from langchain_core.tools import Tool\nimport os\n\ndef shell(command, timeout=5):\n    os.system(command)\n\n"
        "t = Tool(name='shell', func=shell, description='Run a command')\n"
    )
    (tool,) = analyse({"a.py": code}).tools
    assert (tool.name, tool.parameters, tool.description) == ("shell", ["command", "timeout"], "Run a command")


def test_unresolved_calls_in_tool_reach_once_per_callee() -> None:
    code = (
        TOOL + "\n@function_tool\ndef t(db, q: str):\n    db.run_query(q.strip())\n    db.run_query(q)\n"
        "    return q.split()\n\ndef not_a_tool(db):\n    db.drop_all()\n"
    )
    frontier = analyse({"a.py": code}).frontier
    assert [(f.kind, f.location.line if f.location else 0, f.ruleId) for f in frontier] == [
        ("unresolved_call", 5, "PY-FRONTIER-UNRESOLVED-001")
    ]


def test_untyped_self_attribute_in_a_tool_method_is_unresolved() -> None:
    code = (
        "from crewai.tools import BaseTool\n\nclass Q(BaseTool):\n    name: str = 'q'\n    description: str = 'Q'\n\n"
        "    def _run(self, sql: str) -> str:\n        return self.conn.execute(sql)\n"
    )
    frontier = analyse({"a.py": code}).frontier
    assert [(f.kind, f.location.line if f.location else 0) for f in frontier] == [("unresolved_call", 8)]


def test_link_is_deterministic_whatever_the_file_order() -> None:
    rules = load_rule_pack()
    files = {
        "tools.py": TOOL + "from helpers import run\n\n@function_tool\ndef a(cmd: str):\n"
        "    if not require_approval(cmd):\n        return\n    return run(cmd)\n",
        "helpers.py": "import os\n\ndef run(line):\n    os.system(line)\n    os.remove(line)\n",
    }
    facts = [analyze_python(p, s.encode(), digest_bytes(s.encode()), rules) for p, s in files.items()]
    forward = link(facts, rules).model_dump_json()
    assert link(list(reversed(facts)), rules).model_dump_json() == forward
    again = [analyze_python(p, s.encode(), digest_bytes(s.encode()), rules) for p, s in files.items()]
    assert link(again, rules).model_dump_json() == forward


def _loc(path: str, line: int) -> Location:
    return Location(path=path, line=line, column=1)


def test_language_neutral_on_javascript_qualnames() -> None:
    """Facts in the JS scheme (``module#name``) link exactly, with taint through arguments."""
    rules = load_rule_pack()
    tool_fn = FunctionFacts(
        id="fn-tool",
        qualname="src/tools#runTool",
        name="runTool",
        location=_loc("src/tools.ts", 3),
        params=["input"],
        calls=[
            CallFact(
                location=_loc("src/tools.ts", 4),
                callee="src/helpers#runCmd",
                resolved=True,
                dominatingGates=["gate-1"],
                args=[ArgTaint(index=0, origins=[TaintOrigin(kind="param", param="input", index=0)])],
            ),
            CallFact(location=_loc("src/tools.ts", 5), callee="helpers#runCmd", resolved=True),
        ],
    )
    helper = FunctionFacts(
        id="fn-helper",
        qualname="src/helpers#runCmd",
        name="runCmd",
        location=_loc("src/helpers.ts", 2),
        params=["cmd"],
        actions=[
            ActionSite(
                id="act-1",
                actionClass="shell.exec",
                impact="critical",
                ruleId="JS-SHELL-001",
                target="child_process.exec",
                location=_loc("src/helpers.ts", 3),
                taint=[TaintOrigin(kind="param", param="cmd", index=0)],
            )
        ],
    )
    tool = ToolDef(
        id="tool-1",
        name="run",
        framework="vercel-ai",
        ruleId="JS-TOOL-VERCEL-001",
        location=_loc("src/tools.ts", 3),
        function="src/tools#runTool",
    )
    files = [
        FileFacts(
            path="src/tools.ts",
            language="typescript",
            digest="sha256:0",
            lines=6,
            module="src/tools",
            functions=[tool_fn],
            tools=[tool],
        ),
        FileFacts(
            path="src/helpers.ts",
            language="typescript",
            digest="sha256:1",
            lines=4,
            module="src/helpers",
            functions=[helper],
        ),
    ]
    linked = link(files, rules)
    (action,) = linked.actions
    assert [(p.toolId, [c.line for c in p.calls], p.gateIds) for p in action.reachedFrom] == [
        ("tool-1", [4], ["gate-1"])
    ]
    assert action.gateIds == ["gate-1"]
    assert [(f.sourceKind, f.ruleId, [p.line for p in f.path]) for f in linked.taintFlows] == [
        ("tool_argument", "TAINT-EXEC-001", [4, 3])
    ]
    # ``#`` names never match by suffix, and no JS rule asks the linker for unresolved calls.
    assert linked.frontier == []
