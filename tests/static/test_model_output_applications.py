"""Issue 20, model output into execution, second round: applications without tools that run what a model
writes. The reply of any OpenAI-compatible client (``groq``, ``groq-sdk``) is model output; what a chat model
of a package no rule names answers is too; a helper returning one of several clients (a MySQL connection or a
Postgres client) or a tuple (``return chain, db``) leads its callers' calls to the client the rules name. A
constant command, a literal query, and a value the model cannot influence are no flow."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}


def _models(linked: Linked) -> set[tuple[str, str | None, int]]:
    return {(m.provider, m.model, m.location.line) for m in linked.models}


def _actions(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


# ----- any OpenAI-compatible client ---------------------------------------------------------------------

GROQ_PY = """\
import re
import subprocess
from groq import Groq

PATTERN = re.compile(r"```python\\n(.*?)\\n```", re.DOTALL)


def code_of(reply: str) -> str:
    match = PATTERN.search(reply)
    return match.group(1).strip() if match else ""


def run(code: str) -> None:
    exec(code)


def ask(question: str, client) -> None:
    groq = Groq(api_key="k")
    completion = groq.chat.completions.create(model="llama-3.3-70b-versatile", messages=[{"role": "user", "content": question}])
    run(code_of(completion.choices[0].message.content))
    reply = client.chat.completions.create(model="m", messages=[])
    subprocess.run(reply.choices[0].message.content, shell=True)
    subprocess.run("streamlit run app.py", shell=True)
"""


def test_the_reply_of_any_openai_compatible_client_is_model_output() -> None:
    linked = analyse({"app.py": GROQ_PY})
    assert _models(linked) == {("groq", "llama-3.3-70b-versatile", 19), ("unknown", "m", 21)}
    assert _flows(linked) == {
        ("model_output", "code.exec", "app.py", 14),
        ("model_output", "shell.exec", "app.py", 22),
    }


def test_a_constant_command_beside_model_output_is_no_flow() -> None:
    linked = analyse({"app.py": GROQ_PY})
    assert ("shell.exec", "app.py", 23) in _actions(linked)
    assert all(line != 23 for _, _, _, line in _flows(linked))


def test_a_call_named_like_a_chat_api_on_an_object_of_the_tree_is_no_model() -> None:
    code = (
        "import subprocess\n\n"
        "class Completions:\n"
        "    def create(self, **kw):\n"
        "        return 'ls'\n\n"
        "class Chat:\n"
        "    completions = Completions()\n\n"
        "class FakeClient:\n"
        "    chat = Chat()\n\n"
        "def main():\n"
        "    client = FakeClient()\n"
        "    reply = client.chat.completions.create(model='m')\n"
        "    subprocess.run(reply, shell=True)\n"
    )
    linked = analyse({"app.py": code})
    assert _models(linked) == set()
    assert _flows(linked) == set()


GROQ_JS = """\
import Groq from "groq-sdk";
import { exec } from "child_process";

const groq = new Groq({ apiKey: "k" });

