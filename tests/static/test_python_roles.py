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


_LATEX_SERVICE = (
    "import subprocess\n\n"
    "class LatexService:\n"
    "    def render(self, name: str) -> bytes:\n"
    "        subprocess.run(['xelatex', name])\n"
    "        with open(name, 'rb') as f:\n"
    "            return f.read()\n"
)
_CV_PLUGIN = (
    "from semantic_kernel.functions import kernel_function\n"
    "from {module} import LatexService\n\n"
    "class CvPlugin:\n"
    "    @kernel_function(description='Export the CV')\n"
    "    def export_cv(self, file_name: str) -> bytes:\n"
    "        latex = LatexService()\n"
    "        return latex.render(file_name)\n"
)


def test_a_service_class_of_the_tree_re_exported_by_its_package_is_followed_not_taken_for_a_client() -> None:
    # ``services/__init__.py`` re-exports the class; the tool imports it from the package by an absolute name.
    for module in ("services", "services.latex_service"):
        files = {
            "services/__init__.py": "from .latex_service import LatexService\n\n__all__ = ['LatexService']\n",
            "services/latex_service.py": _LATEX_SERVICE,
            "plugins/cv_plugin.py": _CV_PLUGIN.format(module=module),
        }
        linked = analyse(files)
        assert _reached(linked, "CvPlugin-export_cv") == {("shell.exec", 5), ("file.read", 6)}, module
        assert not [a for a in linked.actions if a.actionClass == "network.egress"], module
        assert [(f.sink.path, f.sink.line) for f in linked.taintFlows if f.actionClass == "shell.exec"] == [
            ("services/latex_service.py", 5)
        ]


def test_a_packages_service_class_no_module_of_the_tree_defines_stays_network_egress() -> None:
    files = {
        "services/__init__.py": "from .latex_service import LatexService\n",
        "services/latex_service.py": _LATEX_SERVICE,
        "plugins/cv_plugin.py": _CV_PLUGIN.format(module="acme_render")
        + "\n    @kernel_function(description='Store it')\n"
        "    def store(self, file_name: str) -> str:\n"
        "        from acme_storage import StorageService\n"
        "        return StorageService(api_key='k').upload(file_name)\n",
    }
    linked = analyse(files)
    # ``acme_render.LatexService`` is a package's class of the same name as the tree's: its service's egress.
    (rendered,) = [a for a in linked.actions if a.location.path == "plugins/cv_plugin.py" and a.location.line == 8]
    assert rendered.actionClass == "network.egress" and rendered.target.startswith("acme_render.")
    assert _reached(linked, "CvPlugin-export_cv") == {("network.egress", 8)}
    assert _reached(linked, "CvPlugin-store") == {("network.egress", 13)}


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


def test_a_package_client_made_by_a_factory_or_handed_where_to_connect_is_reach() -> None:
    code = (
        "import httpx\n"
        "from a2a.client import A2ACardResolver, ClientConfig, create_client\n"
        "from haystack.tools import Tool\n\n"
        "async def ask(question: str) -> str:\n"
        "    async with httpx.AsyncClient(timeout=120) as http:\n"
        "        resolver = A2ACardResolver(httpx_client=http, base_url='http://weather')\n"
        "        card = await resolver.get_agent_card()\n"
        "        client = await create_client(agent=card, client_config=ClientConfig(httpx_client=http))\n"
        "        async for part in client.send_message(question):\n"
        "            pass\n"
        "        await client.close()\n"
        "        return 'done'\n\n"
        "ask_tool = Tool(name='ask', description='d', parameters={}, function=ask)\n"
    )
    linked = analyse({"agent.py": code})
    # The card fetch and the message sent; closing the client sends nothing the tool asked for.
    assert _reached(linked, "ask") == {("network.egress", 8), ("network.egress", 10)}


