"""Issue 20: a literal tool definition naming its tool by a constant (``"name": NAME`` with ``NAME = "run_sql"`` in
the class whose body writes it, or in the module) is the tool of that name; a class handing its definition and one of
its own methods over in one call (``super().__init__(self.NAME, self.SQL_FUNCTION_DICT, self.run_sql)``) pairs
them: that method runs the tool."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_SKILL = (
    "class Skill:\n"  # 1
    "    def __init__(self, name, function_dict, function_callable):\n"  # 2
    "        self.name = name\n"  # 3
    "        self.function_dict = function_dict\n"  # 4
    "        self.function_callable = function_callable\n"  # 5
)
_SQL = (
    "import sqlite3\n"  # 1
    "from pkg.skill import Skill\n"  # 2
    "\n"  # 3
    "class RunSql(Skill):\n"  # 4
    "    def __init__(self):\n"  # 5
    "        super().__init__(self.NAME, self.FUNCTION_DICT, self.run_sql)\n"  # 6
    "\n"  # 7
    "    NAME = 'run_sql'\n"  # 8
    "    FUNCTION_DICT = {\n"  # 9
    "        'type': 'function',\n"  # 10
    "        'function': {\n"  # 11
    "            'name': NAME,\n"  # 12
    "            'description': 'Run a SQL query',\n"  # 13
    "            'parameters': {'type': 'object', 'properties': {'query': {'type': 'string'}}},\n"  # 14
    "        },\n"  # 15
    "    }\n"  # 16
    "\n"  # 17
    "    def run_sql(self, args):\n"  # 18
    "        return sqlite3.connect('x.db').execute(args['query']).fetchall()\n"  # 19
)
_AGENT = (
    "from openai import OpenAI\n"  # 1
    "from pkg.sql import RunSql\n"  # 2
    "\n"  # 3
    "skill = RunSql()\n"  # 4
    "\n"  # 5
    "def ask(question):\n"  # 6
    "    return OpenAI().chat.completions.create(\n"  # 7
    "        model='gpt-4o', messages=[{'role': 'user', 'content': question}], tools=[skill.function_dict]\n"  # 8
    "    )\n"  # 9
)


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def test_a_class_constant_names_the_tool_and_the_method_handed_with_it_runs_it() -> None:
    linked = analyse({"pkg/skill.py": _SKILL, "pkg/sql.py": _SQL, "pkg/agent.py": _AGENT, "pkg/__init__.py": ""})
    assert ("run_sql", "pkg/sql.py") in {(t.name, t.location.path) for t in linked.tools}
    assert ("sql.exec", "pkg/sql.py", 19) in _reached(linked, "run_sql")


def test_a_module_constant_names_a_tool() -> None:
    code = (
        "from openai import OpenAI\n"  # 1
        "\n"  # 2
        "SEARCH = 'web_search'\n"  # 3
        "TOOLS = [{'type': 'function', 'function': {'name': SEARCH, 'description': 'Search',\n"  # 4
        "          'parameters': {'type': 'object', 'properties': {'q': {'type': 'string'}}}}}]\n"  # 5
        "\n"  # 6
        "def ask(question):\n"  # 7
        "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[], tools=TOOLS)\n"  # 8
    )
    linked = analyse({"agent.py": code})
    assert "web_search" in {t.name for t in linked.tools}
