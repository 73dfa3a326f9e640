"""Issue 20, model output through a graph's state: a LangGraph node that writes the model's answer under a key
of the graph's state (``return {"sql": answer.content}``, ``state["cmd"] = ...``, ``return { query: result.query
}``) hands it to every node of that state that reads the key (``state["sql"]``, ``state.get("cmd")``,
``state.query``), in another module as well. A key written only from a constant or from the user's input, and a
key of another state, carry no model output."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}


def _sinks(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


# ----- Python ----------------------------------------------------------------------------------------------

STATE_PY = """\
from typing import TypedDict


class State(TypedDict):
    question: str
    sql: str
    cmd: str
    note: str
"""

WRITE_PY = """\
from langchain_openai import ChatOpenAI

from graph.state import State

llm = ChatOpenAI(model="gpt-4o")


def write_sql(state: State):
    answer = llm.invoke(state["question"])
    return {"sql": answer.content, "note": "written"}


def write_cmd(state: State):
    state["cmd"] = llm.invoke("a command").content
    return state
"""

RUN_PY = """\
import sqlite3
import subprocess

from graph.state import State


def run_sql(state: State):
    conn = sqlite3.connect("app.db")
    rows = conn.execute(state["sql"]).fetchall()
    return {"result": rows}


def run_cmd(state: State):
    subprocess.run(state.get("cmd", "true"), shell=True)
    subprocess.run(state["note"], shell=True)
    return {}
"""


def test_a_key_a_node_writes_from_model_output_is_model_output_in_the_node_that_reads_it() -> None:
    linked = analyse({"graph/state.py": STATE_PY, "graph/write.py": WRITE_PY, "graph/run.py": RUN_PY})
    flows = _flows(linked)
    assert ("model_output", "sql.exec", "graph/run.py", 9) in flows
    assert ("model_output", "shell.exec", "graph/run.py", 14) in flows


def test_a_key_written_from_a_constant_is_no_model_output() -> None:
    linked = analyse({"graph/state.py": STATE_PY, "graph/write.py": WRITE_PY, "graph/run.py": RUN_PY})
    assert ("shell.exec", "graph/run.py", 15) in _sinks(linked)
    assert all(line != 15 for _, _, path, line in _flows(linked) if path == "graph/run.py")


USER_ONLY_PY = """\
import sqlite3
from typing import TypedDict

from langchain_openai import ChatOpenAI


class State(TypedDict):
    question: str
    sql: str


class Other(TypedDict):
    sql: str


def build(state: State):
    return {"sql": "SELECT * FROM t WHERE q = '" + state["question"] + "'"}


def model_into_other(state: Other):
    return {"sql": ChatOpenAI(model="gpt-4o").invoke("sql please").content}


def run(state: State):
    sqlite3.connect("app.db").execute(state["sql"])
"""


def test_a_key_written_from_the_users_input_or_of_another_state_is_no_model_output() -> None:
    linked = analyse({"app.py": USER_ONLY_PY})
    assert ("sql.exec", "app.py", 25) in _sinks(linked)
    assert not any(kind == "model_output" for kind, _, _, _ in _flows(linked))


def test_a_parameter_typed_by_a_container_is_no_graph_state() -> None:
    code = (
        "import subprocess\n"
        "from langchain_openai import ChatOpenAI\n\n"
        "def plan(options: dict):\n"
        '    return {"cmd": ChatOpenAI(model="gpt-4o").invoke("x").content}\n\n'
        "def run(options: dict):\n"
        '    subprocess.run(options["cmd"], shell=True)\n'
    )
    linked = analyse({"app.py": code})
    assert ("shell.exec", "app.py", 8) in _sinks(linked)
    assert not _flows(linked)


PYDANTIC_STATE_PY = """\
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel
from sqlalchemy import create_engine, text
from langchain_openai import AzureChatOpenAI

llm = AzureChatOpenAI()
engine = create_engine("sqlite://")


class GraphState(BaseModel):
    user_msg: str
    sql: Optional[str] = None
    note: Optional[str] = None


def generate_sql(state: GraphState):
    content = llm.invoke(state.user_msg).content.strip()
    return {"sql": content, "note": "SELECT 1"}


def execute_sql(state: GraphState):
    if not state.sql:
        return {"error": "no sql"}
    safe_sql = state.sql
    with engine.begin() as conn:
        conn.execute(text(safe_sql))
        conn.execute(text(state.note))
        conn.execute(text(f"SELECT * FROM t WHERE q = '{state.user_msg}'"))
    return {}
"""


def test_an_attribute_of_a_pydantic_state_a_model_node_wrote_is_model_output() -> None:
    linked = analyse({"app.py": PYDANTIC_STATE_PY})
    assert ("model_output", "sql.exec", "app.py", 29) in _flows(linked)


def test_an_attribute_of_a_pydantic_state_written_from_a_constant_or_the_input_is_no_model_output() -> None:
    linked = analyse({"app.py": PYDANTIC_STATE_PY})
    sinks = _sinks(linked)
    assert ("sql.exec", "app.py", 30) in sinks and ("sql.exec", "app.py", 31) in sinks
    assert not any(line in (30, 31) for kind, _, _, line in _flows(linked) if kind == "model_output")


STORED_STATE_PY = """\
import subprocess

from langchain_openai import ChatOpenAI

from app.models import Job, Other


def plan(job: Job) -> Job:
    job.cmd = ChatOpenAI(model="gpt-4o").invoke("x").content.strip()
    job.note = "echo planned"
    return job


