"""LangChain / LangGraph applications as they are written (issue 20): tools handed to an agent through a
parameter of the tree's own class, a library module reached through another module's import, the
LangGraph pause before the tools node, and LangChain.js tools that are classes extending the library's
tool classes, whose services are typed through an interface of another file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files


def _gated(bundle: dict[str, Any], tool: str) -> set[str]:
    """The kinds of the gates on every path from the named tool to its actions."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    kinds = {g["id"]: g["kind"] for g in bundle["gates"]}
    return {
        kinds[g]
        for a in bundle["actions"]
        for p in a.get("reachedFrom", [])
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


SHELL_TOOLKIT = """
import pexpect


def execute(command: str) -> str:
    \"\"\"Run a command.\"\"\"
    child = pexpect.spawn(command)
    return child.read().decode()


def get_shell_toolkit():
    return [execute]
"""

USERS_TOOLKIT = """
from toolkits.shell_toolkit import pexpect


def add_user(name: str) -> str:
    \"\"\"Add a user.\"\"\"
    child = pexpect.spawn(f"sudo useradd {name}")
    return "done"


def get_users_toolkit():
    return [add_user]
"""

REACT = """
from langchain_ollama import ChatOllama
from langgraph.prebuilt import create_react_agent


class ReactAgent:
    def __init__(self, model, tools, config, pause=True):
        self.llm = ChatOllama(model=model).bind_tools(tools)
        self.agent = create_react_agent(model=self.llm, tools=tools, interrupt_before=["tools"])
"""

FACTORY = """
from toolkits.shell_toolkit import get_shell_toolkit
from toolkits.users_toolkit import get_users_toolkit
from .react import ReactAgent


def agent_factory(name, config):
    toolkit = []
    if name == "Shell":
        toolkit = get_shell_toolkit()
    elif name == "Users":
        toolkit = get_users_toolkit()
    return ReactAgent("llama3.2", toolkit, config)
"""


def _os_agent(react: str = REACT, factory: str = FACTORY) -> dict[str, str]:
    return {
        "toolkits/__init__.py": "",
        "toolkits/shell_toolkit.py": SHELL_TOOLKIT,
        "toolkits/users_toolkit.py": USERS_TOOLKIT,
        "agents/__init__.py": "",
        "agents/react.py": react,
        "agents/factory.py": factory,
    }


def test_tools_given_through_a_parameter_are_what_every_call_gives_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _os_agent())
    assert {(t["name"], t["location"]["path"]) for t in bundle["tools"]} == {
        ("execute", "toolkits/shell_toolkit.py"),
        ("add_user", "toolkits/users_toolkit.py"),
    }
    assert ("shell.exec", "toolkits/shell_toolkit.py", 7) in actions_reached(bundle, "execute")


def test_a_parameter_no_call_fills_is_no_tool_but_said(tmp_path: Path) -> None:
    files = _os_agent(factory="def nothing():\n    return None\n")
    bundle = scan_files(tmp_path, files)
    assert bundle["tools"] == []
    said = [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]
    assert said and "agents.react.ReactAgent" in said[0]["detail"]
    assert "#" not in said[0]["detail"]


def test_a_library_module_imported_through_another_module_is_that_library(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _os_agent())
    assert ("shell.exec", "toolkits/users_toolkit.py", 7) in actions_reached(bundle, "add_user")
    sinks = {(f["sink"]["path"], f["sink"]["line"]) for f in bundle["taintFlows"]}
    assert ("toolkits/users_toolkit.py", 7) in sinks


def test_a_module_of_the_tree_imported_through_another_is_not_a_library(tmp_path: Path) -> None:
    files = {
        "helpers/__init__.py": "",
        "helpers/pexpect.py": "def spawn(command):\n    return command\n",
        "tools/__init__.py": "",
        "tools/base.py": "from helpers import pexpect\n",
        "tools/agent.py": (
            "from langgraph.prebuilt import create_react_agent\n"
            "from tools.base import pexpect\n\n\n"
            "def run(command: str) -> str:\n"
            '    """Echo."""\n'
            "    return pexpect.spawn(command)\n\n\n"
            "agent = create_react_agent(None, tools=[run])\n"
        ),
    }
    bundle = scan_files(tmp_path, files)
    assert [t["name"] for t in bundle["tools"]] == ["run"]
    assert actions_reached(bundle, "run") == set()


