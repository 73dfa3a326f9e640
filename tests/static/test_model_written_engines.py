"""Issue 20, model output into execution, third round: library agents and engines that run what their model
writes. A text-to-SQL engine or chain (LlamaIndex ``NLSQLTableQueryEngine``, LangChain ``SQLDatabaseChain``) runs
the SQL its model writes; a program-of-thought module runs the Python its model writes in DSPy's sandboxed
interpreter; a Jupyter kernel runs whatever code it is sent; what such an engine answers is model output. A test
that the text starts with a read-only statement keyword gates what is called inside the branch it allows. The
other branch of an ``if`` starts from what names held before the test, not from what the first branch bound."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, int]]:
    return {(f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows if f.sourceKind == "model_output"}


def _actions(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


def _gates_at(linked: Linked, line: int) -> set[str]:
    kinds = {g.id: g.kind for g in linked.gates}
    return {kinds[g] for a in linked.actions if a.location.line == line for g in a.gateIds}


# ----- text-to-SQL engines ------------------------------------------------------------------------------

NLSQL_PY = """\
import pandas as pd
from sqlalchemy import create_engine, text
from llama_index.core import SQLDatabase
from llama_index.core.query_engine import NLSQLTableQueryEngine

engine = create_engine("mysql+pymysql://u:p@localhost/shop")
query_engine = NLSQLTableQueryEngine(sql_database=SQLDatabase(engine=engine), tables=["train"])


def answer(prompt: str):
    response = query_engine.query(prompt)
    sql = response.metadata.get("sql_query")
    if sql.strip().lower().startswith("select"):
        rows = pd.read_sql_query(sql, engine)
    else:
        rows = None
    pd.read_sql_query(sql, engine)
    with engine.connect() as conn:
        conn.execute(text("SELECT COUNT(*) FROM train"))
    return rows
