"""Issue 20, model output where the model object lives elsewhere: a chat model bound at the top level of one module
(``llm = ChatOpenAI(...)`` in ``llm.py``) answers with model output wherever another module calls it (``from llm
import llm``; ``llm.invoke(q)``, ``llm.with_structured_output(S).invoke(q)``), as where it is bound; a pydantic-ai
agent's run (``agent.run_sync(q)``, ``await agent.run(q)``) answers with its model's output (read as ``.output``), in
the agent's module and in another that imports it. LangChain's ``PythonREPL().run(code)`` runs code, and the
``QuerySQLDataBaseTool`` the package exports at ``langchain_community.tools`` runs SQL. A module-level object of
another module that is no model, and a pydantic-ai agent call that is no run, give no model output."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}


def _sinks(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


LLM_PY = """\
from langchain_openai import ChatOpenAI

llm = ChatOpenAI(model="gpt-4o")
settings = dict(model="gpt-4o")
"""

NODES_PY = """\
from typing import TypedDict

from langchain_community.tools import QuerySQLDataBaseTool
from langchain_community.utilities import SQLDatabase
from langchain_experimental.utilities import PythonREPL

from llm import llm, settings

db = SQLDatabase.from_uri("sqlite:///app.db")


class State(TypedDict):
    question: str
    code: str
    sql: str


def generate_code(state: State):
    return {"code": llm.with_structured_output(dict).invoke(state["question"])["code"]}


def write_sql(state: State):
    return {"sql": llm.invoke(state["question"]).content}


def execute_code(state: State):
    return {"result": PythonREPL().run(state["code"])}


def execute_sql(state: State):
    return {"rows": QuerySQLDataBaseTool(db=db).invoke(state["sql"])}


def fixed(state: State):
    return {"rows": QuerySQLDataBaseTool(db=db).invoke(settings.get("model"))}
"""


def test_a_chat_model_of_another_module_answers_with_model_output() -> None:
    linked = analyse({"llm.py": LLM_PY, "nodes.py": NODES_PY})
    flows = _flows(linked)
    assert ("model_output", "code.exec", "nodes.py", 27) in flows
    assert ("model_output", "sql.exec", "nodes.py", 31) in flows


def test_a_value_of_another_module_that_is_no_model_gives_no_model_output() -> None:
    linked = analyse({"llm.py": LLM_PY, "nodes.py": NODES_PY})
    assert ("sql.exec", "nodes.py", 35) in _sinks(linked)
    assert all(line != 35 for _, _, _, line in _flows(linked))


AGENT_PY = """\
from pydantic_ai import Agent

sql_agent = Agent("openai:gpt-4o", system_prompt="Reply with one SQL query.")
"""

API_PY = """\
import sqlite3
import subprocess

from pydantic_ai import Agent

from agent import sql_agent

shell_agent = Agent("openai:gpt-4o")


def clean(text):
    return text.strip().strip("`")


async def query(q):
    result = await sql_agent.run(q)
    sqlite3.connect("app.db").execute(clean(result.output))


def shell(q):
    subprocess.run(shell_agent.run_sync(q).output, shell=True)


def named(q):
    subprocess.run(shell_agent.name, shell=True)
"""


def test_a_pydantic_ai_agents_run_answers_with_model_output_here_and_in_an_importer() -> None:
    linked = analyse({"agent.py": AGENT_PY, "api.py": API_PY})
    flows = _flows(linked)
    assert ("model_output", "sql.exec", "api.py", 17) in flows
    assert ("model_output", "shell.exec", "api.py", 21) in flows


def test_a_pydantic_ai_agent_read_without_a_run_gives_no_model_output() -> None:
    linked = analyse({"agent.py": AGENT_PY, "api.py": API_PY})
    assert ("shell.exec", "api.py", 25) in _sinks(linked)
    assert all(line != 25 for _, _, _, line in _flows(linked))
