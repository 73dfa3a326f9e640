"""Issue 20, frameworks no rule of the pack names (the held-out probe): tools recognised by what a model is
handed (a decorator giving a function's description and input schema; a class of a package's tool base
that names its tool and runs it), actions by where a package object connects (a keyword naming a host or
URL), and one tool per construct (the options object of a tool-building call is not a second tool). Each
source is written by hand the way such frameworks spell it, under names no rule lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyfix import analyse
from scanned import actions_reached, scan_files

from assay.backend.engines.static.link import Linked


def _py_tools(linked: Linked) -> list[tuple[str, int]]:
    return sorted((t.name, t.location.line) for t in linked.tools)


def _py_reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _ts_tools(bundle: dict[str, Any]) -> list[tuple[str, str, int]]:
    return sorted((t["name"], t["location"]["path"], t["location"]["line"]) for t in bundle["tools"])


# --- Python: a decorator that hands a model a function's description and input schema ----------------------

DESCRIBED = (
    "import subprocess\n"  # 1
    "from acme_agents.decorators import capability\n"  # 2
    "from schema import Schema\n"  # 3
    "\n"  # 4
    "class ShellKit:\n"  # 5
    "    @capability(config={'description': 'Run a command', 'schema': Schema({'command': str})})\n"  # 6
    "    def run(self, params: dict) -> str:\n"  # 7
    "        return subprocess.run(params['values']['command'], shell=True).stdout\n"  # 8
    "\n"  # 9
    "@capability(description='Fetch a page', parameters={'url': {'type': 'string'}})\n"  # 10
    "def fetch(url: str) -> str:\n"  # 11
    "    return url\n"  # 12
)


def test_a_decorator_handing_a_description_and_an_input_schema_makes_a_tool_whatever_it_is_called() -> None:
    linked = analyse({"m.py": DESCRIBED})
    assert _py_tools(linked) == [("fetch", 11), ("run", 7)]
    assert ("shell.exec", 8) in _py_reached(linked, "run")


def test_a_decorator_giving_only_a_description_or_only_a_schema_makes_no_tool() -> None:
    code = (
        "import subprocess\n"
        "from fastapi import FastAPI\n"
        "from acme_validation import validates\n"
        "app = FastAPI()\n\n"
        "@app.get('/run', description='Run the nightly job')\n"
        "def nightly() -> None:\n"
        "    subprocess.run(['make', 'nightly'])\n\n"
        "@validates(schema={'type': 'object'})\n"
        "def check(doc: dict) -> bool:\n"
        "    return bool(doc)\n"
    )
    assert _py_tools(analyse({"m.py": code})) == []


def test_griptape_activities_are_named_tool_then_activity_as_griptape_names_native_tools() -> None:
    code = (
        "import smtplib\n"  # 1
        "from griptape.tools import BaseTool\n"  # 2
        "from griptape.utils.decorators import activity\n"  # 3
        "from schema import Literal, Schema\n"  # 4
        "\n"  # 5
        "class MailTool(BaseTool):\n"  # 6
        "    @activity(config={'description': 'Send mail', 'schema': Schema({Literal('to'): str})})\n"  # 7
        "    def send(self, params: dict) -> None:\n"  # 8
        "        with smtplib.SMTP('localhost') as client:\n"  # 9
        "            client.sendmail('me', [params['values']['to']], 'hi')\n"  # 10
    )
    linked = analyse({"m.py": code})
    assert _py_tools(linked) == [("MailTool_send", 8)]
    assert ("message.send", 10) in _py_reached(linked, "MailTool_send")


# --- Python: a package object handed where to connect -------------------------------------------------------


def test_a_package_object_built_with_a_host_or_url_keyword_is_a_client_whose_calls_leave_the_process() -> None:
    code = (
        "from acme_mail.loaders import InboxReader\n"  # 1
        "from strands import tool\n"  # 2
        "\n"  # 3
        "reader = InboxReader(imap_url='imap.example.com', username='u', password='p')\n"  # 4
        "\n"  # 5
        "@tool\n"  # 6
        "def inbox(label: str) -> list:\n"  # 7
        "    return reader.load(label)\n"  # 8
    )
    assert ("network.egress", 8) in _py_reached(analyse({"m.py": code}), "inbox")


def test_a_package_object_built_without_where_to_connect_is_no_client() -> None:
    code = (
        "from acme_text.formatting import Formatter\n"
        "from strands import tool\n\n"
        "fmt = Formatter(style='plain', width=80)\n\n"
        "@tool\n"
        "def render(text: str) -> str:\n"
        "    return fmt.load(text)\n"
    )
    assert _py_reached(analyse({"m.py": code}), "render") == set()


# --- TypeScript: classes of a package's tool base, and one tool per construct --------------------------------

CLASS_TOOLS = """import { Tool, StringToolOutput } from "acme-agents/tools/base";
import { Component } from "acme-ui";
import { z } from "zod";