def test_a_client_factory_of_the_tree_is_followed_not_taken_for_a_package() -> None:
    files = {
        "clients.py": (
            "import subprocess\n\n"
            "class Runner:\n"
            "    def send_message(self, text: str) -> None:\n"
            "        subprocess.run(['notify', text])\n\n"
            "def create_client() -> Runner:\n"
            "    return Runner()\n"
        ),
        "tools.py": (
            "from clients import create_client\n"
            "from agents import function_tool\n\n"
            "@function_tool\n"
            "def notify(text: str) -> None:\n"
            "    client = create_client()\n"
            "    client.send_message(text)\n"
        ),
    }
    linked = analyse(files)
    # The tree's own factory is not a package's network client (whether the linker follows its
    # result to Runner.send_message is another matter).
    assert ("network.egress", 7) not in _reached(linked, "notify")
    assert not [a for a in linked.actions if a.actionClass == "network.egress"]


def test_a_strands_module_tool_is_its_tool_spec_named_and_placed_at_the_spec() -> None:
    files = {
        "calendar_tools/__init__.py": "",
        "calendar_tools/delete_entry.py": (
            "import os\n\n"
            "TOOL_SPEC = {\n"
            "    'name': 'delete_entry',\n"
            "    'description': 'Delete an entry.',\n"
            "    'inputSchema': {'json': {'type': 'object', 'properties': {'path': {'type': 'string'}}}},\n"
            "}\n\n"
            "def delete_entry(tool, **kwargs):\n"
            "    os.remove(tool['input']['path'])\n"
            "    return {'toolUseId': tool['toolUseId'], 'status': 'success', 'content': []}\n"
        ),
        "agent.py": (
            "from strands import Agent\n"
            "from calendar_tools import delete_entry\n\n"
            "agent = Agent(tools=[delete_entry])\n"
        ),
    }
    linked = analyse(files)
    # One tool, where its schema names it (not a second one at the function the spec runs).
    assert [(t.name, t.location.path, t.location.line) for t in linked.tools] == [
        ("delete_entry", "calendar_tools/delete_entry.py", 4)
    ]
    assert _reached(linked, "delete_entry") == {("file.delete", 10)}


def test_sql_assembled_only_from_fixed_fragments_is_read_by_its_statement() -> None:
    code = (
        "import sqlite3\n"
        "from agents import function_tool\n\n"
        "@function_tool\n"
        "def update_item(item_id: str, title: str = '', note: str = '') -> str:\n"
        "    fields = []\n"
        "    params = []\n"
        "    if title:\n"
        "        fields.append('title = ?')\n"
        "        params.append(title)\n"
        "    if note:\n"
        "        fields.append('note = ?')\n"
        "        params.append(note)\n"
        "    query = f\"UPDATE items SET {', '.join(fields)} WHERE id = ?\"\n"
        "    conn = sqlite3.connect('items.db')\n"
        "    conn.cursor().execute(query, [*params, item_id])\n"
        "    return 'ok'\n\n"
        "@function_tool\n"
        "def sort_items(column: str) -> str:\n"
        "    query = f'SELECT * FROM items ORDER BY {column}'\n"
        "    conn = sqlite3.connect('items.db')\n"
        "    conn.cursor().execute(query)\n"
        "    return 'ok'\n"
    )
    linked = analyse({"tools.py": code})
    # Every text the UPDATE can take is spelled out in the code: a write, no model-written SQL.
    assert _reached(linked, "update_item") == {("db.write", 16)}
    # A column the model names goes into the text: SQL executed verbatim, with the model's text in it.
    assert _reached(linked, "sort_items") == {("sql.exec", 23)}
    assert [f.sink.line for f in linked.taintFlows if f.actionClass == "sql.exec"] == [23]