def test_the_pause_before_the_tools_node_gates_the_tools_not_the_binding(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _os_agent())
    assert _gated(bundle, "execute") == {"human_approval"}
    assert _gated(bundle, "add_user") == {"human_approval"}


def test_no_pause_or_a_pause_elsewhere_is_no_gate(tmp_path: Path) -> None:
    for interrupt in ('interrupt_after=["tools"]', 'interrupt_before=["agent"]', ""):
        react = REACT.replace('interrupt_before=["tools"]', interrupt).replace("tools=tools, )", "tools=tools)")
        bundle = scan_files(
            tmp_path / (interrupt[:16] or "none").replace("=", "_").replace('"', ""), _os_agent(react=react)
        )
        assert _gated(bundle, "execute") == set(), interrupt


MAIL_TOOL = """
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { MailService } from "./mail.service";

export class MailSendTool extends DynamicStructuredTool {
  constructor(settings: { host: string }) {
    super({
      name: "Send Email",
      description: "Send an email",
      schema: z.object({ to: z.string(), text: z.string() }),
      func: async ({ to, text }) => {
        await new MailService(settings).send(to, text);
        return "sent";
      },
    });
  }
}
"""

MAIL_SERVICE = """
import * as nodemailer from "nodemailer";

export class MailService {
  constructor(private settings: { host: string }) {}
  async send(to: string, text: string) {
    const transporter = nodemailer.createTransport({ host: this.settings.host });
    await transporter.sendMail({ to, text });
  }
}
"""

STORAGE_TOOLKIT = """
import { StorageService } from "./storage.service";

export interface StorageToolSettings {
  storage: StorageService;
}
"""

STORAGE_SERVICE = """
import axios from "axios";

export class StorageService {
  async remove(name: string) {
    await axios.delete(`${process.env.SERVER_URL}/files/${name}`);
  }
}
"""

STORAGE_TOOL = """
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { StorageToolSettings } from "./storage.toolkit";

export class StorageDeleteTool extends DynamicStructuredTool {
  constructor(settings: StorageToolSettings) {
    super({
      name: "Delete File",
      description: "Delete a file",
      schema: z.object({ name: z.string() }),
      func: async ({ name }) => settings.storage.remove(name),
    });
  }
}
"""


def test_a_class_extending_a_library_tool_class_is_the_tool_its_super_call_makes(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"mail-send.tool.ts": MAIL_TOOL, "mail.service.ts": MAIL_SERVICE})
    assert [(t["name"], t["location"]["path"]) for t in bundle["tools"]] == [("Send Email", "mail-send.tool.ts")]
    assert ("message.send", "mail.service.ts", 8) in actions_reached(bundle, "Send Email")


def test_a_class_extending_another_library_class_makes_no_tool(tmp_path: Path) -> None:
    text = MAIL_TOOL.replace("DynamicStructuredTool", "EventEmitter").replace("@langchain/core/tools", "events")
    bundle = scan_files(tmp_path, {"mail-send.tool.ts": text, "mail.service.ts": MAIL_SERVICE})
    assert bundle["tools"] == []


def test_a_service_typed_through_an_interface_of_another_file_is_followed(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "storage.toolkit.ts": STORAGE_TOOLKIT,
            "storage.service.ts": STORAGE_SERVICE,
            "storage-delete.tool.ts": STORAGE_TOOL,
        },
    )
    assert ("network.egress", "storage.service.ts", 6) in actions_reached(bundle, "Delete File")


def test_an_untyped_property_of_the_interface_is_not_guessed(tmp_path: Path) -> None:
    toolkit = STORAGE_TOOLKIT.replace("storage: StorageService;", "storage: any;")
    bundle = scan_files(
        tmp_path,
        {"storage.toolkit.ts": toolkit, "storage.service.ts": STORAGE_SERVICE, "storage-delete.tool.ts": STORAGE_TOOL},
    )
    assert actions_reached(bundle, "Delete File") == set()