export class LookupTool extends Tool<StringToolOutput> {
  name = "Lookup";
  description = "Looks a book up.";
  inputSchema() {
    return z.object({ title: z.string() });
  }
  protected async _run(input: { title: string }) {
    const res = await fetch(`https://books.example.com/?q=${input.title}`);
    return new StringToolOutput(await res.text());
  }
}

export class Describer extends Component {
  name = "Describer";
  description = "Describes things.";
  schema = z.object({ thing: z.string() });
  async execute(input: { thing: string }) {
    return input.thing;
  }
}

export class NotFound extends Error {
  name = "NotFound";
}

export class Panel extends Component {
  name = "panel";
  description = "A panel.";
  render() {
    return null;
  }
}
"""


def test_a_class_of_a_package_tool_base_naming_its_tool_is_a_tool_reaching_what_it_runs(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.ts": CLASS_TOOLS})
    # LookupTool: a base named as a tool; Describer: a description and an input schema of its own.
    assert [t[0] for t in _ts_tools(bundle)] == ["Describer", "Lookup"]
    assert ("network.egress", "tools.ts", 12) in actions_reached(bundle, "Lookup")


def test_classes_that_only_carry_a_name_or_run_nothing_are_not_tools(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.ts": CLASS_TOOLS})
    names = {t[0] for t in _ts_tools(bundle)}
    assert "NotFound" not in names  # an error class's name field
    assert "panel" not in names  # a description and no schema, no method a framework runs a tool in


DYNAMIC = """import { DynamicTool, StringToolOutput } from "acme-agents/tools/base";
import { z } from "zod";

export const clock = new DynamicTool({
  name: "Clock",
  description: "Tells the time.",
  inputSchema: z.object({}),
  async handler() {
    return new StringToolOutput(new Date().toISOString());
  },
});
"""

REGISTRY = """import { z } from "zod";
import { execSync } from "node:child_process";

export const definitions = [
  {
    name: "run",
    description: "Runs a command.",
    inputSchema: { type: "object", properties: { cmd: { type: "string" } } },
    handler: async (args: { cmd: string }) => execSync(args.cmd).toString(),
  },
];
"""


def test_the_options_object_of_a_tool_building_call_is_that_tool_not_a_second_one(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"clock.ts": DYNAMIC})
    assert [t[0] for t in _ts_tools(bundle)] == ["Clock"]


def test_a_tool_definition_literal_outside_any_tool_call_is_still_a_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"defs.ts": REGISTRY})
    assert [t[0] for t in _ts_tools(bundle)] == ["run"]


# --- Python: a package's decorators read on a module object, and decorator calls that name a model -----------


def test_a_tool_decorator_of_a_package_module_object_makes_a_tool_when_the_tree_has_no_such_module() -> None:
    code = (
        "import subprocess\n"  # 1
        "from acme_llm import llm\n"  # 2
        "\n"  # 3
        "@llm.tool\n"  # 4
        "def shell(cmd: str) -> str:\n"  # 5
        "    return subprocess.run(cmd, shell=True).stdout\n"  # 6
    )
    linked = analyse({"m.py": code})
    assert _py_tools(linked) == [("shell", 5)]
    assert ("shell.exec", 6) in _py_reached(linked, "shell")


def test_the_same_decorator_on_an_object_the_tree_binds_to_no_tool_registry_makes_no_tool() -> None:
    files = {
        "app.py": "from acme import Registry\nregistry = Registry()\n",
        "m.py": "import subprocess\nfrom app import registry\n\n@registry.tool\ndef f(c: str):\n    return subprocess.run(c)\n",
    }
    assert _py_tools(analyse(files)) == []


def test_a_decorator_call_naming_a_vendor_model_and_listing_tools_is_a_model_use_handing_over_those_tools() -> None:
    code = (
        "import subprocess\n"  # 1
        "from acme_llm import llm\n"  # 2
        "\n"  # 3
        "def shell(cmd: str) -> str:\n"  # 4
        "    return subprocess.run(cmd, shell=True).stdout\n"  # 5
        "\n"  # 6
        "@llm.call('openai/gpt-5-mini', tools=[shell])\n"  # 7
        "def assistant(q: str) -> str:\n"  # 8
        "    return q\n"  # 9
    )
    linked = analyse({"m.py": code})
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [("openai", "gpt-5-mini", 7)]
    assert _py_tools(linked) == [("shell", 4)]
    assert ("shell.exec", 5) in _py_reached(linked, "shell")


def test_a_vendor_slash_string_in_an_ordinary_call_is_a_hub_repository_not_a_model_use() -> None:
    code = "from transformers import AutoModel\nm = AutoModel.from_pretrained('openai/whisper-large-v3')\n"
    assert analyse({"m.py": code}).models == []
