"""Issue 20, Python reach across modules: what another module binds or builds keeps what it is where it is used.

- A SQLAlchemy session made by a session factory bound in another module (``SessionLocal = sessionmaker(...)``,
  ``async_sessionmaker``), by a FastAPI dependency or ``@contextmanager`` generator yielding one, or by a manager's
  method returning ``self.factory()``: its ``add``/``delete``/``commit`` write, ``get`` reads, ``execute`` reads or
  writes by its statement (a builder's ``select``/``delete``, the text given to ``text("...")``).
- A model factory of another module given its model id and vendor by its callers (``get_llm("gemini-2.5-flash",
  "google_genai")``): a model use at each call that passes them literally.
- A LangGraph graph compiled in another module, whose nodes are functions of a third: running it reaches its nodes.
- pydantic-ai ``agent.tool(f)`` / ``agent.tool_plain(f)`` called on a function imported from another module.
- Code written to a file (a named temporary file, ``path.write_text``, ``open(path, "w").write``) and the file then
  run: what was written runs; a list the code is appended to carries it on.
Look-alikes stay what they are: a set's ``add``, SQL text chosen at run time (one ``sql.exec``, at ``text(q)``), a
factory given no literal, a graph's function that is no node, another object's ``tool(f)``, a constant script.
"""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

DB = """\
from contextlib import contextmanager
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

engine = create_engine("sqlite://")
SessionLocal = sessionmaker(bind=engine)
AsyncSessionLocal = async_sessionmaker(create_async_engine("sqlite+aiosqlite://"), expire_on_commit=False)
seen = set()


def get_db():
    db = SessionLocal()
    try:
        yield db
    finally:
        db.close()


@contextmanager
def session_scope():
    db = SessionLocal()
    try:
        yield db
        db.commit()
    finally:
        db.close()


class Manager:
    def __init__(self):
        self.factory = async_sessionmaker(bind=create_async_engine("sqlite+aiosqlite://"))

    async def get_session(self):
        return self.factory()


manager = Manager()
"""

TOOLS = """\
from fastapi import Depends
from mcp.server.fastmcp import FastMCP
from sqlalchemy import delete, select, text

from app.db import AsyncSessionLocal, SessionLocal, get_db, manager, seen, session_scope

mcp = FastMCP("x")


@mcp.tool()
def save(name: str) -> str:
    with SessionLocal() as s:
        s.add(name)
        s.commit()
        s.execute(select(name))
        s.execute(delete(name))
        s.execute(text("SELECT 1"))
        sql = text("UPDATE t SET a = 1")
        s.execute(sql)
        s.execute(text(name))
        seen.add(name)
    return "ok"


@mcp.tool()
async def fetch(key: str) -> str:
    async with AsyncSessionLocal() as s:
        await s.get(str, key)
        await s.delete(key)
    async with await manager.get_session() as session:
        await session.execute(text("INSERT INTO t VALUES (1)"))
    return "ok"


@mcp.tool()
def scoped(name: str) -> str:
    with session_scope() as db:
        db.add(name)
    return "ok"


def route(name: str, db=Depends(get_db)):
    db.delete(name)
"""


def _at(linked: Linked, path: str) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in linked.actions if a.location.path == path}


def _reached(linked: Linked, path: str) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in linked.actions if a.location.path == path and a.reachedFrom}


def _sessions() -> Linked:
    return analyse({"app/__init__.py": "", "app/db.py": DB, "app/tools.py": TOOLS})


def test_a_session_from_another_module_s_factory_reads_and_writes_by_statement() -> None:
    reached = _reached(_sessions(), "app/tools.py")
    assert {("db.write", 13), ("db.write", 14), ("db.read", 15), ("db.write", 16)} <= reached
    assert {("db.read", 17), ("db.write", 19), ("sql.exec", 20)} <= reached  # text("..."), a local text, text(q)
    assert {("db.read", 28), ("db.write", 29)} <= reached  # async_sessionmaker's session
    assert ("db.write", 31) in reached  # a manager's method returning ``self.factory()``
    assert ("db.write", 38) in reached  # a ``@contextmanager`` yielding a session
    assert ("db.write", 43) in _at(_sessions(), "app/tools.py")  # ``db=Depends(get_db)``


