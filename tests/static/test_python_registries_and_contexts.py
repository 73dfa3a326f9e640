"""Tools registered by calling a decorator, a framework's run context holding the application's
dependencies, fields typed by classes of other modules, allow-lists by statement keyword and file
extension, and the file effects of document and audio libraries (issue 20: pydantic-ai and CrewAI
units labelled before the engine change)."""

from __future__ import annotations

from pyfix import analyse

_DB = (
    "from dataclasses import dataclass\nfrom sqlalchemy import create_engine, text\n\n"
    "class Database:\n    def __init__(self, uri: str):\n        self.engine = create_engine(uri)\n\n"
    "    def run(self, q: str):\n        with self.engine.connect() as conn:\n"
    "            return conn.execute(text(q))\n\n"
    "@dataclass\nclass Deps:\n    database: Database\n"
)


def _reached(linked, cls: str) -> set[str]:
    names = {t.id: t.name for t in linked.tools}
    return {names[p.toolId] for a in linked.actions if a.actionClass == cls for p in a.reachedFrom}


def test_a_decorator_called_on_a_function_registers_it_under_the_name_given() -> None:
    code = (
        "from pydantic_ai import Agent\n\nfirst = Agent('openai:gpt-4o')\nsecond = Agent('openai:gpt-4o')\n\n"
        "@first.tool_plain\ndef lookup(q: str) -> str:\n    '''Look up.'''\n    return open(q).read()\n\n"
        "second.tool_plain(name='find')(lookup)\n"
        "second.tool_plain(name='lookup')(lookup)\n"
    )
    linked = analyse({"agent.py": code})
    assert sorted((t.name, t.location.line) for t in linked.tools) == [("find", 11), ("lookup", 7)]
    assert _reached(linked, "file.read") == {"find", "lookup"}


def test_a_decorator_factory_not_naming_a_tool_registers_nothing() -> None:
    code = (
        "import functools\n\ndef lookup(q: str) -> str:\n    return open(q).read()\n\n"
        "cached = functools.lru_cache(maxsize=8)(lookup)\n"
    )
    assert analyse({"a.py": code}).tools == []


def test_run_context_deps_and_fields_typed_in_another_module_reach_the_sink() -> None:
    tools = (
        "from pydantic_ai import Agent, RunContext\nfrom pkg.db import Deps\n\n"
        "agent = Agent('openai:gpt-4o', deps_type=Deps)\n\n"
        "def run_sql(ctx: RunContext[Deps], sql: str):\n    return ctx.deps.database.run(sql)\n\n"
        "@agent.tool\ndef query(ctx: RunContext[Deps], sql: str):\n    '''Run SQL.'''\n    return run_sql(ctx, sql)\n\n"
        "@agent.tool_plain\ndef count(d: Deps, table: str):\n    '''Count.'''\n    return d.database.run(table)\n"
    )
    linked = analyse({"pkg/db.py": _DB, "pkg/agent.py": tools})
    assert _reached(linked, "sql.exec") == {"query", "count"}
    assert {f.sink.line for f in linked.taintFlows} == {10}


def test_a_context_of_an_unknown_generic_types_nothing() -> None:
    tools = (
        "from pydantic_ai import Agent\nfrom mylib import Box\nfrom pkg.db import Deps\n\n"
        "agent = Agent('openai:gpt-4o')\n\n"
        "@agent.tool_plain\ndef query(ctx: Box[Deps], sql: str):\n    '''Run SQL.'''\n    return ctx.deps.database.run(sql)\n"
    )
    linked = analyse({"pkg/db.py": _DB, "pkg/agent.py": tools})
    assert _reached(linked, "sql.exec") == set()


def test_statement_keyword_and_local_deny_list_are_allowlists_before_the_query() -> None:
    code = (
        "from pydantic_ai import Agent, ModelRetry\nfrom sqlalchemy import create_engine, text\n\n"
        "agent = Agent('openai:gpt-4o')\nengine = create_engine('sqlite://')\n\n"
        "@agent.tool_plain\ndef query(sql: str):\n    '''Run SQL.'''\n"
        "    catalogs = ('information_schema', 'pg_catalog')\n"
        "    if any(c in sql.lower() for c in catalogs):\n        raise ModelRetry('no catalogs')\n"
        "    if not sql.strip().upper().startswith('SELECT'):\n        raise ValueError('only SELECT')\n"
        "    with engine.connect() as conn:\n        return conn.execute(text(sql))\n"
    )
    linked = analyse({"a.py": code})
    gates = {g.id: (g.kind, g.location.line) for g in linked.gates}
    (action,) = [a for a in linked.actions if a.actionClass == "sql.exec"]
    assert sorted(gates[g] for g in action.reachedFrom[0].gateIds) == [("allowlist", 11), ("allowlist", 13)]


