"""analyze_python on its own: bad input never raises, names and definitions resolve, tools given as
lists, literal tools dispatched by name, unresolved bare names, determinism."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.facts import FileFacts
from assay.backend.engines.static.pyast.frontend import analyze_python, module_name
from assay.backend.engines.static.rules.pack import load_rule_pack


def _facts(path: str, code: str | bytes) -> FileFacts:
    data = code.encode() if isinstance(code, str) else code
    return analyze_python(path, data, digest_bytes(data), load_rule_pack())


@pytest.mark.parametrize(
    ("code", "error", "line"),
    [
        ("def f(:\n    pass\n", "SyntaxError", 1),
        ("x = 1\ny = 'a\x00b'\n", "SyntaxError", 1),
        ("x = 1\n\ndef g(\n", "SyntaxError", 3),
        ("x = " + "(" * 300 + "1" + ")" * 300 + "\n", "SyntaxError", 1),
        ("x = " + " + ".join(["a"] * 4000) + "\n", "RecursionError", 1),  # 16k characters: not minified
    ],
)
def test_bad_code_is_a_parse_error_never_an_exception(code: str, error: str, line: int) -> None:
    facts = _facts("bad.py", code)
    assert facts.parseError is not None and facts.parseError.startswith(error)
    assert [(f.kind, f.location.line if f.location else 0) for f in facts.frontier] == [("parse_error", line)]
    assert (facts.functions, facts.models, facts.tools) == ([], [], [])


def test_analysing_twice_gives_identical_facts() -> None:
    code = (
        "import os\nfrom agents import function_tool\nfrom openai import OpenAI\nc = OpenAI()\n\n@function_tool\n"
        "def t(cmd: str):\n    r = c.responses.create(model='m', input=cmd)\n    if not require_approval(cmd):\n"
        "        return\n    os.system(r.output_text)\n"
    )
    assert _facts("a.py", code).model_dump_json() == _facts("a.py", code).model_dump_json()


@pytest.mark.parametrize(
    ("path", "module"),
    [("pkg/sub/mod.py", "pkg.sub.mod"), ("pkg/__init__.py", "pkg"), ("src/app/x.pyi", "src.app.x")],
)
def test_module_names(path: str, module: str) -> None:
    assert module_name(path) == module


def test_qualnames_nested_definitions_and_definitions_under_blocks() -> None:
    code = (
        "import os\n\ntry:\n    import fast\nexcept ImportError:\n    def fallback(p):\n        os.remove(p)\n\n"
        "class Agent:\n    def step(self, p):\n        def inner(q):\n            os.unlink(q)\n        inner(p)\n"
    )
    facts = _facts("pkg/agent.py", code)
    assert sorted(f.qualname for f in facts.functions) == [
        "pkg.agent.Agent.step",
        "pkg.agent.Agent.step.inner",
        "pkg.agent.fallback",
    ]
    step = next(f for f in facts.functions if f.name == "step")
    assert [(c.callee, c.resolved) for c in step.calls] == [("pkg.agent.Agent.step.inner", True)]


def test_plain_functions_listed_as_tools() -> None:
    code = (
        "from langgraph.prebuilt import ToolNode, create_react_agent\nfrom langchain_core.tools import tool\n"
        "from pydantic_ai import Agent, Tool\n\n@tool\ndef decorated(q: str) -> str:\n    '''D.'''\n    return q\n\n"
        "def plain(q: str) -> str:\n    return q\n\ndef other(x: int) -> int:\n    return x\n\n"
        "node = ToolNode([decorated, plain])\nagent = create_react_agent('m', [plain])\n"
        "pa = Agent('openai:gpt-4o', tools=[other, Tool(plain, takes_ctx=False)])\n"
    )
    linked = analyse({"a.py": code})
    # One tool per function: ``plain`` is a pydantic-ai Tool, so ToolNode's listing adds nothing; a
    # function only listed, or made a tool by a constructor that names no tool, is located at its def.
    assert sorted((t.name, t.framework, t.ruleId, t.location.line) for t in linked.tools) == [
        ("decorated", "langchain", "PY-TOOL-LANGCHAIN-001", 6),
        ("other", "pydantic-ai", "PY-TOOL-PYDANTICAI-003", 13),
        ("plain", "pydantic-ai", "PY-TOOL-PYDANTICAI-002", 10),
    ]
    assert {t.name: t.parameters for t in linked.tools} == {"decorated": ["q"], "other": ["x"], "plain": ["q"]}


@pytest.mark.parametrize(
    "dispatch",
    [
        "def handle(call):\n    if call.name == 'wipe':\n        return wipe(call.args['path'])\n",
        "def handle(name, args):\n    match name:\n        case 'wipe':\n            wipe(**args)\n",
        "HANDLERS = {'wipe': wipe}\n",
    ],
)
def test_literal_tools_link_through_name_dispatch(dispatch: str) -> None:
    code = (
        "import shutil\n\ndef wipe(path):\n    shutil.rmtree(path)\n\n"
        "TOOLS = [{'name': 'wipe', 'description': 'Wipe a dir', 'input_schema': {'type': 'object', "
        "'properties': {'path': {'type': 'string'}}}}]\n\n" + dispatch
    )
    linked = analyse({"a.py": code})
    (tool,) = linked.tools
    assert (tool.name, tool.framework, tool.parameters, tool.description) == (
        "wipe",
        "anthropic",
        ["path"],
        "Wipe a dir",
    )
    (action,) = linked.actions
    assert [p.toolId for p in action.reachedFrom] == [tool.id]
    assert [f.kind for f in linked.frontier] == []


def test_unresolved_bare_names_skip_everything_bound() -> None:
    code = (
        "import os\nfrom helpers import imported\n\nCONFIG = dict(a=1)\nhandler = make_handler()\n\n"
        "def f(callback, *rest, **named):\n    local = pick()\n    callback()\n    local()\n    imported()\n"
        "    handler()\n    len(rest)\n    g()\n    ghost()\n    ghost()\n\n"
        "    def inner():\n        callback()\n        local()\n        phantom()\n    inner()\n\n"
        "def g():\n    return [fn() for fn in CONFIG.values()] + list(map(lambda h: h(), []))\n"
    )
    facts = _facts("a.py", code)
    found = sorted((f.kind, f.location.line if f.location else 0) for f in facts.frontier)
    # make_handler (module), pick and ghost (f, once), phantom (inner); nothing bound is reported.
    assert found == [("unresolved_call", 5), ("unresolved_call", 8), ("unresolved_call", 15), ("unresolved_call", 21)]


def test_star_imports_silence_unresolved_names() -> None:
    assert _facts("a.py", "from tools import *\n\ndef f():\n    anything()\n").frontier == []


def test_parameter_annotations_type_their_values() -> None:
    code = (
        "from typing import Optional\nfrom sqlalchemy.orm import Session\nimport redis\n\n"
        "def save(db: Session, row, other: Optional[Session] = None, cache: redis.Redis | None = None):\n"
        "    db.add(row)\n    other.delete(row)\n    cache.get('k')\n"
    )
    linked = analyse({"a.py": code})
    assert sorted((a.target, a.location.line) for a in linked.actions) == [
        ("redis.Redis.get", 8),  # a read: db.read
        ("sqlalchemy.orm.Session.add", 6),
        ("sqlalchemy.orm.Session.delete", 7),
    ]


def test_docker_run_is_an_action_inside_its_sandbox_and_rate_limiter_contexts_gate() -> None:
    code = (
        "import docker, os\nfrom pyrate_limiter import RateLimiter\n\ndef run(cmd):\n    client = docker.from_env()\n"
        "    client.containers.run('alpine', cmd)\n    os.system(cmd)\n    with RateLimiter(5, 60):\n        os.remove(cmd)\n"
        "    os.remove('x')\n"
    )
    linked = analyse({"a.py": code})
    kinds = {g.id: g.kind for g in linked.gates}
    assert sorted((a.actionClass, a.location.line, tuple(kinds[g] for g in a.gateIds)) for a in linked.actions) == [
        ("file.delete", 9, ("rate_limit",)),
        ("file.delete", 10, ()),
        ("shell.exec", 6, ("sandbox",)),
        ("shell.exec", 7, ()),
    ]


def test_django_querysets_and_entry_point_tools() -> None:
    code = (
        "from importlib.metadata import entry_points\nfrom app.models import Order\n\ndef f(pk):\n"
        "    Order.objects.filter(pk=pk).delete()\n    Order.objects.filter(pk=pk).first()\n\n"
        "TOOLS = [e.load() for e in entry_points(group='agent.tools')]\n"
    )
    linked = analyse({"a.py": code})
    # ``filter`` builds a lazy queryset; ``delete()`` writes and ``first()`` reads.
    assert [(a.actionClass, a.location.line) for a in linked.actions] == [("db.write", 5), ("db.read", 6)]
    assert [(f.kind, f.location.line if f.location else 0) for f in linked.frontier] == [("config_registered_tools", 8)]


def test_self_calls_reach_methods_inherited_from_a_class_of_the_file() -> None:
    code = (
        "import os\nfrom crewai.tools import BaseTool\n\nclass Base(BaseTool):\n    def _exec(self, cmd):\n        os.system(cmd)\n\n"
        "class Shell(Base):\n    name: str = 'shell'\n    description: str = 'Run'\n\n    def _run(self, cmd: str) -> str:\n"
        "        self._exec(cmd)\n        return 'ok'\n"
    )
    linked = analyse({"a.py": code})
    # ``Base`` has no ``_run`` and is extended here: an abstract base, not a tool.
    assert [(t.name, t.framework, t.location.line) for t in linked.tools] == [("shell", "crewai", 8)]
    (action,) = linked.actions
    assert [([c.line for c in p.calls]) for p in action.reachedFrom] == [[13]]
    assert [(f.sourceKind, f.sink.line) for f in linked.taintFlows] == [("tool_argument", 6)]