def test_a_listed_name_holding_a_package_functions_result_is_no_tool_named_after_the_function() -> None:
    code = (
        "from langchain.agents import create_agent\n"
        "from langgraph_swarm import create_handoff_tool, create_swarm\n\n"
        "def search_hotels(city: str) -> str:\n"
        "    return city\n\n"
        "to_flights = create_handoff_tool(agent_name='flights', description='Transfer to flights')\n"
        "hotels = create_agent('openai:gpt-4o', tools=[search_hotels, to_flights], name='hotels')\n"
    )
    linked = analyse({"agents.py": code})
    assert _tools(linked) == [("search_hotels", 4)]
    # What the factory returns is given to the model, unseen: said so where it is given.
    assert [(f.kind, f.location.line) for f in linked.frontier if f.kind == "runtime_registered_tools"] == [
        ("runtime_registered_tools", 8)
    ]


def test_what_a_call_gives_handed_to_a_tool_class_or_builder_is_no_tool_named_after_the_function_called() -> None:
    files = {
        "db.py": ("import pyodbc\n\nclass Connector:\n    def connect(self):\n        return pyodbc.connect('dsn')\n"),
        "server.py": (
            "import pyodbc\n"
            "from db import Connector\n"
            "from reports import ReportTool\n"
            "from framework import Bot\n\n"
            "conn = pyodbc.connect('dsn')\n"
            "bot = Bot()\n"
            "bot.add_tool(conn)\n\n"
            "class Server:\n"
            "    def setup(self):\n"
            "        self.db = Connector().connect()\n"
            "        self.report = ReportTool(self.db)\n\n"
            "def ping() -> str:\n"
            "    return 'ok'\n\n"
            "def build():\n"
            "    c = pyodbc.connect('dsn')\n"
            "    bot.add_tool(ping)\n"
            "    return ReportTool(c)\n"
        ),
    }
    linked = analyse(files)
    # A connection (what ``connect`` gives) is an object handed over, not ``connect`` itself; a function
    # handed over is still a tool.
    assert _tools(linked) == [("ping", 15)]


def test_an_agent_tool_is_named_after_its_agents_name_whatever_spells_it() -> None:
    files = {
        "sub_agents.py": (
            "from google.adk.agents import LlmAgent\n\n"
            "WRITER = 'story_writer'\n\n"
            "writer_agent = LlmAgent(name=WRITER, model='gemini-2.5-flash', instruction='Write.')\n"
            "critic_agent = LlmAgent(model='gemini-2.5-flash', name='story_critic', output_key='review')\n"
        ),
        "agent.py": (
            "from google.adk.agents import LlmAgent\n"
            "from google.adk.tools.agent_tool import AgentTool\n"
            "from sub_agents import writer_agent, critic_agent\n\n"
            "EDITOR = 'editor'\n"
            "editor_agent = LlmAgent(name=EDITOR, model='gemini-2.5-flash')\n"
            "root_agent = LlmAgent(\n"
            "    name='root', model='gemini-2.5-pro',\n"
            "    tools=[AgentTool(agent=writer_agent), AgentTool(agent=critic_agent), AgentTool(editor_agent)],\n"
            ")\n"
        ),
    }
    linked = analyse(files)
    # Each AgentTool is named as ADK names it, after its agent's name= (a literal or a constant).
    assert _tools(linked) == [("editor", 9), ("story_critic", 9), ("story_writer", 9)]


