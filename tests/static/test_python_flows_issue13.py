"""Issue 13, Python actions, gates and flows on real framework patterns: code agents that run what their
model writes, factory classmethods and return annotations, callbacks, vector-store reads, messaging APIs."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    """(class, line) of the actions the tool named ``tool`` reaches."""
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _gates_of(linked: Linked, action_class: str) -> list[list[str]]:
    kinds = {g.id: g.kind for g in linked.gates}
    return [sorted(kinds[g] for g in a.gateIds) for a in linked.actions if a.actionClass == action_class]


# ----- code agents ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "gates"),
    [
        ("CodeAgent(tools=[], model=model)", [[]]),
        ("CodeAgent(tools=[], model=model, executor_type='local')", [[]]),
        ("CodeAgent(tools=[], model=model, executor_type='e2b')", [["sandbox"]]),
        ("CodeAgent(tools=[], model=model, executor_type='docker')", [["sandbox"]]),
        ("CodeAgent(tools=[], model=model, executor=E2BExecutor(additional_imports=[], logger=None))", [["sandbox"]]),
    ],
)
def test_a_code_agent_runs_model_written_code_under_its_executor(agent: str, gates: list[list[str]]) -> None:
    code = (
        "from smolagents import CodeAgent, InferenceClientModel\nfrom smolagents.remote_executors import E2BExecutor\n\n"
        f"model = InferenceClientModel()\nagent = {agent}\nagent.run('task')\n"
    )
    linked = analyse({"m.py": code})
    assert [(a.actionClass, a.location.line, a.ruleId) for a in linked.actions] == [("code.exec", 5, "PY-CODE-004")]
    assert _gates_of(linked, "code.exec") == gates
    # The code the model writes is the model's output reaching execution, whether or not a tool is involved.
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.ruleId, flow.sink.line) == ("model_output", "TAINT-EXEC-001", 5)


def test_a_code_agent_in_a_with_statement_and_an_executor_held_in_a_variable() -> None:
    code = (
        "from autogen_agentchat.agents import CodeExecutorAgent\n"
        "from autogen_ext.code_executors.docker import DockerCommandLineCodeExecutor\n"
        "from autogen_ext.code_executors.local import LocalCommandLineCodeExecutor\n\n"
        "def build():\n    docker = DockerCommandLineCodeExecutor(work_dir='w')\n"
        "    sandboxed = CodeExecutorAgent('a', code_executor=docker)\n"
        "    local = CodeExecutorAgent('b', code_executor=LocalCommandLineCodeExecutor(work_dir='w'))\n"
        "    return sandboxed, local\n"
    )
    linked = analyse({"m.py": code})
    assert _gates_of(linked, "code.exec") == [["sandbox"], []]
    assert sorted(f.sink.line for f in linked.taintFlows) == [7, 8]


def test_a_plain_tool_calling_agent_runs_no_code() -> None:
    code = (
        "from smolagents import ToolCallingAgent, InferenceClientModel\nagent = ToolCallingAgent(tools=[], model=m)\n"
    )
    linked = analyse({"m.py": code})
    assert linked.actions == [] and linked.taintFlows == []


def test_smolagents_model_classes_name_their_provider() -> None:
    code = (
        "from smolagents import OpenAIModel, LiteLLMRouterModel\n"
        "a = OpenAIModel(model_id='gpt-4o')\n"
        "b = LiteLLMRouterModel(model_id='model-group-1', model_list=[])\n"
    )
    linked = analyse({"m.py": code})
    # A router's model_id names a group of deployments, not a model.
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [
        ("openai", "gpt-4o", 2),
        ("litellm", None, 3),
    ]


# ----- reads ------------------------------------------------------------------------------------------


def test_a_vector_store_query_in_a_tool_is_a_database_read() -> None:
    code = (
        "from smolagents import Tool\n\nclass Retriever(Tool):\n    name = 'retriever'\n"
        "    description = 'd'\n    inputs = {'query': {'type': 'string', 'description': 'q'}}\n"
        "    output_type = 'string'\n\n    def __init__(self, store):\n        super().__init__()\n"
        "        self.store = store\n\n    def forward(self, query: str) -> str:\n"
        "        return str(self.store.similarity_search(query, k=3))\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "retriever") == {("db.read", 14)}


# ----- calls through factories, return annotations and callbacks ----------------------------------------


def test_methods_of_an_instance_made_by_a_factory_classmethod_are_reached() -> None:
    code = (
        "import asyncpg\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('m')\n\n"
        "class Node:\n    def __init__(self, text):\n        self.text = text\n\n"
        "    @classmethod\n    async def from_text(cls, text: str):\n        return cls(text)\n\n"
        "    async def save(self, pool: asyncpg.Pool):\n"
        "        await pool.execute('INSERT INTO t (x) VALUES ($1)', self.text)\n\n"
        "async def open_pool() -> asyncpg.Pool:\n    return await asyncpg.create_pool('dsn')\n\n"
        "@mcp.tool()\nasync def remember(text: str) -> str:\n    node = await Node.from_text(text)\n"
        "    pool = await open_pool()\n    await node.save(pool)\n    await pool.execute('DELETE FROM t')\n"
        "    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    # ``save`` is reached through the factory's instance; the pool's type comes from the return annotation.
    assert _reached(linked, "remember") == {("db.write", 15), ("db.write", 25)}


def test_a_callback_passed_to_a_call_is_reached_and_typed_by_what_the_call_passes_it() -> None:
    code = (
        "import asyncpg\nimport threading\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('m')\n\n"
        "def cleanup():\n    import shutil\n    shutil.rmtree('/tmp/x')\n\n"
        "async def get_pool():\n    async def init(conn):\n"
        "        await conn.execute('CREATE EXTENSION IF NOT EXISTS vector')\n\n"
        "    return await asyncpg.create_pool('dsn', init=init)\n\n"
        "@mcp.tool()\nasync def store() -> str:\n    pool = await get_pool()\n"
        "    threading.Thread(target=cleanup).start()\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "store") == {("db.write", 13), ("file.delete", 9)}


def test_a_function_named_but_not_passed_is_not_a_callback() -> None:
    code = (
        "from mcp.server.fastmcp import FastMCP\nimport shutil\n\nmcp = FastMCP('m')\n\n"
        "def wipe():\n    shutil.rmtree('/tmp/x')\n\n"
        "@mcp.tool()\ndef name_of() -> str:\n    return wipe.__name__\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "name_of") == set()


# ----- messaging APIs over HTTP -----------------------------------------------------------------------


def test_an_http_client_posting_to_an_sms_api_sends_a_message() -> None:
    code = (
        "import httpx\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('m')\n\n"
        "@mcp.tool()\ndef text_me(body: str) -> str:\n    with httpx.Client() as client:\n"
        "        client.post('https://api.surgemsg.com/messages', json={'body': body})\n"
        "        client.get('https://example.com/status')\n    return 'sent'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "text_me") == {("message.send", 9), ("network.egress", 10)}


def test_a_nested_tool_calls_a_sandbox_held_by_an_instance_of_the_enclosing_factory() -> None:
    code = (
        "from e2b_code_interpreter import Sandbox\nfrom langchain_core.tools import tool\n\n"
        "class Interpreter:\n    def __init__(self):\n        self.sandbox = Sandbox.create()\n\n"
        "    def run(self, code: str):\n        return self.sandbox.run_code(code)\n\n"
        "def make_tool(interpreter: Interpreter):\n    @tool\n    def run_python(code: str) -> str:\n"
        "        '''Run Python.'''\n        return str(interpreter.run(code))\n\n    return run_python\n"
    )
    linked = analyse({"m.py": code})
    # The closure sees the factory's parameter type; the sandbox made in __init__ gates the call where it runs.
    assert _reached(linked, "run_python") == {("code.exec", 9)}
    assert _gates_of(linked, "code.exec") == [["sandbox"]]
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.sink.line) == ("tool_argument", 9)


def test_a_closure_parameter_shadows_the_enclosing_name() -> None:
    code = (
        "import subprocess\nfrom langchain_core.tools import tool\n\nclass Runner:\n"
        "    def go(self, c):\n        subprocess.run(c)\n\n"
        "def make(runner: Runner):\n    @tool\n    def t(runner: str) -> str:\n        '''T.'''\n"
        "        return runner.go('x')\n    return t\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "t") == set()


def test_a_library_tool_run_by_a_tool_performs_its_action_and_its_toolkit_reads_credentials() -> None:
    code = (
        "from langchain.tools import tool\nfrom langchain_community.agent_toolkits import GmailToolkit\n"
        "from langchain_community.tools.gmail.create_draft import GmailCreateDraft\n"
        "from langchain_community.tools.gmail import GmailSendMessage\n\n"
        "class Tools:\n    @tool('Create Draft')\n    def create_draft(data):\n        '''Create a draft.'''\n"
        "        gmail = GmailToolkit()\n        draft = GmailCreateDraft(api_resource=gmail.api_resource)\n"
        "        return str(draft({'to': [data], 'subject': 's', 'message': data}))\n\n"
        "    @tool('Send')\n    def send(data):\n        '''Send.'''\n"
        "        sender = GmailSendMessage(api_resource=None)\n        return sender.run(data)\n"
    )
    linked = analyse({"m.py": code})
    # The toolkit built without an API resource loads the OAuth token; the draft tool, given one, does not.
    assert _reached(linked, "Create Draft") == {("credential.read", 10), ("network.egress", 12)}
    assert _reached(linked, "Send") == {("message.send", 18)}


# ----- gates -----------------------------------------------------------------------------------------

_LOOP = (
    "import git\nfrom pathlib import Path\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('m')\n\n"
    "@mcp.tool()\ndef add(repo_path: str, files: list[str]) -> str:\n    repo = git.Repo(repo_path)\n"
    "    root = Path(repo.working_dir).resolve()\n    for f in files:\n{skip}"
    "        try:\n            (root / f).resolve().relative_to(root)\n"
    "        except ValueError:\n            raise ValueError(f)\n    repo.git.add('--', *files)\n    return 'ok'\n"
)


@pytest.mark.parametrize(
    ("skip", "gated"),
    [
        ("", [["path_containment"]]),
        # An element the check never saw: the loop proves nothing about the files.
        ("        if f.endswith('.md'):\n            continue\n", [[]]),
        ("        if f.endswith('.md'):\n            break\n", [[]]),
    ],
)
def test_a_check_every_element_of_a_for_loop_passes_holds_after_the_loop(skip: str, gated: list[list[str]]) -> None:
    linked = analyse({"m.py": _LOOP.format(skip=skip)})
    assert _gates_of(linked, "shell.exec") == gated


def test_an_approval_inside_a_loop_does_not_hold_after_it() -> None:
    code = (
        "import subprocess\nfrom langchain_core.tools import tool\nfrom langgraph.types import interrupt\n\n"
        "@tool\ndef run(cmds: list[str]) -> str:\n    '''Run.'''\n    for c in cmds:\n        interrupt(c)\n"
        "    subprocess.run(cmds[0], shell=True)\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _gates_of(linked, "shell.exec") == [[]]


# ----- Agents SDK tools the SDK defines and the code runs ----------------------------------------------

_SHELL_CAPABILITY = (
    "from agents.sandbox.session.base_sandbox_session import BaseSandboxSession\n"
    "from agents.tool import ShellCommandRequest, ShellResult, ShellTool, Tool\n\n"
    "class WorkspaceShell:\n    def __init__(self) -> None:\n        self._session: BaseSandboxSession | None = None\n\n"
    "    def tools(self) -> list[Tool]:\n        return [ShellTool(executor=self._execute)]\n\n"
    "    async def _execute(self, request: ShellCommandRequest) -> ShellResult:\n"
    "        for command in request.data.action.commands:\n"
    "            await self._session.exec(command, shell=True)\n        return ShellResult(output=[])\n"
)

_EDITOR = (
    "from agents import ApplyPatchTool\nfrom agents.sandbox.session.base_sandbox_session import BaseSandboxSession\n\n"
    "class Editor:\n    def __init__(self, session: BaseSandboxSession) -> None:\n        self._session = session\n\n"
    "    async def create_file(self, operation):\n        await self._session.write(operation.path, operation.diff)\n\n"
    "    async def update_file(self, operation):\n        await self._session.read(operation.path)\n\n"
    "    async def delete_file(self, operation):\n        await self._session.rm(operation.path)\n\n"
    "def tools(session: BaseSandboxSession):\n    return [ApplyPatchTool(editor=Editor(session))]\n"
)


def test_a_shell_tool_runs_its_executor_and_the_model_command_in_the_sandbox_session() -> None:
    linked = analyse({"shell.py": _SHELL_CAPABILITY})
    assert {(t.name, t.framework, t.location.line) for t in linked.tools} == {("shell", "openai-agents", 9)}
    assert _reached(linked, "shell") == {("shell.exec", 13)}
    assert _gates_of(linked, "shell.exec") == [["sandbox"]]
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.actionClass, flow.sink.line) == ("tool_argument", "shell.exec", 13)


def test_an_apply_patch_tool_runs_its_editor_methods() -> None:
    linked = analyse({"editor.py": _EDITOR})
    assert {(t.name, t.location.line) for t in linked.tools} == {("apply_patch", 18)}
    assert _reached(linked, "apply_patch") == {("file.write", 9), ("file.read", 12), ("file.delete", 15)}
    assert _gates_of(linked, "file.delete") == [["sandbox"]]


def test_a_local_shell_tool_with_a_plain_function_executor() -> None:
    code = (
        "import subprocess\nfrom agents import Agent, LocalShellTool\n\n"
        "def run_local(request):\n    return subprocess.run(request.data.action.command, capture_output=True).stdout\n\n"
        "agent = Agent(name='a', tools=[LocalShellTool(executor=run_local)])\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "local_shell") == {("shell.exec", 5)}
    assert _gates_of(linked, "shell.exec") == [[]]
    assert [f.sink.line for f in linked.taintFlows] == [5]


@pytest.mark.parametrize(("flag", "gated"), [("True", [["human_approval"]]), ("False", [[]])])
def test_a_shell_tool_that_needs_approval_gates_what_its_executor_runs(flag: str, gated: list[list[str]]) -> None:
    code = (
        "import subprocess\nfrom agents import Agent, ShellTool\n\n"
        "def run(request):\n    return subprocess.run(request.data.action.commands[0], shell=True).stdout\n\n"
        f"agent = Agent(name='a', tools=[ShellTool(executor=run, needs_approval={flag})])\n"
    )
    linked = analyse({"m.py": code})
    assert _gates_of(linked, "shell.exec") == gated


def test_an_answer_asked_on_one_line_and_compared_on_another_is_a_gate_where_it_is_compared() -> None:
    code = (
        "import shutil\nfrom langchain_core.tools import tool\n\n@tool\ndef wipe(path: str) -> str:\n"
        "    '''Wipe.'''\n    answer = input('sure? ')\n    print(answer)\n"
        "    if answer.strip().lower() == 'yes':\n        shutil.rmtree(path)\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    kinds = {g.id: (g.kind, g.location.line) for g in linked.gates}
    (action,) = linked.actions
    assert [kinds[g] for g in action.gateIds] == [("human_approval", 9)]


# ----- OAuth clients: credentials read through helpers run in threads, a validity gate, API requests ------

_AUTH = (
    "import json\nfrom typing import Optional\nfrom google.oauth2.credentials import Credentials\n"
    "from google.auth.transport.requests import Request\n\n"
    "def load(creds_path: str) -> Optional[Credentials]:\n    with open(creds_path, 'r') as f:\n"
    "        data = json.load(f)\n    return Credentials(token=data['token'])\n\n"
    "def get_credentials(email: str) -> Optional[Credentials]:\n    credentials = load(f'/tmp/{email}.json')\n"
    "    if credentials and credentials.expired:\n        credentials.refresh(Request())\n    return credentials\n"
)
_GMAIL = (
    "import asyncio\nfrom googleapiclient.discovery import build\nfrom mcp.server.fastmcp import FastMCP\n"
    "from auth import get_credentials\n\nmcp = FastMCP('gmail')\n\n@mcp.tool()\n"
    "async def search(query: str, email: str) -> str:\n"
    "    credentials = await asyncio.to_thread(get_credentials, email)\n"
    "    if not credentials or not credentials.valid:\n        return 'authenticate first'\n"
    "    service = build('gmail', 'v1', credentials=credentials)\n"
    "    found = await asyncio.to_thread(service.users().messages().list(userId='me', q=query).execute)\n"
    "    service.users().messages().send(userId='me', body={}).execute()\n    return str(found)\n"
)


def test_an_oauth_helper_run_in_a_thread_a_validity_gate_and_api_requests_passed_by_reference() -> None:
    linked = analyse({"auth.py": _AUTH, "gmail.py": _GMAIL})
    reached = {(a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom}
    assert reached == {
        ("credential.read", "auth.py", 7),  # the token file, opened through a helper the tool runs in a thread
        ("credential.read", "auth.py", 14),  # the token refresh
        ("network.egress", "gmail.py", 14),  # the request passed to to_thread by reference runs there
        ("message.send", "gmail.py", 15),
    }
    kinds = {g.id: (g.kind, g.location.line) for g in linked.gates}
    api = [a for a in linked.actions if a.location.path == "gmail.py"]
    # Both requests run only once the credentials proved valid.
    assert all(("authentication", 11) in [kinds[g] for g in a.gateIds] for a in api)


def test_a_validity_attribute_of_something_else_is_no_gate() -> None:
    code = (
        "import shutil\nfrom langchain_core.tools import tool\n\n@tool\ndef clean(path: str, form: dict) -> str:\n"
        "    '''Clean.'''\n    if not form.valid:\n        return 'no'\n    shutil.rmtree(path)\n    return 'ok'\n"
    )
    assert _gates_of(analyse({"m.py": code}), "file.delete") == [[]]


def test_a_model_id_passed_as_a_parameter_is_read_at_the_callers_of_the_file() -> None:
    code = (
        "import os\nfrom crewai import LLM, Agent\n\nDEFAULT_MODEL = 'openai/gpt-4o-mini'\n\n"
        "def build(model: str) -> Agent:\n    return Agent(role='r', goal='g', backstory='b', llm=LLM(model=model))\n\n"
        "def run() -> None:\n    model = os.getenv('MODEL', DEFAULT_MODEL)\n    build(model)\n\n"
        "def other(model: str) -> LLM:\n    return LLM(model=model)\n\n"
        "other('anthropic/claude-sonnet-4-5')\nother('gpt-4o')\n"
    )
    models = {(m.location.line, m.provider, m.model) for m in analyse({"m.py": code}).models}
    # crewAI names the vendor before a slash; callers that disagree leave the model unnamed.
    assert (7, "openai", "gpt-4o-mini") in models
    assert (14, "unknown", None) in models


def test_a_dataframe_agent_runs_the_python_its_model_writes() -> None:
    code = (
        "from langchain_experimental.agents import create_pandas_dataframe_agent\n"
        "agent = create_pandas_dataframe_agent(llm, df, allow_dangerous_code=True)\n"
    )
    linked = analyse({"m.py": code})
    assert [(f.actionClass, f.sourceKind, f.sink.line) for f in linked.taintFlows] == [("code.exec", "model_output", 2)]


def test_arguments_given_with_a_callback_reach_it() -> None:
    code = (
        "import asyncio\nimport subprocess\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('m')\n\n"
        "def run_cmd(command: str) -> str:\n    return subprocess.run(command, shell=True).stdout\n\n"
        "@mcp.tool()\nasync def shell(command: str) -> str:\n    await asyncio.to_thread(run_cmd, command)\n"
        "    loop = asyncio.get_running_loop()\n"
        "    await loop.run_in_executor(None, subprocess.check_output, command)\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "shell") == {("shell.exec", 8), ("shell.exec", 14)}
    assert sorted((f.sourceKind, f.sink.line) for f in linked.taintFlows) == [
        ("tool_argument", 8),
        ("tool_argument", 14),
    ]


def test_a_shell_tool_whose_executor_cannot_be_named_is_a_tool_and_a_frontier_item() -> None:
    code = (
        "from agents import Agent, ShellTool\n\nagent = Agent(name='a', tools=[ShellTool(executor=make_executor())])\n"
    )
    linked = analyse({"m.py": code})
    assert [(t.name, t.function) for t in linked.tools] == [("shell", None)]
    assert any(f.kind == "unresolved_call" and "tool shell" in f.detail for f in linked.frontier)