def test_a_prefix_that_is_no_statement_keyword_and_a_check_that_goes_on_are_no_gates() -> None:
    code = (
        "import subprocess\nfrom pydantic_ai import Agent\n\nagent = Agent('openai:gpt-4o')\n\n"
        "@agent.tool_plain\ndef run(cmd: str, path: str):\n    '''Run.'''\n"
        "    if cmd.startswith('-'):\n        return 'no flags'\n"
        "    if path.endswith('.txt'):\n        print('text')\n"
        "    return subprocess.run(cmd, shell=True)\n"
    )
    assert analyse({"a.py": code}).gates == []


def test_a_file_extension_allowlist_gates_the_read() -> None:
    code = (
        "from crewai.tools import BaseTool\n\nAUDIO = ('.mp3', '.wav')\n\n"
        "class Transcriber(BaseTool):\n    name: str = 'Transcriber'\n    description: str = 'Transcribe.'\n\n"
        "    def _run(self, file_path: str) -> str:\n"
        "        if not file_path.lower().endswith(AUDIO):\n            return 'unsupported'\n"
        "        with open(file_path, 'rb') as f:\n            return f.read().hex()\n"
    )
    linked = analyse({"a.py": code})
    (gate,) = linked.gates
    assert (gate.kind, gate.location.line) == ("allowlist", 10)
    (action,) = [a for a in linked.actions if a.actionClass == "file.read"]
    assert action.reachedFrom[0].gateIds == [gate.id]


def test_document_audio_and_package_module_library_tools_are_effects() -> None:
    code = (
        "import soundfile as sf\nfrom pypdf import PdfReader\nfrom docx import Document\n"
        "from crewai.tools import BaseTool\n"
        "from crewai_tools.tools.tavily_search_tool.tavily_search_tool import TavilySearchTool\n\n"
        "class Docs(BaseTool):\n    name: str = 'Docs'\n    description: str = 'Docs.'\n\n"
        "    def _run(self, pdf: str, doc: str, wav: str, q: str) -> str:\n"
        "        text = PdfReader(pdf).pages[0].extract_text() + Document(doc).paragraphs[0].text\n"
        "        sf.write(wav, [0.0], 44100)\n"
        "        return text + TavilySearchTool(max_results=3)._run(q)\n"
    )
    linked = analyse({"a.py": code})
    assert sorted((a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom) == [
        ("file.read", 12),
        ("file.read", 12),
        ("file.write", 13),
        ("network.egress", 14),
    ]


def test_a_wrapper_tool_class_named_after_the_tool_it_wraps_is_not_another_tool() -> None:
    code = (
        "from crewai.tools import BaseTool\n\n"
        "class Wrapper(BaseTool):\n    def __init__(self, tool: BaseTool, inputs: dict):\n"
        "        super().__init__(name=tool.name, description=tool.description)\n        self._tool = tool\n\n"
        "    def _run(self) -> str:\n        return self._tool.run(self._inputs)\n\n"
        "class Template(BaseTool):\n    def __init__(self, label: str):\n"
        "        super().__init__(name='fixed', description=label)\n\n"
        "    def _run(self) -> str:\n        return 'x'\n"
    )
    # The class whose own code names its instances stays a tool (at its class statement, line 11).
    assert [t.location.line for t in analyse({"a.py": code}).tools] == [11]


def test_a_settings_object_made_in_a_try_block_gives_its_field_default_as_model_id() -> None:
    config = (
        "from pydantic_settings import BaseSettings\n\n"
        "class Settings(BaseSettings):\n    MODEL_NAME: str = 'gpt-4o-mini'\n\n"
        "try:\n    settings = Settings()\nexcept ValueError:\n    raise\n"
    )
    builder = (
        "from langchain_openai import ChatOpenAI\nfrom core.config import settings\n\n"
        "def build():\n    return ChatOpenAI(model_name=settings.MODEL_NAME)\n"
    )
    linked = analyse({"core/config.py": config, "services/builder.py": builder})
    assert [(m.provider, m.model) for m in linked.models] == [("openai", "gpt-4o-mini")]
