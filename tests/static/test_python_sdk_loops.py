"""Issue 20, Python: plain SDK loops. Tools are JSON schemas (or Gemini function declarations) sent to a
chat or messages API, whatever variable or helper carries them there; each runs what the dispatch of its
name runs (a name -> function table in any file, a class naming itself, a branch on the name)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_SCHEMAS = (
    "SPECS = [\n"
    "    {'type': 'function', 'function': {'name': 'Bash', 'parameters': {'type': 'object',\n"
    "        'properties': {'command': {'type': 'string'}}}}},\n"
    "    {'type': 'function', 'function': {'name': 'Write', 'parameters': {'type': 'object',\n"
    "        'properties': {'path': {'type': 'string'}, 'text': {'type': 'string'}}}}},\n"
    "]\n"
)

_TOOL_CLASSES = (
    "import shlex\n"
    "import subprocess\n\n"
    "ALLOWED = frozenset({'ls', 'cat'})\n\n"
    "class BashTool:\n"
    "    def name(self) -> str:\n"
    "        return 'Bash'\n\n"
    "    def execute(self, arguments):\n"
    "        args = shlex.split(arguments['command'])\n"
    "        if args[0] not in ALLOWED:\n"
    "            raise ValueError('not allowed')\n"
    "        return subprocess.run(args=args, capture_output=True).stdout\n\n"
    "class WriteTool:\n"
    "    @property\n"
    "    def name(self):\n"
    "        'The name the model calls.'\n"
    "        return 'Write'\n\n"
    "    def execute(self, arguments):\n"
    "        with open(arguments['path'], 'w') as f:\n"
    "            f.write(arguments['text'])\n"
)

_LOOP = (
    "import json\n"
    "from openai import OpenAI\n"
    "from app.specs import SPECS\n"
    "from app.tools import BashTool, WriteTool\n\n"
    "class Agent:\n"
    "    def __init__(self, tools):\n"
    "        self.client = OpenAI(base_url='https://example.invalid/v1')\n"
    "        self.tools = {tool.name(): tool for tool in tools}\n\n"
    "    def definitions(self):\n"
    "        specs = SPECS\n"
    "        return specs\n\n"
    "    def step(self, messages):\n"
    "        reply = self.client.chat.completions.create(model='gpt-4o', messages=messages, tools=self.definitions())\n"
    "        for call in reply.choices[0].message.tool_calls or []:\n"
    "            tool = self.tools.get(call.function.name)\n"
    "            if tool:\n"
    "                tool.execute(arguments=json.loads(call.function.arguments))\n\n"
    "agent = Agent([BashTool(), WriteTool()])\n"
)


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def test_schemas_returned_by_a_helper_run_the_classes_that_name_themselves_after_them() -> None:
    linked = analyse({"app/specs.py": _SCHEMAS, "app/tools.py": _TOOL_CLASSES, "app/agent.py": _LOOP})
    # The schemas are the tools, once each: neither the helper's result nor the classes are more tools.
    assert _tools(linked) == [("Bash", "app/specs.py", 2), ("Write", "app/specs.py", 4)]
    assert _reached(linked, "Bash") == {("shell.exec", "app/tools.py", 14)}
    assert _reached(linked, "Write") == {("file.write", "app/tools.py", 23)}
    kinds = {g.id: g.kind for g in linked.gates}
    bash = next(a for a in linked.actions if a.actionClass == "shell.exec")
    assert [kinds[g] for g in bash.gateIds] == ["allowlist"]
    assert ("shell.exec", 14) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    # Everything the model is given is visible: nothing is left as unresolved reach.
    assert not [f for f in linked.frontier if f.kind in ("runtime_registered_tools", "dynamic_dispatch")]


def test_a_tools_argument_naming_an_imported_schema_list_gives_its_schemas_not_a_tool_named_after_it() -> None:
    loop = (
        "from anthropic import Anthropic\n"
        "from app.specs import SPECS\n"
        "from app.tools import BashTool\n\n"
        "client = Anthropic()\n"
        "reply = client.messages.create(model='claude-sonnet-4-5', max_tokens=512, messages=[], tools=SPECS)\n"
    )
    linked = analyse({"app/specs.py": _SCHEMAS, "app/tools.py": _TOOL_CLASSES, "app/main.py": loop})
    assert [t[0] for t in _tools(linked)] == ["Bash", "Write"]


def test_a_name_tied_to_two_implementations_stays_unresolved_reach() -> None:
    other = _TOOL_CLASSES.replace("class BashTool", "class OtherBash").replace("'Write'", "'Other'")
    linked = analyse({"app/specs.py": _SCHEMAS, "app/tools.py": _TOOL_CLASSES, "app/other.py": other})
    bash = next(t for t in linked.tools if t.name == "Bash")
    assert bash.function is None
    assert any(f.kind == "dynamic_dispatch" and "Bash" in f.detail for f in linked.frontier)


def test_gemini_function_declarations_run_what_a_table_in_another_file_maps_their_names_to() -> None:
    files = {
        "agent/functions.py": (
            "import os\n"
            "import subprocess\n"
            "from google.genai import types\n\n"
            "schema_run = types.FunctionDeclaration(\n"
            "    name='run_python_file',\n"
            "    description='Run a Python file',\n"
            "    parameters=types.Schema(type=types.Type.OBJECT, properties={'file_path': types.Schema(type='STRING')}),\n"
            ")\n"
            "schema_list = types.FunctionDeclaration(name='list_files', parameters={'type': 'object'})\n\n"
            "def run_python_file(working_directory, file_path):\n"
            "    return subprocess.run(['python3', file_path], cwd=working_directory).stdout\n\n"
            "def list_files(working_directory, directory='.'):\n"
            "    return os.listdir(os.path.join(working_directory, directory))\n"
        ),
        "agent/calls.py": (
            "from google.genai import types\n"
            "from agent.functions import list_files, run_python_file, schema_list, schema_run\n\n"
            "available = types.Tool(function_declarations=[schema_run, schema_list])\n"
            "FUNCTIONS = {'run_python_file': run_python_file, 'list_files': list_files}\n\n"
            "def call_function(part):\n"
            "    return FUNCTIONS[part.name](working_directory='.', **part.args)\n"
        ),
        "agent/main.py": (
            "from google import genai\n"
            "from google.genai import types\n"
            "from agent.calls import available, call_function\n\n"
            "def main(prompt):\n"
            "    client = genai.Client()\n"
            "    config = types.GenerateContentConfig(tools=[available])\n"
            "    reply = client.models.generate_content(model='gemini-2.0-flash', contents=prompt, config=config)\n"
            "    for part in reply.function_calls or []:\n"
            "        call_function(part)\n"
        ),
    }
    linked = analyse(files)
    # The declarations are the tools; the Tool(...) that holds them is none.
    assert _tools(linked) == [("list_files", "agent/functions.py", 10), ("run_python_file", "agent/functions.py", 5)]
    assert _reached(linked, "run_python_file") == {("shell.exec", "agent/functions.py", 13)}
    assert _reached(linked, "list_files") == {("file.read", "agent/functions.py", 16)}
    assert ("shell.exec", 13) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    assert {(m.provider, m.model) for m in linked.models} >= {("google", "gemini-2.0-flash")}


def test_gemini_declarations_written_as_dicts_are_tools_run_by_the_branch_on_their_name() -> None:
    code = (
        "import os\n"
        "import google.generativeai as genai\n\n"
        "TOOLS = [{'function_declarations': [\n"
        "    {'name': 'delete_file', 'parameters': {'type': 'object', 'properties': {'path': {'type': 'string'}}}},\n"
        "    {'name': 'today', 'description': 'The date'},\n"
        "]}]\n\n"
        "def run(prompt):\n"
        "    model = genai.GenerativeModel('gemini-1.5-pro', tools=TOOLS)\n"
        "    for part in model.generate_content(prompt).parts:\n"
        "        if part.function_call.name == 'delete_file':\n"
        "            os.remove(part.function_call.args['path'])\n"
    )
    linked = analyse({"bot.py": code})
    assert _tools(linked) == [("delete_file", "bot.py", 5), ("today", "bot.py", 6)]
    assert next(t for t in linked.tools if t.name == "delete_file").parameters == ["path"]
    assert _reached(linked, "delete_file") == {("file.delete", "bot.py", 13)}


def test_code_the_model_writes_to_a_file_that_a_shell_then_runs_is_model_output_into_execution() -> None:
    code = (
        "import asyncio\n"
        "import os\n"
        "import venv\n\n"
        "TOOLS = [{'name': 'execute_code', 'description': 'Run Python', 'input_schema': {'type': 'object'}}]\n\n"
        "async def execute_code(code):\n"
        "    venv.create('sandbox_env', with_pip=True)\n"
        "    process_id = f'process_{os.getpid()}'\n"
        "    with open(f'{process_id}.py', 'w') as f:\n"
        "        f.write(code)\n"
        "    proc = await asyncio.create_subprocess_shell(f'sandbox_env/bin/python {process_id}.py')\n"
        "    return await proc.communicate()\n\n"
        "async def execute_tool(name, tool_input):\n"
        "    if name == 'execute_code':\n"
        "        return await execute_code(tool_input['code'])\n"
    )
    linked = analyse({"engineer.py": code})
    assert _reached(linked, "execute_code") == {
        ("file.write", "engineer.py", 8),  # the virtual environment: files on the host, not a sandbox
        ("file.write", "engineer.py", 10),
        ("shell.exec", "engineer.py", 12),
    }
    assert ("shell.exec", 12) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    assert not [g for g in linked.gates if g.kind == "sandbox"]
