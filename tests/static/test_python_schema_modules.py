"""Issue 20, Python: tools written as plain function declarations (``{"name", "description", "parameters"}``)
in modules of their own, each paired with the function that runs it by a record of the agent's registry, and
a person's answer to a terminal prompt, normalised before it is compared, as the gate before a shell."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_SHELL = (
    "import subprocess\n\n"
    "def get_tool_schema():\n"
    "    return {\n"
    "        'name': 'run_shell_command',\n"
    "        'description': 'Run a command after the user says yes.',\n"
    "        'parameters': {'type': 'object', 'properties': {'command': {'type': 'string'}}},\n"
    "    }\n\n"
    "def execute(command: str) -> dict:\n"
    "    print(f'Run {command}? (y/n): ', end='')\n"
    "    response = input().strip().lower()\n"
    "    if response != 'y':\n"
    "        return {'status': 'declined'}\n"
    "    done = subprocess.run(command, shell=True, capture_output=True, text=True)\n"
    "    return {'status': 'ok', 'stdout': done.stdout}\n"
)

_READ = (
    "def get_tool_schema():\n"
    "    return {'name': 'read_file', 'parameters': {'type': 'object', 'properties': {'path': {'type': 'string'}}}}\n\n"
    "def execute(path: str) -> dict:\n"
    "    if not path.strip():\n"
    "        return {'status': 'error'}\n"
    "    with open(path) as f:\n"
    "        return {'status': 'ok', 'content': f.read()}\n"
)

_AGENT = (
    "import anthropic\n"
    "from .tools import read_file, run_shell_command\n\n"
    "class Agent:\n"
    "    def __init__(self):\n"
    "        self.client = anthropic.Anthropic()\n"
    "        self.tools = {\n"
    "            read_file.get_tool_schema()['name']: {'schema': read_file.get_tool_schema(), 'execute': read_file.execute},\n"
    "            run_shell_command.get_tool_schema()['name']: {\n"
    "                'schema': run_shell_command.get_tool_schema(),\n"
    "                'execute': run_shell_command.execute,\n"
    "            },\n"
    "        }\n\n"
    "    def turn(self, messages):\n"
    "        schemas = []\n"
    "        for _name, data in self.tools.items():\n"
    "            schema_copy = data['schema'].copy()\n"
    "            schema_copy['input_schema'] = schema_copy.pop('parameters')\n"
    "            schemas.append(schema_copy)\n"
    "        reply = self.client.messages.create(model='claude-3-5-haiku-latest', max_tokens=512, messages=messages, tools=schemas)\n"
    "        for block in reply.content:\n"
    "            if block.type == 'tool_use':\n"
    "                self.tools[block.name]['execute'](**block.input)\n"
)


def _tree() -> Linked:
    return analyse({"app/agent.py": _AGENT, "app/tools/run_shell_command.py": _SHELL, "app/tools/read_file.py": _READ})


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def test_declarations_returned_by_a_module_run_the_function_the_registry_pairs_them_with() -> None:
    linked = _tree()
    assert sorted((t.name, t.location.path) for t in linked.tools) == [
        ("read_file", "app/tools/read_file.py"),
        ("run_shell_command", "app/tools/run_shell_command.py"),
    ]
    assert next(t for t in linked.tools if t.name == "read_file").parameters == ["path"]
    assert _reached(linked, "run_shell_command") == {("shell.exec", "app/tools/run_shell_command.py", 15)}
    assert _reached(linked, "read_file") == {("file.read", "app/tools/read_file.py", 7)}
    assert ("shell.exec", 15) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    assert not [f for f in linked.frontier if f.kind == "dynamic_dispatch"]


def test_a_normalised_answer_compared_before_the_shell_is_a_persons_approval_and_validation_is_no_gate() -> None:
    linked = _tree()
    kinds = {g.id: (g.kind, g.location.line) for g in linked.gates}
    shell = next(a for a in linked.actions if a.actionClass == "shell.exec")
    assert [kinds[g][0] for g in shell.gateIds] == ["human_approval"]
    assert {kinds[g][1] for g in shell.gateIds} <= {12, 13}
    read = next(a for a in linked.actions if a.actionClass == "file.read")
    assert read.gateIds == []  # ``if not path.strip(): return`` validates input; it asks no one


def test_an_answer_never_compared_decides_nothing() -> None:
    shell = _SHELL.replace(
        "    if response != 'y':\n        return {'status': 'declined'}\n",
        "    if response:\n        print(response)\n",
    )
    linked = analyse({"app/agent.py": _AGENT, "app/tools/run_shell_command.py": shell, "app/tools/read_file.py": _READ})
    action = next(a for a in linked.actions if a.actionClass == "shell.exec")
    assert action.gateIds == []


def test_a_list_of_copies_names_no_tool_after_the_copy_method() -> None:
    linked = _tree()
    assert "copy" not in {t.name for t in linked.tools}
    loop = (
        "import anthropic\n\n"
        "client = anthropic.Anthropic()\n\n"
        "def turn(registry: dict, messages: list) -> None:\n"
        "    schemas = []\n"
        "    for _name, data in registry.items():\n"
        "        schema_copy = data['schema'].copy()\n"
        "        schemas.append(schema_copy)\n"
        "    client.messages.create(model='claude-3-5-haiku-latest', max_tokens=8, messages=messages, tools=schemas)\n"
    )
    alone = analyse({"loop.py": loop})
    assert alone.tools == []
    assert any(f.kind == "runtime_registered_tools" for f in alone.frontier)


def test_only_a_json_schema_of_arguments_makes_a_declaration_and_a_wrapped_one_is_one_tool() -> None:
    data = (
        "JOB = {'name': 'nightly', 'parameters': {'retries': 3}}\n"
        "STEP = {'name': 'resize', 'parameters': 'width=10'}\n"
        "SPEC = {'type': 'function', 'function': {'name': 'search', 'parameters': {'type': 'object',\n"
        "    'properties': {'q': {'type': 'string'}}}}}\n"
    )
    linked = analyse({"specs.py": data})
    assert [(t.name, t.framework) for t in linked.tools] == [("search", "openai")]


def test_a_record_pairing_a_call_with_a_function_makes_no_tool_where_the_call_returns_none() -> None:
    files = {
        "app/jobs.py": "def get_config():\n    return {'retries': 3}\n\ndef run(retries: int) -> None:\n    print(retries)\n",
        "app/main.py": "from . import jobs\n\nREGISTRY = {'config': jobs.get_config(), 'run': jobs.run}\n",
    }
    assert analyse(files).tools == []
