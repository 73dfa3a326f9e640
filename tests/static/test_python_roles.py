"""Issue 20, Python: tools by the role a name plays (a schema handed to a model), actions by their effect,
gates wherever frameworks put them, for frameworks no rule of the pack spells out."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, int]]:
    return sorted((t.name, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _gate_kinds(linked: Linked, tool: str, action_class: str) -> list[str]:
    ids = {t.id for t in linked.tools if t.name == tool}
    kinds = {g.id: g.kind for g in linked.gates}
    found: list[str] = []
    for action in linked.actions:
        for path in action.reachedFrom:
            if path.toolId in ids and action.actionClass == action_class:
                found += [kinds[g] for g in path.gateIds]
    return sorted(found)


def test_decorators_whose_name_denotes_a_tool_make_tools_named_as_the_framework_names_them() -> None:
    code = (
        "import os, subprocess\n"
        "from strands import tool\n"
        "from semantic_kernel.functions import kernel_function\n"
        "from browser_use import Tools\n"
        "from some_new_framework import tool as nf_tool\n\n"
        "tools = Tools()\n"
        "registry = tools.registry\n\n"
        "@tool\n"
        "def run(cmd: str) -> str:\n"
        "    return subprocess.run(cmd, shell=True, capture_output=True).stdout\n\n"
        "class FilesPlugin:\n"
        "    @kernel_function(description='Delete a file')\n"
        "    def delete(self, path: str) -> None:\n"
        "        os.remove(path)\n\n"
        "@registry.action('Save text to a file')\n"
        "def save(text: str) -> None:\n"
        "    open('out.txt', 'a').write(text)\n\n"
        "@nf_tool('Search the internet')\n"
        "def search(q: str) -> str:\n"
        "    return q\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [
        ("FilesPlugin-delete", 16),  # Semantic Kernel: <Plugin>-<function>
        ("Search the internet", 24),  # the decorator's positional name
        ("run", 11),
        ("save", 20),  # browser-use: the positional string is a description, the name is the function's
    ]
    assert _reached(linked, "run") == {("shell.exec", 12)}
    assert _reached(linked, "FilesPlugin-delete") == {("file.delete", 17)}
    assert _reached(linked, "save") == {("file.write", 21)}
    assert {(f.actionClass, f.sink.line) for f in linked.taintFlows} >= {("shell.exec", 12)}


def test_approval_switches_a_confirming_pre_hook_and_a_domain_filter_are_gates_over_the_tool() -> None:
    code = (
        "import os\n"
        "from rich.prompt import Prompt\n"
        "from agno.tools import tool\n"
        "from browser_use import Tools\n\n"
        "tools = Tools()\n\n"
        "def confirm(fc):\n"
        "    if Prompt.ask('Run it?') != 'y':\n"
        "        raise RuntimeError('cancelled')\n\n"
        "@tool(requires_confirmation=True)\n"
        "def purge(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "@tool(pre_hook=confirm)\n"
        "def wipe(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "@tool(approval_mode='never_require')\n"
        "def unguarded(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "@tools.action('Delete on the intranet only', domains=['intranet.example.com'])\n"
        "def intranet_delete(path: str) -> None:\n"
        "    os.remove(path)\n"
    )
    linked = analyse({"m.py": code})
    assert _gate_kinds(linked, "purge", "file.delete") == ["human_approval"]
    assert _gate_kinds(linked, "wipe", "file.delete") == ["human_approval"]
    assert _gate_kinds(linked, "unguarded", "file.delete") == []
    assert _gate_kinds(linked, "intranet_delete", "file.delete") == ["allowlist"]


def test_a_tools_parameter_of_an_unknown_framework_lists_tools_and_keeps_what_it_cannot_enumerate_visible() -> None:
    code = (
        "import shutil\n"
        "from acme_agents import Brain\n"
        "from acme_agents.toolbox import WeatherLookup\n\n"
        "def clear_cache(path: str) -> None:\n"
        "    shutil.rmtree(path)\n\n"
        "brain = Brain(model='gpt-4o', functions=[clear_cache], skills=[WeatherLookup()])\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("clear_cache", 5)]
    assert _reached(linked, "clear_cache") == {("file.delete", 6)}
    (item,) = [f for f in linked.frontier if f.kind == "runtime_registered_tools"]
    assert "Brain(skills=...)" in item.detail and "WeatherLookup()" in item.detail
    assert item.location is not None and item.location.line == 8


def test_what_a_tools_parameter_cannot_enumerate_is_quoted_on_one_line_cut_at_a_token_boundary() -> None:
    code = (
        "from acme_agents import Brain\n"
        "from acme_agents.toolbox import WeatherLookup\n\n"
        "brain = Brain(skills=[WeatherLookup(region_identifier_for_the_lookup='northwesterneuropeandthenorthernislands')])\n"
    )
    linked = analyse({"m.py": code})
    (item,) = [f for f in linked.frontier if f.kind == "runtime_registered_tools"]
    quoted = item.detail.split("enumerate (", 1)[1].rsplit(")", 1)[0]
    assert quoted == "WeatherLookup(region_identifier_for_the_lookup=…"
    assert "\n" not in item.detail


def test_sdk_built_in_tools_named_as_strings_carry_their_effect_and_a_task_tool_reaches_its_subagents() -> None:
    code = (
        "from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions\n\n"
        "agents = {\n"
        "    'analyst': AgentDefinition(description='d', prompt='p', tools=['Read', 'Bash']),\n"
        "}\n"
        "options = ClaudeAgentOptions(allowed_tools=['Task', 'mcp__calc__add'], agents=agents)\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("Bash", 4), ("Read", 4), ("Task", 6)]  # mcp__ names are an MCP server's tools
    assert _reached(linked, "Bash") == {("shell.exec", 4)}
    assert _reached(linked, "Read") == {("file.read", 4)}
    assert _reached(linked, "Task") == {("shell.exec", 4), ("file.read", 4)}
    assert ("shell.exec", 4) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}  # commands the model writes


def test_an_inner_agent_prompted_inside_a_tool_reaches_what_its_library_tools_reach() -> None:
    code = (
        "from strands import Agent, tool\n"
        "from strands_tools import shell, python_repl\n\n"
        "@tool\n"
        "def write_code(task: str) -> str:\n"
        "    agent = Agent(tools=[shell])\n"
        "    return str(agent(task))\n\n"
        "@tool\n"
        "def execute(code: str) -> str:\n"
        "    agent = Agent(tools=[python_repl])\n"
        "    return agent.tool.python_repl(code=code)\n"
    )
    linked = analyse({"m.py": code})
    assert ("shell.exec", 6) in _reached(linked, "write_code")
    assert ("code.exec", 11) in _reached(linked, "execute")
    assert ("code.exec", 11) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}


def test_a_code_executor_configured_on_an_agent_runs_model_written_code() -> None:
    code = (
        "from google.adk.agents import Agent\n"
        "from google.adk.code_executors import VertexAiCodeExecutor, UnsafeLocalCodeExecutor\n\n"
        "sandboxed = Agent(name='a', code_executor=VertexAiCodeExecutor())\n"
        "local = Agent(name='b', code_executor=UnsafeLocalCodeExecutor())\n"
    )
    linked = analyse({"m.py": code})
    kinds = {g.id: g.kind for g in linked.gates}
    found = sorted((a.actionClass, a.location.line, [kinds[g] for g in a.gateIds]) for a in linked.actions)
    assert found == [("code.exec", 4, ["sandbox"]), ("code.exec", 5, [])]
    assert sorted((f.sourceKind, f.sink.line) for f in linked.taintFlows) == [("model_output", 4), ("model_output", 5)]


def test_a_method_of_a_third_party_client_object_is_network_egress_naming_the_package() -> None:
    code = (
        "from acme_cloud import WidgetClient\n"
        "from langchain_core.tools import tool\n\n"
        "client = WidgetClient(token='t')\n\n"
        "@tool\n"
        "def archive(widget_id: str) -> str:\n"
        '    """Archive a widget."""\n'
        "    return client.widgets.archive(widget_id)\n"
    )
    linked = analyse({"m.py": code})
    (action,) = [a for a in linked.actions if a.location.line == 9]
    assert action.actionClass == "network.egress" and action.target.startswith("acme_cloud.")
    assert _reached(linked, "archive") == {("network.egress", 9)}


def test_tool_classes_named_in_their_constructor_and_agents_given_as_tools() -> None:
    code = (
        "import os\n"
        "from agents import Agent\n"
        "from mylib.base import Tool\n\n"
        "class FileWriteTool(Tool):\n"
        "    def __init__(self):\n"
        "        super().__init__(name='file_write', description='Write a file', input_schema={})\n\n"
        "    async def execute(self, path: str, content: str) -> str:\n"
        "        with open(path, 'w') as f:\n"
        "            f.write(content)\n"
        "        return 'ok'\n\n"
        "analyst = Agent(name='analyst')\n"
        "writer = Agent(name='writer', tools=[analyst.as_tool(tool_name='analysis', tool_description='d')])\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("analysis", 15), ("file_write", 7)]
    assert _reached(linked, "file_write") == {("file.write", 10)}


def test_builder_methods_and_tool_constructors_of_any_package_hand_the_tree_s_functions_over() -> None:
    code = (
        "import os\n"
        "from google.adk.agents import Agent\n"
        "from google.adk.tools import FunctionTool\n"
        "from acme import Bot\n\n"
        "def rm(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "def ls(path: str) -> list:\n"
        "    return os.listdir(path)\n\n"
        "bot = Bot()\n"
        "bot.add_tool(ls)\n"
        "agent = Agent(name='a', tools=[FunctionTool(func=rm)])\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("ls", 9), ("rm", 6)]
    assert _reached(linked, "rm") == {("file.delete", 7)}
    assert _reached(linked, "ls") == {("file.read", 10)}
    assert not [f for f in linked.frontier if f.kind == "runtime_registered_tools"]


def test_an_agent_handed_over_as_a_tool_is_named_after_it_and_reaches_its_tools_across_modules() -> None:
    files = {
        "research/__init__.py": "from . import agent\n",
        "research/agent.py": (
            "from google.adk.agents import LlmAgent\n"
            "from google.adk.tools.agent_tool import AgentTool\n"
            "from .sub_agents.shell import shell_agent\n\n"
            "coordinator = LlmAgent(name='coordinator', model='gemini-2.5-pro', tools=[AgentTool(agent=shell_agent)])\n"
        ),
        "research/sub_agents/__init__.py": "",
        "research/sub_agents/shell/__init__.py": "from .agent import shell_agent\n",
        "research/sub_agents/shell/agent.py": (
            "import subprocess\n"
            "from google.adk import Agent\n\n"
            "def run_command(cmd: str) -> str:\n"
            "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n\n"
            "shell_agent = Agent(name='shell_runner', model='gemini-2.0-flash', tools=[run_command])\n"
        ),
    }
    linked = analyse(files)
    assert ("shell_runner", 5) in _tools(linked)  # ADK names an AgentTool after its agent's name=
    assert _reached(linked, "shell_runner") == {("shell.exec", 5)}
    assert sorted((m.provider, m.model) for m in linked.models) == [
        ("google", "gemini-2.0-flash"),
        ("google", "gemini-2.5-pro"),
    ]


def test_a_tool_running_a_module_level_agent_reaches_what_that_agents_tools_reach() -> None:
    files = {
        "assistant.py": (
            "from strands import Agent, tool\n"
            "from strands.models import BedrockModel\n"
            "from strands_tools import shell\n"
            "from calendar_tools import create_event\n\n"
            "@tool\n"
            "def helper(query: str) -> str:\n"
            "    return str(agent(query))\n\n"
            "agent = Agent(model=BedrockModel(model_id='us.anthropic.claude-sonnet-4'), tools=[shell, create_event])\n"
        ),
        # A module handed over as a tool (Strands): its function of the same name.
        "calendar_tools/create_event.py": (
            "import sqlite3\n"
            "from strands import tool\n\n"
            "@tool\n"
            "def create_event(title: str) -> str:\n"
            "    sqlite3.connect('events.db').execute('INSERT INTO events (title) VALUES (?)', (title,))\n"
            "    return title\n"
        ),
    }
    linked = analyse(files)
    assert ("create_event", 5) in _tools(linked) and ("helper", 7) in _tools(linked)
    assert _reached(linked, "helper") == {("shell.exec", 10), ("db.write", 6)}
    assert [(m.provider, m.model) for m in linked.models] == [("bedrock", "us.anthropic.claude-sonnet-4")]


def test_a_before_tool_callback_that_can_refuse_gates_every_tool_of_its_agent() -> None:
    code = (
        "import os\n"
        "from google.adk import Agent\n\n"
        "def delete_file(path: str) -> str:\n"
        "    os.remove(path)\n"
        "    return path\n\n"
        "def check_path(tool, args, tool_context):\n"
        "    if not args.get('path', '').startswith('/tmp/'):\n"
        "        return {'error': 'refused'}\n"
        "    return None\n\n"
        "def log_call(tool, args, tool_context):\n"
        "    print(tool.name, args)\n\n"
        "guarded = Agent(name='guarded', model='gemini-2.0-flash', tools=[delete_file], before_tool_callback=check_path)\n"
    )
    linked = analyse({"m.py": code})
    assert _gate_kinds(linked, "delete_file", "file.delete") == ["permission_check"]
    # A callback that only logs cannot refuse a call: no gate holds over the tool.
    logged = code.replace("before_tool_callback=check_path", "before_tool_callback=log_call")
    assert _gate_kinds(analyse({"m.py": logged}), "delete_file", "file.delete") == []


def test_a_semantic_kernel_plugin_registered_under_a_name_offers_its_functions_under_that_name() -> None:
    files = {
        "plugins/files.py": (
            "import os\n"
            "from semantic_kernel.functions import kernel_function\n\n"
            "class FilesPlugin:\n"
            "    @kernel_function(description='Delete a file')\n"
            "    def delete(self, path: str) -> None:\n"
            "        os.remove(path)\n"
        ),
        "app.py": (
            "from semantic_kernel import Kernel\n"
            "from plugins.files import FilesPlugin\n\n"
            "kernel = Kernel()\n"
            "kernel.add_plugin(FilesPlugin(), plugin_name='fs')\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("fs-delete", 6)]
    assert _reached(linked, "fs-delete") == {("file.delete", 7)}
    # Registered without a name, the plugin is named after its class.
    files["app.py"] = files["app.py"].replace(
        "kernel.add_plugin(FilesPlugin(), plugin_name='fs')", "kernel.add_plugin(FilesPlugin())"
    )
    assert _tools(analyse(files)) == [("FilesPlugin-delete", 6)]


def test_functions_registered_in_a_loop_and_actions_on_a_registry_made_inside_a_function_are_tools() -> None:
    files = {
        "tools.py": (
            "def sandbox_bash(command: str) -> str:\n"
            "    from e2b_code_interpreter import Sandbox\n"
            "    sandbox = Sandbox.create()\n"
            "    return sandbox.commands.run(command).stdout\n\n"
            "def sandbox_read(path: str) -> str:\n"
            "    from e2b_code_interpreter import Sandbox\n"
            "    sandbox = Sandbox.create()\n"
            "    return sandbox.files.read(path)\n"
        ),
        "register.py": (
            "from letta_client import Letta\n"
            "from tools import sandbox_bash, sandbox_read\n\n"
            "def register(client: Letta) -> None:\n"
            "    pairs = [(sandbox_bash, None), (sandbox_read, None)]\n"
            "    for func, schema in pairs:\n"
            "        client.tools.upsert_from_function(func=func, args_schema=schema)\n"
        ),
        "browse.py": (
            "import os\n"
            "from browser_use import Agent, Tools\n\n"
            "async def main() -> None:\n"
            "    tools = Tools()\n\n"
            "    @tools.action('Delete a downloaded file')\n"
            "    async def delete_download(path: str) -> str:\n"
            "        os.remove(path)\n"
            "        return path\n\n"
            "    await Agent(task='t', tools=tools).run()\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("delete_download", 8), ("sandbox_bash", 1), ("sandbox_read", 6)]
    assert _reached(linked, "sandbox_bash") == {("shell.exec", 4)}  # a shell command, in the E2B sandbox
    assert _gate_kinds(linked, "sandbox_read", "file.read") == ["sandbox"]
    assert _reached(linked, "delete_download") == {("file.delete", 9)}


def test_a_client_another_module_builds_is_reach_where_its_methods_are_called() -> None:
    files = {
        "config.py": (
            "import os\n"
            "from tavily import TavilyClient\n\n"
            "def get_search_client():\n"
            "    return TavilyClient(api_key=os.getenv('TAVILY_API_KEY'))\n"
        ),
        "tools.py": (
            "from config import get_search_client\n\n"
            "search_client = get_search_client()\n\n"
            "def web_search(query: str) -> list[str]:\n"
            "    return [r['content'] for r in search_client.search(query)['results']]\n"
        ),
        "agent.py": "import dspy\nfrom tools import web_search\n\nagent = dspy.ReAct('question -> answer', tools=[web_search])\n",
    }
    linked = analyse(files)
    assert _tools(linked) == [("web_search", 5)]
    assert _reached(linked, "web_search") == {("network.egress", 6)}  # TavilyClient.search, a network service