def test_a_hook_gate_holds_over_a_tool_defined_as_a_tool_elsewhere_only_if_every_agent_giving_it_has_it() -> None:
    tools = (
        "import os\n"
        "from langchain_core.tools import tool\n\n"
        "@tool\n"
        "def delete_file(path: str) -> str:\n"
        "    '''Delete a file.'''\n"
        "    os.remove(path)\n"
        "    return path\n"
    )
    agent = (
        "from google.adk import Agent\n"
        "from tools import delete_file\n\n"
        "def check_path(tool, args, tool_context):\n"
        "    if not args.get('path', '').startswith('/tmp/'):\n"
        "        return {'error': 'refused'}\n"
        "    return None\n\n"
        "guarded = Agent(name='guarded', model='gemini-2.0-flash', tools=[delete_file], before_tool_callback=check_path)\n"
    )
    linked = analyse({"tools.py": tools, "agent.py": agent})
    assert _tools(linked) == [("delete_file", 5)]
    assert _gate_kinds(linked, "delete_file", "file.delete") == ["permission_check"]
    # Given to a second agent without the hook, the tool can run unchecked.
    unguarded = agent + "free = Agent(name='free', model='gemini-2.0-flash', tools=[delete_file])\n"
    assert _gate_kinds(analyse({"tools.py": tools, "agent.py": unguarded}), "delete_file", "file.delete") == []
    # The same in one file.
    one = tools + agent.replace("from tools import delete_file\n", "")
    assert _gate_kinds(analyse({"app.py": one}), "delete_file", "file.delete") == ["permission_check"]
    one_free = tools + unguarded.replace("from tools import delete_file\n", "")
    assert _gate_kinds(analyse({"app.py": one_free}), "delete_file", "file.delete") == []
    assert len(analyse({"app.py": one_free}).tools) == 1


def test_claude_agent_sdk_hooks_budgets_and_in_process_servers() -> None:
    code = (
        "from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, create_sdk_mcp_server, tool\n\n"
        "@tool('add', 'Add two numbers', {'a': float, 'b': float})\n"
        "async def add_numbers(args):\n"
        "    return {'content': [{'type': 'text', 'text': str(args['a'] + args['b'])}]}\n\n"
        "async def check_bash(input_data, tool_use_id, context):\n"
        "    if 'rm ' in input_data['tool_input'].get('command', ''):\n"
        "        return {'hookSpecificOutput': {'permissionDecision': 'deny'}}\n"
        "    return {}\n\n"
        "async def log_output(input_data, tool_use_id, context):\n"
        "    print(input_data)\n\n"
        "def options():\n"
        "    calculator = create_sdk_mcp_server(name='calculator', version='1.0.0', tools=[add_numbers])\n"
        "    return ClaudeAgentOptions(\n"
        "        mcp_servers={'calc': calculator},\n"
        "        allowed_tools=['Bash', 'Write', 'mcp__calc__add'],\n"
        "        hooks={\n"
        "            'PreToolUse': [HookMatcher(matcher='Bash', hooks=[check_bash])],\n"
        "            'PostToolUse': [HookMatcher(matcher=None, hooks=[log_output])],\n"
        "        },\n"
        "        max_budget_usd=0.10,\n"
        "    )\n"
    )
    linked = analyse({"agent.py": code})
    # The in-process server's tool is named as the model sees it, under the key it is mounted at.
    assert _tools(linked) == [("Bash", 19), ("Write", 19), ("mcp__calc__add", 4)]
    # The PreToolUse hook gates the tool its matcher names; the budget every tool; a PostToolUse hook nothing.
    assert _gate_kinds(linked, "Bash", "shell.exec") == ["permission_check", "spend_limit"]
    assert _gate_kinds(linked, "Write", "file.write") == ["spend_limit"]


def test_an_agent_framework_function_middleware_that_can_stop_a_call_gates_every_tool() -> None:
    code = (
        "import os\n"
        "from agent_framework import Agent, FunctionInvocationContext, MiddlewareTermination, chat_middleware, "
        "function_middleware, tool\n"
        "from agent_framework.openai import OpenAIChatClient\n\n"
        "@function_middleware\n"
        "async def no_system_paths(context: FunctionInvocationContext, call_next):\n"
        "    if str(getattr(context.arguments, 'path', '')).startswith('/etc'):\n"
        "        raise MiddlewareTermination(result='refused')\n"
        "    await call_next()\n\n"
        "@chat_middleware\n"
        "async def no_secrets(context, call_next):\n"
        "    if 'password' in context.messages[-1].text:\n"
        "        raise MiddlewareTermination(result='refused')\n"
        "    await call_next()\n\n"
        "@tool(approval_mode='never_require')\n"
        "def delete_file(path: str) -> str:\n"
        "    os.remove(path)\n"
        "    return path\n\n"
        "agent = Agent(client=OpenAIChatClient(model='gpt-4o-mini'), tools=[delete_file], middleware=[no_secrets])\n"
        "guarded = Agent(client=OpenAIChatClient(model='gpt-4o-mini'), tools=[delete_file], middleware=[no_system_paths])\n"
    )
    linked = analyse({"agent.py": code})
    # A chat middleware filters what the model reads, not tool calls: only the second agent is gated, so
    # the tool, given to both, is not gated on every path.
    assert _gate_kinds(linked, "delete_file", "file.delete") == []
    guarded_only = code.replace(
        "agent = Agent(client=OpenAIChatClient(model='gpt-4o-mini'), tools=[delete_file], middleware=[no_secrets])\n",
        "",
    )
    assert _gate_kinds(analyse({"agent.py": guarded_only}), "delete_file", "file.delete") == ["permission_check"]
    assert [(m.provider, m.model) for m in analyse({"agent.py": guarded_only}).models] == [("openai", "gpt-4o-mini")]