def test_a_session_factory_a_package_re_exports_is_the_factory_of_the_module_that_binds_it() -> None:
    # ``from app import SessionLocal`` with ``app/__init__.py`` importing it from ``app.db``.
    tools = TOOLS.replace("from app.db import", "from app import")
    init = "from .db import AsyncSessionLocal, SessionLocal, get_db, manager, seen, session_scope\n"
    linked = analyse({"app/__init__.py": init, "app/db.py": DB, "app/tools.py": tools})
    reached = _reached(linked, "app/tools.py")
    assert {("db.write", 13), ("db.write", 14), ("db.read", 15), ("db.write", 16)} <= reached
    assert {("db.read", 28), ("db.write", 29)} <= reached
    assert not {c for c, line in _at(linked, "app/tools.py") if line == 21}  # a re-exported set's ``add``


def test_a_set_s_add_and_sql_chosen_at_run_time_are_no_more_than_they_are() -> None:
    at = _at(_sessions(), "app/tools.py")
    assert not {c for c, line in at if line == 21}  # ``seen.add(name)``: a set of another module, no session
    assert [c for c, line in sorted(at) if line == 20] == ["sql.exec"]  # one action: the ``text(name)`` call


LLM = """\
from langchain.chat_models import init_chat_model


def get_llm(model_name: str, model_provider: str):
    return init_chat_model(model_name, model_provider=model_provider)


def describe(model_name: str) -> str:
    return model_name.upper()
"""

AGENT = """\
from utils.llm import describe, get_llm

llm = get_llm("gemini-2.5-flash", "google_genai")
named = describe("gpt-4o")


def build(name: str):
    return get_llm(name, "anthropic")
"""


def test_a_model_factory_s_literal_arguments_name_the_provider_and_model_where_it_is_called() -> None:
    linked = analyse({"utils/__init__.py": "", "utils/llm.py": LLM, "agent.py": AGENT})
    used = {(m.provider, m.model, m.location.path, m.location.line) for m in linked.models}
    assert ("google", "gemini-2.5-flash", "agent.py", 3) in used
    assert ("anthropic", None, "agent.py", 8) in used  # the vendor given, the model chosen by the caller's caller


def test_a_function_that_is_no_model_factory_gets_no_model_use_at_its_calls() -> None:
    linked = analyse({"utils/__init__.py": "", "utils/llm.py": LLM, "agent.py": AGENT})
    assert not {m for m in linked.models if m.location.path == "agent.py" and m.location.line == 4}


NODES = """\
import sqlite3
import subprocess

from app.llm import llm


def write_sql(state):
    return {"sql": llm.invoke(state["question"]).content}


def run_sql(state):
    rows = sqlite3.connect("app.db").execute(state["sql"]).fetchall()
    return {"rows": rows}


def cleanup(state):
    subprocess.run(["rm", "-rf", "/tmp/cache"])
"""

GRAPH = """\
from typing import TypedDict

from langgraph.graph import END, StateGraph

from app.nodes import run_sql, write_sql


class State(TypedDict):
    question: str
    sql: str


builder = StateGraph(State)
builder.add_node("write", write_sql)
builder.add_node("run", run_sql)
builder.add_edge("write", "run")
builder.add_edge("run", END)
graph = builder.compile()
"""

SERVER = """\
from mcp.server.fastmcp import FastMCP

from app.graph import graph as sql_graph

mcp = FastMCP("x")


class Other:
    def invoke(self, q):
        return q


other = Other()


@mcp.tool()
def ask(question: str) -> str:
    return str(sql_graph.invoke({"question": question}))


@mcp.tool()
def echo(question: str) -> str:
    return other.invoke(question)
"""

LLM_MODULE = 'from langchain_openai import ChatOpenAI\nllm = ChatOpenAI(model="gpt-4o")\n'


def _graph() -> Linked:
    return analyse(
        {
            "app/__init__.py": "",
            "app/llm.py": LLM_MODULE,
            "app/nodes.py": NODES,
            "app/graph.py": GRAPH,
            "app/server.py": SERVER,
        }
    )


def _from_tool(linked: Linked, name: str) -> set[tuple[str, str, int]]:
    tool = next(t for t in linked.tools if t.name == name)
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId == tool.id for p in a.reachedFrom)
    }


def test_running_a_graph_of_another_module_reaches_its_nodes_in_a_third() -> None:
    assert ("sql.exec", "app/nodes.py", 12) in _from_tool(_graph(), "ask")


def test_a_function_no_graph_adds_and_another_object_s_invoke_reach_nothing() -> None:
    linked = _graph()
    assert not {a for a in _from_tool(linked, "ask") if a[2] == 17}  # ``cleanup``: no node of the graph
    assert not _from_tool(linked, "echo")  # ``other.invoke``: no graph