def other(o: Other) -> Other:
    o.cmd = ChatOpenAI(model="gpt-4o").invoke("y").content
    return o


def run(job: Job) -> Job:
    subprocess.run(job.cmd, shell=True)
    subprocess.run(job.note, shell=True)
    return job
"""


def test_an_attribute_a_node_stores_model_output_into_is_model_output_where_a_node_reads_it() -> None:
    linked = analyse({"app.py": STORED_STATE_PY})
    assert ("model_output", "shell.exec", "app.py", 20) in _flows(linked)


def test_an_attribute_stored_from_a_constant_or_of_another_class_is_no_model_output() -> None:
    linked = analyse({"app.py": STORED_STATE_PY})
    assert ("shell.exec", "app.py", 21) in _sinks(linked)
    assert all(line != 21 for _, _, _, line in _flows(linked))


# ----- TypeScript ------------------------------------------------------------------------------------------

STATE_TS = """\
import { Annotation } from "@langchain/langgraph";

export const StateAnnotation = Annotation.Root({
  question: Annotation<string>,
  query: Annotation<string>,
  note: Annotation<string>,
});

export type State = typeof StateAnnotation.State;
"""

WRITE_TS = """\
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { State } from "./state";

const llm = new ChatOpenAI({ model: "gpt-4o" });

export const writeQuery = async (state: State) => {
  const result = await llm.withStructuredOutput(z.object({ query: z.string() })).invoke(state.question);
  return { query: result.query, note: "written" };
};
"""

RUN_TS = """\
import { SqlDatabase } from "langchain/sql_db";
import { State } from "./state";

export async function runQuery(state: State, db: SqlDatabase) {
  const rows = await db.run(state.query);
  const again = await db.run(state.note);
  return { result: rows + again };
}
"""


def test_ts_a_key_a_node_returns_from_model_output_is_model_output_where_another_node_reads_it() -> None:
    linked = analyse({"graph/state.ts": STATE_TS, "graph/write.ts": WRITE_TS, "graph/run.ts": RUN_TS})
    flows = _flows(linked)
    assert ("model_output", "sql.exec", "graph/run.ts", 5) in flows
    assert all(line != 6 for _, _, path, line in flows if path == "graph/run.ts")


INLINE_TS = """\
import { Annotation, StateGraph } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { QuerySqlTool } from "langchain/tools/sql";
import { SqlDatabase } from "langchain/sql_db";

const GraphState = Annotation.Root({ question: Annotation<string>, query: Annotation<string> });
const Other = Annotation.Root({ query: Annotation<string> });
const model = new ChatOpenAI({ model: "gpt-4o" });
const db = await SqlDatabase.fromDataSourceParams({ appDataSource: source });

const fromUser = async (state: typeof GraphState.State) => {
  return { query: `SELECT * FROM t WHERE name = '${state.question}'` };
};

const fromModel = async (state: typeof Other.State) => {
  const answer = await model.invoke("write sql");
  return { query: answer.content };
};

const run = async (state: typeof GraphState.State) => {
  const result = await new QuerySqlTool(db).invoke(state.query);
  return { result };
};
"""


def test_ts_a_key_written_from_the_users_input_or_of_another_state_is_no_model_output() -> None:
    linked = analyse({"graph.ts": INLINE_TS})
    assert ("sql.exec", "graph.ts", 21) in _sinks(linked)
    assert not any(kind == "model_output" for kind, _, _, _ in _flows(linked))


def test_ts_query_sql_tool_runs_what_a_model_wrote_into_the_state() -> None:
    code = INLINE_TS.replace("typeof Other.State", "typeof GraphState.State")
    linked = analyse({"graph.ts": code})
    assert ("model_output", "sql.exec", "graph.ts", 21) in _flows(linked)


BASE_CHAT_MODEL_TS = """\
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { SqlDatabase } from "langchain/sql_db";

export class WriteQuery {
  constructor(private readonly llm: BaseChatModel, private readonly db: SqlDatabase) {}

  async check(question: string) {
    const { query } = await this.llm.withStructuredOutput(schema).invoke(question);
    await this.db.run(`EXPLAIN ${query}`);
  }
}
"""


def test_ts_a_value_typed_as_the_chat_model_base_class_answers_with_model_output() -> None:
    linked = analyse({"write.ts": BASE_CHAT_MODEL_TS})
    assert ("model_output", "sql.exec", "write.ts", 9) in _flows(linked)


MODULE_MODEL_PY = """\
import subprocess

from langchain_openai import ChatOpenAI
from pydantic import BaseModel


class Command(BaseModel):
    command: str


llm = ChatOpenAI(model="gpt-4o")
planner = llm.with_structured_output(Command)
runner = subprocess.Popen


def run_answer(question: str) -> None:
    subprocess.run(llm.invoke(question).content, shell=True)


def run_planned(question: str) -> None:
    subprocess.run(planner.invoke(question).command, shell=True)


def run_fixed() -> None:
    subprocess.run(runner.__name__, shell=True)
"""


def test_a_chat_model_bound_at_the_top_level_answers_with_model_output_in_functions() -> None:
    linked = analyse({"app.py": MODULE_MODEL_PY})
    assert _flows(linked) == {
        ("model_output", "shell.exec", "app.py", 17),
        ("model_output", "shell.exec", "app.py", 21),
    }
    assert ("shell.exec", "app.py", 25) in _sinks(linked)