def test_tools_handed_to_an_agent_after_it_is_built_are_tools_of_its_model() -> None:
    # OpenAI Swarm and look-alikes: an agent's functions list assigned, extended or appended to after the
    # agent is made gives its model those functions as tools, as the constructor's functions= does.
    code = (
        "import sqlite3\n"
        "from swarm import Agent\n\n"
        "def refund(item_id):\n"
        "    sqlite3.connect('shop.db').execute('DELETE FROM orders WHERE id = ?', (item_id,))\n\n"
        "def transfer_to_sales():\n"
        "    return sales\n\n"
        "def transfer_back():\n"
        "    return triage\n\n"
        "def lookup(q):\n"
        "    return q\n\n"
        "triage = Agent(name='Triage')\n"
        "sales = Agent(name='Sales', functions=[lookup])\n"
        "triage.functions = [transfer_to_sales]\n"
        "sales.functions.append(transfer_back)\n"
        "sales.functions += [refund]\n"
        "profile = {'functions': []}\n"
        "profile['functions'].append(lookup)\n"
    )
    linked = analyse({"agents.py": code})
    assert _tools(linked) == [("lookup", 13), ("refund", 4), ("transfer_back", 10), ("transfer_to_sales", 7)]
    assert _reached(linked, "refund") == {("db.write", 5)}


def test_a_plain_object_given_functions_after_it_is_built_gives_no_tools() -> None:
    # The same spelling on a class of the tree or a dict is no model's tool list.
    code = (
        "class Menu:\n"
        "    functions = []\n\n"
        "def show():\n"
        "    return 'menu'\n\n"
        "menu = Menu()\n"
        "menu.functions = [show]\n"
        "menu.functions.append(show)\n"
    )
    assert analyse({"menu.py": code}).tools == []


def test_the_agent_sdk_under_its_earlier_package_name_gives_built_in_tools_their_effects() -> None:
    # claude-code-sdk is the Claude Agent SDK before its rename: the same built-ins behind the same names.
    earlier = (
        "from claude_code_sdk import ClaudeCodeOptions\n\noptions = ClaudeCodeOptions(allowed_tools=['Bash', 'Read'])\n"
    )
    linked = analyse({"m.py": earlier})
    assert _tools(linked) == [("Bash", 3), ("Read", 3)]
    assert _reached(linked, "Bash") == {("shell.exec", 3)}
    assert _reached(linked, "Read") == {("file.read", 3)}
    assert ("shell.exec", 3) in {(f.actionClass, f.sink.line) for f in linked.taintFlows}
    # Another package's options naming the same strings are not the SDK's built-ins: no effect is given them.
    other = "from other_agents import Options\n\noptions = Options(allowed_tools=['Bash', 'Read'])\n"
    assert analyse({"m.py": other}).actions == []