"""


def test_a_text_to_sql_engine_runs_the_sql_its_model_writes() -> None:
    linked = analyse({"app.py": NLSQL_PY})
    assert ("sql.exec", "app.py", 7) in _flows(linked)


def test_the_sql_taken_out_of_the_engines_answer_and_run_again_is_model_output() -> None:
    linked = analyse({"app.py": NLSQL_PY})
    assert {("sql.exec", "app.py", 14), ("sql.exec", "app.py", 17)} <= _flows(linked)


def test_a_literal_query_on_the_engines_database_is_no_flow() -> None:
    linked = analyse({"app.py": NLSQL_PY})
    assert all(line != 19 for _, _, line in _flows(linked))


def test_a_read_only_prefix_test_gates_what_runs_inside_the_branch_it_allows() -> None:
    linked = analyse({"app.py": NLSQL_PY})
    assert _gates_at(linked, 14) == {"allowlist"}


def test_the_prefix_test_does_not_gate_what_runs_after_the_if() -> None:
    linked = analyse({"app.py": NLSQL_PY})
    assert _gates_at(linked, 17) == set()


def test_a_negated_prefix_test_gates_the_else_branch_only() -> None:
    code = (
        "import pandas as pd\n"
        "from llama_index.core.query_engine import NLSQLTableQueryEngine\n"
        "\n"
        "def answer(db, engine, prompt):\n"
        "    sql = NLSQLTableQueryEngine(sql_database=db).query(prompt).metadata['sql_query']\n"
        "    if not sql.upper().startswith('SELECT'):\n"
        "        pd.read_sql_query('SELECT 1', engine)\n"
        "    else:\n"
        "        pd.read_sql_query(sql, engine)\n"
    )
    linked = analyse({"app.py": code})
    assert _gates_at(linked, 7) == set()
    assert _gates_at(linked, 9) == {"allowlist"}
    # Both branches running the tested SQL: the test chooses nothing about whether it runs, no gate.
    both = analyse({"app.py": code.replace("pd.read_sql_query('SELECT 1', engine)", "pd.read_sql_query(sql, engine)")})
    assert _gates_at(both, 7) == set()
    assert _gates_at(both, 9) == set()


def test_a_langchain_sql_database_chain_runs_the_sql_its_model_writes() -> None:
    code = (
        "from langchain_experimental.sql import SQLDatabaseChain\n"
        "from langchain_community.utilities import SQLDatabase\n"
        "from langchain_openai import ChatOpenAI\n"
        "\n"
        "db = SQLDatabase.from_uri('sqlite:///shop.db')\n"
        "chain = SQLDatabaseChain.from_llm(ChatOpenAI(model='gpt-4o'), db)\n"
        "db.run('SELECT 1')\n"
    )
    linked = analyse({"app.py": code})
    assert _flows(linked) == {("sql.exec", "app.py", 6)}


def test_a_sql_database_object_alone_runs_nothing_the_model_writes() -> None:
    code = (
        "from llama_index.core import SQLDatabase\n"
        "from sqlalchemy import create_engine\n"
        "\n"
        "db = SQLDatabase(engine=create_engine('sqlite:///shop.db'))\n"
        "db.run_sql('SELECT 1')\n"
    )
    assert _flows(analyse({"app.py": code})) == set()


# ----- code written and run by a library module -----------------------------------------------------------


def test_a_program_of_thought_module_runs_its_models_code_in_the_interpreters_sandbox() -> None:
    code = (
        "import dspy\n"
        "\n"
        "dspy.configure(lm=dspy.LM('openai/gpt-4o-mini'))\n"
        "pot = dspy.ProgramOfThought('question -> answer')\n"
        "cot = dspy.ChainOfThought('question -> answer')\n"
    )
    linked = analyse({"app.py": code})
    assert _flows(linked) == {("code.exec", "app.py", 4)}
    assert _gates_at(linked, 4) == {"sandbox"}
    assert all(line != 5 for _, _, line in _actions(linked))


def test_a_pandas_query_engine_runs_the_pandas_code_its_model_writes() -> None:
    code = (
        "import pandas as pd\n"
        "from llama_index.experimental.query_engine import PandasQueryEngine\n"
        "\n"
        "engine = PandasQueryEngine(df=pd.DataFrame({'a': [1]}), verbose=True)\n"
    )
    assert _flows(analyse({"app.py": code})) == {("code.exec", "app.py", 4)}


def test_a_jupyter_kernel_runs_the_code_a_model_reply_holds() -> None:
    code = (
        "from jupyter_client import KernelManager\n"
        "from openai import OpenAI\n"
        "\n"
        "def run(question):\n"
        "    km = KernelManager()\n"
        "    km.start_kernel()\n"
        "    kc = km.client()\n"
        "    reply = OpenAI().chat.completions.create(model='gpt-4o', messages=[])\n"
        "    kc.execute(reply.choices[0].message.content)\n"
        "    kc.execute('import pandas as pd')\n"
    )
    linked = analyse({"app.py": code})
    assert {("code.exec", "app.py", 9), ("code.exec", "app.py", 10)} <= _actions(linked)
    assert _flows(linked) == {("code.exec", "app.py", 9)}


# ----- branches start from what held before the test ----------------------------------------------------


def test_the_other_branch_sees_the_value_from_before_the_if() -> None:
    code = (
        "import subprocess\n"
        "from openai import OpenAI\n"
        "\n"
        "def main():\n"
        "    command = OpenAI().chat.completions.create(model='gpt-4o', messages=[]).choices[0].message.content\n"
        "    if not command:\n"
        "        command = 'echo nothing'\n"
        "    else:\n"
        "        subprocess.run(command, shell=True)\n"
    )
    assert _flows(analyse({"app.py": code})) == {("shell.exec", "app.py", 9)}


def test_a_value_both_branches_replace_carries_no_model_output() -> None:
    code = (
        "import subprocess\n"
        "from openai import OpenAI\n"
        "\n"
        "def main(flag):\n"
        "    command = OpenAI().chat.completions.create(model='gpt-4o', messages=[]).choices[0].message.content\n"
        "    if flag:\n"
        "        command = 'echo one'\n"
        "    else:\n"
        "        command = 'echo two'\n"
        "    subprocess.run(command, shell=True)\n"
    )
    assert _flows(analyse({"app.py": code})) == set()


def test_after_the_if_a_name_holds_what_either_branch_left() -> None:
    code = (
        "import subprocess\n"
        "from openai import OpenAI\n"
        "\n"
        "def main(flag):\n"
        "    command = 'echo start'\n"
        "    if flag:\n"
        "        command = OpenAI().chat.completions.create(model='gpt-4o', messages=[]).choices[0].message.content\n"
        "    else:\n"
        "        command = 'echo two'\n"
        "    subprocess.run(command, shell=True)\n"
    )
    assert _flows(analyse({"app.py": code})) == {("shell.exec", "app.py", 10)}


# ----- the same in JS/TS --------------------------------------------------------------------------------

SQL_CHAIN_TS = """\
import { SqlDatabaseChain } from "langchain/chains/sql_db";
import { SqlDatabase } from "langchain/sql_db";
import { ChatOpenAI } from "@langchain/openai";
import { Client } from "pg";

export async function answer(question: string) {
  const client = new Client();
  const db = await SqlDatabase.fromDataSourceParams({ appDataSource: client });
  const chain = new SqlDatabaseChain({ llm: new ChatOpenAI({ model: "gpt-4o" }), database: db });
  const reply = await chain.invoke({ query: question });
  await client.query(reply.sql);
  await client.query("SELECT 1");
  return reply;
}
"""


def test_a_js_sql_database_chain_runs_the_sql_its_model_writes_and_answers_with_it() -> None:
    linked = analyse({"app.ts": SQL_CHAIN_TS})
    assert {("sql.exec", "app.ts", 9), ("sql.exec", "app.ts", 11)} <= _flows(linked)


def test_a_js_literal_query_beside_the_chain_is_no_flow() -> None:
    linked = analyse({"app.ts": SQL_CHAIN_TS})
    assert all(line != 12 for _, _, line in _flows(linked))
    assert ("sql.exec", "app.ts", 12) not in _actions(linked)