export async function suggest(question) {
  const res = await groq.chat.completions.create({ model: "llama-3.1-8b-instant", messages: [{ role: "user", content: question }] });
  return res.choices[0].message.content.replace(/```/g, "").trim();
}

export async function main(question) {
  exec(await suggest(question));
  exec("npm update -g ai-shell");
}
"""


def test_a_js_compatible_client_is_named_after_its_package_and_its_reply_runs() -> None:
    linked = analyse({"src/cli.js": GROQ_JS})
    assert _models(linked) == {("groq", "llama-3.1-8b-instant", 7)}
    assert _flows(linked) == {("model_output", "shell.exec", "src/cli.js", 12)}


def test_the_openai_v3_client_is_a_model_call() -> None:
    code = (
        'import { Configuration, OpenAIApi } from "openai";\n'
        'import { execSync } from "child_process";\n'
        "export async function main(prompt) {\n"
        "  const openAi = new OpenAIApi(new Configuration({ apiKey: 'k' }));\n"
        "  const completion = await openAi.createChatCompletion({ model: 'gpt-4o-mini', messages: [] });\n"
        "  execSync(completion.data.choices[0].message.content);\n"
        "}\n"
    )
    linked = analyse({"cli.js": code})
    assert _models(linked) == {("openai", "gpt-4o-mini", 5)}
    assert _flows(linked) == {("model_output", "shell.exec", "cli.js", 6)}


# ----- chat models of packages no rule names ----------------------------------------------------------

CHAIN_PY = {
    "helper.py": """\
from langchain_google_genai.llms import GoogleGenerativeAI
from langchain_community.utilities import SQLDatabase
from langchain.chains.sql_database.query import create_sql_query_chain


def get_chain():
    db = SQLDatabase.from_uri("mysql+pymysql://root:root@localhost/shop")
    llm = GoogleGenerativeAI(model="gemini-1.5-flash", temperature=0.2)
    chain = create_sql_query_chain(llm, db)
    return chain, db
""",
    "main.py": """\
from helper import get_chain


def answer(question: str) -> str:
    chain, db = get_chain()
    sql = chain.invoke({"question": question}).strip()
    db.run("SELECT COUNT(*) FROM t_shirts")
    return db.run(sql)
""",
}


def test_sql_a_chain_of_a_chat_model_writes_runs_on_the_database_a_helper_returns_beside_it() -> None:
    linked = analyse(CHAIN_PY)
    assert ("sql.exec", "main.py", 8) in _actions(linked)
    assert _flows(linked) == {("model_output", "sql.exec", "main.py", 8)}


def test_a_literal_query_on_that_database_is_no_sql_exec() -> None:
    linked = analyse(CHAIN_PY)
    assert all(line != 7 for _, path, line in _actions(linked) if path == "main.py")


def test_what_a_package_object_no_model_answers_is_not_model_output() -> None:
    code = (
        "import subprocess\n"
        "from langchain_community.utilities import SQLDatabase\n\n"
        "def main():\n"
        "    db = SQLDatabase.from_uri('sqlite:///x.db')\n"
        "    subprocess.run(db.get_usable_table_names()[0], shell=True)\n"
    )
    assert _flows(analyse({"m.py": code})) == set()


# ----- a helper returning one of several clients ------------------------------------------------------

DB_JS = {
    "src/db.js": """\
import mysql from "mysql2/promise";
import pg from "pg";

export async function createDbClient(connection) {
  if (connection.dbType === "mysql") {
    return await mysql.createConnection({ host: connection.host });
  }
  const client = new pg.Client({ host: connection.host });
  await client.connect();
  return client;
}
""",
    "src/query.js": """\
import OpenAI from "openai";
import { createDbClient } from "./db.js";

const openai = new OpenAI();

async function toSql(question) {
  const res = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }] });
  return res.choices[0].message.content.trim();
}

export async function handle(req, res) {
  const sql = await toSql(req.body.question);
  const db = await createDbClient(req.body.connection);
  const [rows] = await db.execute(sql);
  const other = await db.query(sql);
  const fixed = await db.query("SELECT table_name FROM information_schema.columns");
  res.json({ rows, other, fixed });
}
""",
}


def test_sql_a_model_writes_runs_on_whichever_client_a_helper_returns() -> None:
    linked = analyse(DB_JS)
    assert _flows(linked) == {
        ("model_output", "sql.exec", "src/query.js", 14),
        ("model_output", "sql.exec", "src/query.js", 15),
    }


def test_a_literal_query_on_such_a_client_is_no_sql_exec() -> None:
    # SQL fixed in the code, read where the call is made: a read (JS-DB-READ-001), whatever client runs it.
    linked = analyse(DB_JS)
    assert {c for c, path, line in _actions(linked) if path == "src/query.js" and line == 16} == {"db.read"}


def test_a_js_object_of_the_tree_shaped_like_a_chat_client_is_no_model() -> None:
    code = (
        'import { exec } from "child_process";\n'
        "class FakeClient {\n"
        "  chat = { completions: { create: async () => 'ls' } };\n"
        "}\n"
        "export async function main() {\n"
        "  const client = new FakeClient();\n"
        "  exec(await client.chat.completions.create({ model: 'm' }));\n"
        "}\n"
    )
    linked = analyse({"fake.js": code})
    assert _models(linked) == set()
    assert _flows(linked) == set()


# ----- a streamed reply read by a helper and run after a confirmation ---------------------------------

STREAM_TS = """\
import { execaCommand } from "execa";
import * as p from "@clack/prompts";
import { OpenAIApi, Configuration } from "openai";

function getOpenAi(key: string) {
  return new OpenAIApi(new Configuration({ apiKey: key }));
}

async function* lines(stream: AsyncIterable<string>) {
  for await (const chunk of stream) {
    yield chunk.toString().trim();
  }
}

async function generate(prompt: string) {
  const completion = await getOpenAi("k").createChatCompletion({ model: "gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
  return completion.data;
}

const readData = (stream: AsyncIterable<string>) => (writer: (d: string) => void): Promise<string> =>
  new Promise(async (resolve) => {
    let data = "";
    for await (const line of lines(stream)) {
      data += JSON.parse(line).choices[0].delta.content;
    }
    resolve(data);
  });

const readNothing = (greeting: string) => (): Promise<string> =>
  new Promise((resolve) => resolve(greeting));

export async function getScript(prompt: string) {
  const stream = await generate(prompt);
  return { readScript: readData(stream) };
}

async function runScript(script: string) {
  await execaCommand(script, { shell: true });
}

export async function main() {
  const { readScript } = await getScript("list files");
  const readGreeting = readNothing("echo hello");
  const script = await readScript(process.stdout.write.bind(process.stdout));
  const answer = await p.select({ message: "Run?", options: [{ value: async () => { await runScript(script); } }] });
  if (typeof answer === "function") await answer();
  await execaCommand(await readGreeting(), { shell: true });
}
"""


def test_a_streamed_reply_a_helper_reads_through_a_generator_and_a_promise_reaches_the_command_run() -> None:
    linked = analyse({"src/prompt.ts": STREAM_TS})
    # The model call on the client a helper returns is the linker's; the model its options name is read where the
    # call is made (``CallFact.modelId``).
    assert ("openai", "gpt-4o-mini", 16) in _models(linked)
    assert _flows(linked) == {("model_output", "shell.exec", "src/prompt.ts", 38)}


def test_a_promise_resolved_with_a_literal_carries_no_model_output() -> None:
    linked = analyse({"src/prompt.ts": STREAM_TS})
    assert ("shell.exec", "src/prompt.ts", 47) in _actions(linked)
    assert all(line != 47 for _, _, _, line in _flows(linked))


def test_a_python_generator_yields_what_it_gives_its_caller() -> None:
    code = (
        "import subprocess\n"
        "from openai import OpenAI\n\n"
        "def replies(question):\n"
        "    client = OpenAI()\n"
        "    for chunk in client.chat.completions.create(model='gpt-4o', messages=[], stream=True):\n"
        "        yield chunk.choices[0].delta.content\n\n"
        "def greetings():\n"
        "    yield 'echo hello'\n\n"
        "def main(question):\n"
        "    for command in replies(question):\n"
        "        subprocess.run(command, shell=True)\n"
        "    for command in greetings():\n"
        "        subprocess.run(command, shell=True)\n"
    )
    linked = analyse({"m.py": code})
    assert _flows(linked) == {("model_output", "shell.exec", "m.py", 14)}


# ----- a model wrapper object kept in another class's field -------------------------------------------

FIELD_PY = {
    "model.py": """\
from langchain_groq import ChatGroq


class Model:
    def __init__(self, name):
        self.name = name

    def invoke(self, prompt):
        return ChatGroq(model=self.name).invoke(prompt).content


class Echo:
    def __init__(self, text):
        self.text = text

    def invoke(self, prompt):
        return "print('hello')"
""",
    "agent.py": """\
class CodeAgent:
    def __init__(self, model):
        self.model = model

    def run(self, question):
        reply = self.model.invoke(question)
        code = reply[reply.find("```python") + 9 : reply.rfind("```")]
        exec(code, None, {})
""",
    "main.py": """\
from agent import CodeAgent
from model import Echo, Model


def main(question):
    CodeAgent({model}).run(question)
""",
}


def test_the_reply_of_a_model_wrapper_kept_in_a_field_is_run() -> None:
    files = {**FIELD_PY, "main.py": FIELD_PY["main.py"].format(model='Model("llama-3.3-70b-versatile")')}
    assert _flows(analyse(files)) == {("model_output", "code.exec", "agent.py", 8)}


def test_a_field_holding_an_object_that_asks_no_model_carries_no_model_output() -> None:
    files = {**FIELD_PY, "main.py": FIELD_PY["main.py"].format(model='Echo("x")')}
    assert _flows(analyse(files)) == set()