def _permission_options(check_body: str, hook: bool = False) -> str:
    register = (
        "options = ClaudeAgentOptions(allowed_tools=['Read', 'Write'], "
        "hooks={'PreToolUse': [HookMatcher(matcher='Write', hooks=[check])]})\n"
        if hook
        else "options = ClaudeAgentOptions(allowed_tools=['Read', 'Write'], can_use_tool=check)\n"
    )
    return (
        "from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, PermissionResultAllow, PermissionResultDeny\n\n"
        "def refuse(reason):\n"
        "    return {'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny',"
        " 'permissionDecisionReason': reason}}\n\n"
        "async def check(tool_name, input_data, context):\n" + check_body + "\n" + register
    )


def test_a_permission_callback_or_pre_tool_hook_gates_tools_only_when_it_can_return_a_refusal() -> None:
    denies = (
        "    if tool_name == 'Write' and input_data.get('file_path', '').startswith('/system/'):\n"
        "        return PermissionResultDeny(message='system directory')\n"
        "    return PermissionResultAllow()\n"
    )
    asks = (
        "    if input('Allow? ') != 'y':\n"
        "        return {'behavior': 'deny', 'message': 'refused'}\n"
        "    return {'behavior': 'allow', 'updatedInput': input_data}\n"
    )
    for body in (denies, asks):
        linked = analyse({"m.py": _permission_options(body)})
        assert _gate_kinds(linked, "Write", "file.write") == ["permission_check"]
    # A callback that only looks (it logs and lets every call through) refuses nothing: no gate.
    looks = "    print(tool_name, input_data)\n    return PermissionResultAllow(updated_input=input_data)\n"
    linked = analyse({"m.py": _permission_options(looks)})
    assert _gate_kinds(linked, "Write", "file.write") == [] and linked.gates == []
    # A PreToolUse hook refuses through a helper building the refusal; one returning {} on every path does not.
    helper = "    if input_data['tool_input'].get('file_path', '').endswith('.env'):\n        return refuse('env')\n    return {}\n"
    linked = analyse({"m.py": _permission_options(helper, hook=True)})
    assert _gate_kinds(linked, "Write", "file.write") == ["permission_check"]
    assert _gate_kinds(linked, "Read", "file.read") == []  # the matcher names Write only
    logs = "    print(input_data['tool_name'])\n    return {}\n"
    assert analyse({"m.py": _permission_options(logs, hook=True)}).gates == []


def test_an_agent_handed_over_by_as_tool_without_a_name_is_named_as_its_framework_names_it() -> None:
    code = (
        "import os\n"
        "from agent_framework import ChatAgent\n"
        "from agent_framework.azure import AzureOpenAIChatClient\n"
        "from agents import Agent\n\n"
        "def rm(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "weather = AzureOpenAIChatClient().create_agent(name='Weather Agent', tools=[rm])\n"
        "main = ChatAgent(chat_client=AzureOpenAIChatClient(), tools=[weather.as_tool()])\n"
        "research = Agent(name='Research Agent', tools=[rm])\n"
        "lead = Agent(name='lead', tools=[research.as_tool()])\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("Weather_Agent", 10), ("research_agent", 12), ("rm", 6)]
    assert _reached(linked, "Weather_Agent") == {("file.delete", 7)}
    assert _reached(linked, "research_agent") == {("file.delete", 7)}


def test_as_tool_without_a_name_names_no_tool_it_cannot_name() -> None:
    code = (
        "import os\n"
        "from agent_framework import ChatAgent\n"
        "from acme import Bot\n\n"
        "def rm(path: str) -> None:\n"
        "    os.remove(path)\n\n"
        "nameless = ChatAgent(tools=[rm])\n"
        "bot = Bot(name='bot', tools=[rm])\n"
        "main = ChatAgent(name='main', tools=[nameless.as_tool(), bot.as_tool()])\n\n"
        "def build(nameless):\n"
        "    return ChatAgent(name='inner', tools=[nameless.as_tool()])\n"
    )
    linked = analyse({"m.py": code})
    assert _tools(linked) == [("rm", 5)]
