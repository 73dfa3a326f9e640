"""Message classes a model is offered by registering them on an agent (Langroid ``ToolMessage`` +
``agent.enable_message``), and models chosen by a ``chat_model=`` keyword: what the bundle reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.static.scanned import actions_reached, scan_files

TOOLS = """
import webbrowser
from langroid.agent.tool_message import ToolMessage


class OpenWebsiteTool(ToolMessage):
    request = "open_website"
    purpose = "To open <url> in a new browser tab."
    url: str

    def handle(self) -> str:
        webbrowser.open_new_tab(self.url)
        return "opened"


class AnswerTool(ToolMessage):
    request = "answer_tool"
    purpose = "Present the <answer>"
    answer: str


class DocSearchTool(ToolMessage):
    request = "doc_search"
    purpose = "Search the docs"
    query: str

    def handle(self) -> str:
        webbrowser.open_new_tab("https://docs.example.com/?q=" + self.query)
        return "searched"
"""


def _names(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(t["name"], t["location"]["path"], t["location"]["line"]) for t in bundle["tools"]}


def test_a_registered_message_class_is_a_tool_named_by_its_request(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "tools.py": TOOLS,
            "main.py": (
                "import langroid as lr\n"
                "from tools import OpenWebsiteTool, AnswerTool\n"
                "agent = lr.ChatAgent(lr.ChatAgentConfig())\n"
                "agent.enable_message([OpenWebsiteTool])\n"
                "agent.enable_message(AnswerTool, use=False, handle=True)\n"
            ),
        },
    )
    assert _names(bundle) == {("open_website", "tools.py", 7)}
    assert actions_reached(bundle, "open_website") == {("network.egress", "tools.py", 12)}


def test_a_message_class_nobody_offers_is_no_tool_and_its_effect_is_reached_by_none(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "tools.py": TOOLS,
            "main.py": (
                "import langroid as lr\n"
                "from tools import OpenWebsiteTool, DocSearchTool\n"
                "agent = lr.ChatAgent(lr.ChatAgentConfig())\n"
                "agent.enable_message(OpenWebsiteTool, use=False, handle=True)\n"
            ),
        },
    )
    assert bundle["tools"] == []
    egress = [a for a in bundle["actions"] if a["actionClass"] == "network.egress"]
    assert egress and all(not a.get("reachedFrom") for a in egress)


def test_the_agent_method_named_after_the_tool_handles_it_when_a_subclass_lists_the_tools(tmp_path: Path) -> None:
    """``self.enable_message(self.register_tools())`` in a base agent: the tools a subclass's override returns
    are offered, and the subclass's method named after the request (taking the class) runs each call."""
    bundle = scan_files(
        tmp_path,
        {
            "tools.py": TOOLS,
            "plugin.py": (
                "import langroid as lr\n"
                "class PluginAgent(lr.ChatAgent):\n"
                "    def __init__(self, config):\n"
                "        super().__init__(config)\n"
                "        self.enable_message(self.register_tools())\n"
                "    def register_tools(self):\n"
                "        return None\n"
            ),
            "browser.py": (
                "import subprocess\n"
                "from plugin import PluginAgent\n"
                "from tools import DocSearchTool\n"
                "class BrowserAgent(PluginAgent):\n"
                "    def register_tools(self):\n"
                "        return [DocSearchTool]\n"
                "    def doc_search(self, msg: DocSearchTool) -> str:\n"
                "        return subprocess.run(['xdg-open', msg.query]).stdout\n"
            ),
        },
    )
    assert _names(bundle) == {("doc_search", "tools.py", 23)}
    assert ("shell.exec", "browser.py", 8) in actions_reached(bundle, "doc_search")


def test_library_message_classes_are_tools_of_the_library_name_where_registered(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "main.py": (
                "import langroid as lr\n"
                "from langroid.agent.tools.orchestration import PassTool\n"
                "from langroid.agent.tools.duckduckgo_search_tool import DuckduckgoSearchTool\n"
                "agent = lr.ChatAgent(lr.ChatAgentConfig())\n"
                "agent.enable_message([lr.agent.tools.RecipientTool.create(['a', 'b']), PassTool])\n"
                "agent.enable_message(DuckduckgoSearchTool)\n"
                "helper = lr.ChatAgent(lr.ChatAgentConfig())\n"
                "helper.enable_message(DuckduckgoSearchTool, use=False)\n"
            ),
        },
    )
    assert {(name, line) for name, _, line in _names(bundle)} == {
        ("recipient_message", 5),
        ("pass_tool", 5),
        ("duckduckgo_search", 6),
    }
    assert actions_reached(bundle, "duckduckgo_search") == {("network.egress", "main.py", 6)}


def test_a_chat_model_keyword_names_the_model_a_configuration_calls(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "config.py": (
                "import langroid.language_models as lm\n"
                "LOCAL = lm.OpenAIGPTConfig(chat_model='ollama/llama3.1:8b', temperature=0.2)\n"
                "def hosted(model: str = ''):\n"
                "    return lm.OpenAIGPTConfig(chat_model=model or lm.OpenAIChatModel.GPT4o)\n"
                "DEFAULT = lm.OpenAIGPTConfig(max_output_tokens=100)\n"
                "OTHER = lm.OpenAIGPTConfig(chat_model=lm.SomeVendorModel.LATEST)\n"
            ),
        },
    )
    models = {(m["provider"], m.get("model"), m["location"]["line"]) for m in bundle["models"]}
    assert models == {("ollama", "llama3.1:8b", 2), ("openai", "gpt-4o", 4)}