SQL_TOOLS = """\
import subprocess


async def list_tables(ctx) -> list[str]:
    return []


def run_command(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


NAMES = ["a", "b"]
"""

SQL_AGENT = """\
from pydantic_ai import Agent

from tools.sql_tools import NAMES, list_tables, run_command

agent = Agent("openai:gpt-4o")
agent.tool(list_tables)
agent.tool_plain(run_command)
registry = set()
registry.add(NAMES)
"""


def test_agent_tool_called_on_imported_functions_registers_them() -> None:
    linked = analyse({"tools/__init__.py": "", "tools/sql_tools.py": SQL_TOOLS, "agent.py": SQL_AGENT})
    found = {(t.name, t.location.path, t.location.line) for t in linked.tools}
    assert found == {("list_tables", "tools/sql_tools.py", 4), ("run_command", "tools/sql_tools.py", 8)}
    assert ("shell.exec", 9) in _reached(linked, "tools/sql_tools.py")


def test_another_object_s_method_given_an_imported_name_registers_no_tool() -> None:
    agent = SQL_AGENT.replace("agent.tool(list_tables)", "registry.add(list_tables)")
    linked = analyse({"tools/__init__.py": "", "tools/sql_tools.py": SQL_TOOLS, "agent.py": agent})
    assert {t.name for t in linked.tools} == {"run_command"}


SCRIPTS = """\
import subprocess
import sys
import tempfile
from pathlib import Path

from openai import OpenAI

client = OpenAI()


def generate() -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[]).choices[0].message.content


def run_temp(code: str):
    lines = ["import json"]
    lines.append(code)
    tmp = tempfile.NamedTemporaryFile(mode="w", suffix=".py", delete=False)
    tmp.write("\\n".join(lines))
    tmp.close()
    return subprocess.run([sys.executable, tmp.name], capture_output=True)


def run_path(code: str):
    p = Path("/tmp/generated.py")
    p.write_text(code)
    subprocess.run(["python", str(p)])


def run_open(code: str):
    path = "/tmp/generated2.py"
    open(path, "w").write(code)
    subprocess.run(["python", path])


def run_constant():
    path = "/tmp/fixed.py"
    open(path, "w").write("print(1)")
    subprocess.run(["python", path])


def save_only(code: str):
    Path("/tmp/kept.py").write_text(code)
    subprocess.run(["python", "/tmp/other.py"])


def main():
    code = generate()
    run_temp(code)
    run_path(code)
    run_open(code)
    run_constant()
    save_only(code)
"""


def _exec_flows(linked: Linked) -> set[int]:
    return {f.sink.line for f in linked.taintFlows if f.actionClass == "shell.exec" and f.sourceKind == "model_output"}


def test_model_code_written_to_a_file_that_is_then_run_is_model_output_into_execution() -> None:
    flows = _exec_flows(analyse({"scripts.py": SCRIPTS}))
    assert {21, 27, 33} <= flows  # a named temporary file (through a list), write_text, open(...).write


def test_a_constant_script_and_a_written_file_nobody_runs_carry_no_model_output() -> None:
    flows = _exec_flows(analyse({"scripts.py": SCRIPTS}))
    assert not flows & {39, 44}


CONTEXT = """\
from contextvars import ContextVar

from sqlalchemy.ext.asyncio import AsyncSession

db_var: ContextVar[AsyncSession] = ContextVar("db")
user_var: ContextVar[str] = ContextVar("user")
plain = ContextVar("plain")
"""

CONTEXT_TOOLS = """\
from langchain_core.tools import tool
from sqlalchemy import delete

from app.context import db_var, plain, user_var


@tool
async def clear(user: str) -> str:
    \"\"\"Clear the user's cart.\"\"\"
    db = db_var.get()
    await db.execute(delete(user))
    await db.commit()
    name = user_var.get()
    other = plain.get()
    other.add(name)
    return "ok"
"""


def test_a_session_held_in_another_module_s_context_variable_is_that_session() -> None:
    linked = analyse({"app/__init__.py": "", "app/context.py": CONTEXT, "app/tools.py": CONTEXT_TOOLS})
    assert {("db.write", 11), ("db.write", 12)} <= _reached(linked, "app/tools.py")


def test_a_context_variable_of_no_package_type_holds_no_session() -> None:
    linked = analyse({"app/__init__.py": "", "app/context.py": CONTEXT, "app/tools.py": CONTEXT_TOOLS})
    assert not {line for _, line in _at(linked, "app/tools.py") if line >= 13}  # ``str``, and an unannotated holder
