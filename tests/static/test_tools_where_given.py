"""Issue 20, tool precision and recall on code the engine had not seen: a tool is what a model is given to call.

A tool-shaped schema literal whose every use only shapes a reply, checks data or takes a part of it is no tool,
while one sent to a model (or with no use in its file) stays one; a record pairing a function with its argument
schema is a tool of that function; a Semantic Kernel agent placed in another agent's plugins is a tool named
``<agent>-<agent>``; a tool factory's result under a key of a model's tool set is that tool, also when the
factory is given an object of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files


def _tools(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(t["name"], t["location"]["path"], t["location"]["line"]) for t in bundle["tools"]}


PY_DATA_SCHEMAS = """
import json
import jsonschema
from google import genai
from google.genai import types
from openai import OpenAI

client = OpenAI()
gemini = genai.Client()

CREATE_USER = {"name": "create_user", "description": "x", "parameters": {"type": "object", "properties": {}}}
INVOICE = {"name": "extract_invoice", "description": "x", "parameters": {"type": "object", "properties": {}}}
EXPORTED = [{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]


def check(payload):
    jsonschema.validate(payload, CREATE_USER["parameters"])


def extract(text):
    config = types.GenerateContentConfig(response_schema=INVOICE["parameters"])
    return gemini.models.generate_content(model="gemini-2.0-flash", contents=text, config=config)


def export(path):
    with open(path, "w") as f:
        json.dump(EXPORTED, f)


def report(text):
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "user", "content": text}],
        response_format={"type": "json_schema", "json_schema": {"name": "report", "parameters": {"type": "object"}}},
    )
"""

PY_GIVEN_SCHEMAS = """
from openai import OpenAI

client = OpenAI()

LOOKUP = {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}
SEARCH = {"name": "search_docs", "description": "x", "parameters": {"type": "object", "properties": {}}}
UNUSED = {"name": "archive_docs", "description": "x", "parameters": {"type": "object", "properties": {}}}


def run(text):
    print(SEARCH)
    prompt = f"You may call: {SEARCH}"
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}], tools=[LOOKUP])
"""


def test_a_schema_that_only_shapes_or_checks_data_is_no_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"schemas.py": PY_DATA_SCHEMAS})
    assert _tools(bundle) == set()


def test_a_schema_given_to_a_model_or_left_unused_stays_a_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"given.py": PY_GIVEN_SCHEMAS})
    assert {name for name, _, _ in _tools(bundle)} == {"lookup_order", "search_docs", "archive_docs"}


JS_DATA_SCHEMAS = """
import Ajv from "ajv";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const client = new Anthropic();
const openai = new OpenAI();
const ajv = new Ajv();

const CREATE_USER = { name: "create_user", description: "x", input_schema: { type: "object", properties: {} } };
export const check = ajv.compile(CREATE_USER.input_schema);

const tools = [{ name: "get_weather", description: "x", input_schema: { type: "object", properties: {} } }];
export async function count() {
  return client.messages.countTokens({ model: "claude-sonnet-4-5", tools, messages: [] });
}

export async function report() {
  return openai.chat.completions.create({
    model: "gpt-4o",
    messages: [],
    response_format: { type: "json_schema", json_schema: { type: "function", function: { name: "report" } } },
  });
}
"""

JS_GIVEN_SCHEMAS = """
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();
const tools = [{ name: "get_weather", description: "x", input_schema: { type: "object", properties: {} } }];
export const shared = [{ name: "get_time", description: "x", input_schema: { type: "object", properties: {} } }];

export async function ask() {
  console.log(tools);
  return client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 100, tools, messages: [] });
}
"""


def test_a_js_schema_that_only_shapes_or_checks_data_is_no_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"schemas.ts": JS_DATA_SCHEMAS})
    assert _tools(bundle) == set()


def test_a_js_schema_given_to_a_model_or_exported_stays_a_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"given.ts": JS_GIVEN_SCHEMAS})
    assert {name for name, _, _ in _tools(bundle)} == {"get_weather", "get_time"}


PY_RECORDS = """
import subprocess
from openai import OpenAI
from pydantic import BaseModel, Field

client = OpenAI()


class RunParams(BaseModel):
    command: str = Field(description="the command")


def run_command(command: str) -> str:
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


def loop(query, tools):
    table = {t["function"].__name__: t for t in tools}
    prompt = f"Tools: {[t['function'].__name__ for t in tools]}"
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt + query}])
    name, args = reply.choices[0].message.content.split(" ", 1)
    return table[name]["function"](args)


TOOLS = [{"function": run_command, "parameters": RunParams}]
COMMANDS = {"build": {"function": run_command, "help": "build the project"}}
"""


def test_a_record_pairing_a_function_with_its_schema_is_that_functions_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"loop.py": PY_RECORDS})
    # The record with an argument schema is a tool, at the function's def; the CLI table (``help``) is none.
    assert _tools(bundle) == {("run_command", "loop.py", 13)}
    assert ("shell.exec", "loop.py", 14) in actions_reached(bundle, "run_command")


SK_AGENTS = """
from semantic_kernel.agents import ChatCompletionAgent
from semantic_kernel.connectors.ai.open_ai import AzureChatCompletion

billing_agent = ChatCompletionAgent(service=AzureChatCompletion(), name="BillingAgent", instructions="Billing.")
helper = ChatCompletionAgent(service=AzureChatCompletion(), instructions="No name.")

triage_agent = ChatCompletionAgent(
    service=AzureChatCompletion(),
    name="TriageAgent",
    instructions="Route.",
    plugins=[billing_agent, helper],
)
"""


def test_an_agent_in_another_agents_plugins_is_a_tool_named_after_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agents.py": SK_AGENTS})
    # ``helper`` has no name: Semantic Kernel would name it at run time, out of sight; the triage agent is
    # given tools, not made one.
    assert _tools(bundle) == {("BillingAgent-BillingAgent", "agents.py", 5)}


TOOL_FACTORY = """
import { tool } from "ai";
import { z } from "zod";

export const makeDoc = ({ session, stream }: { session: string; stream: unknown }) =>
  tool({
    description: "Make a doc",
    inputSchema: z.object({ title: z.string() }),
    execute: async ({ title }) => fetch(`https://docs.example.com/${session}/${title}`),
  });
"""

TOOL_ROUTE = """
import { streamText, createUIMessageStream } from "ai";
import { openai } from "@ai-sdk/openai";
import { makeDoc } from "@/lib/make-doc";
import { auth } from "@/lib/auth";

export async function POST() {
  const session = await auth();
  return createUIMessageStream({
    execute: async ({ writer: stream }) => {
      streamText({ model: openai("gpt-4o"), prompt: "x", tools: { makeDoc: makeDoc({ session, stream }) } });
    },
  });
}
"""

AUTH = """
export async function auth() {
  return "session";
}
"""


def test_a_factory_tool_given_an_object_of_its_own_is_the_tool_under_its_key(tmp_path: Path) -> None:
    files = {"lib/make-doc.ts": TOOL_FACTORY, "app/route.ts": TOOL_ROUTE, "lib/auth.ts": AUTH}
    bundle = scan_files(tmp_path, files)
    assert _tools(bundle) == {("makeDoc", "app/route.ts", 11)}
    assert ("network.egress", "lib/make-doc.ts", 9) in actions_reached(bundle, "makeDoc")


PY_GENERATED_AND_CALLS = """
from openai import OpenAI
from pydantic import BaseModel, Field

client = OpenAI()


class Params(BaseModel):
    city: str = Field(description="the city")


class Tool:
    def __init__(self, function, parameters=None, help=None):
        self.function, self.parameters, self.help = function, parameters, help


def lookup(city: str) -> str:
    return city


def helper(city: str) -> str:
    return city


class Notes:
    def tools(self):
        def load_note(name: str) -> str:
            return name

        return [Tool(function=load_note, parameters=Params), Tool(function=helper, help="not for a model")]


TOOLS = [{"name": "lookup_city", "description": "Find a city", "parameters": Params.model_json_schema()}]
REPLY = {"name": "reply_shape", "parameters": Params.model_json_schema()}


def run(text):
    prompt = f"Tools: {TOOLS}"
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt + text}], response_format=REPLY)
"""


def test_generated_schemas_and_the_codes_own_tool_calls_make_tools(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"gen.py": PY_GENERATED_AND_CALLS})
    # A declaration whose schema a pydantic model generates is a tool (not when it only shapes the reply);
    # the code's own ``Tool(function=f, parameters=P)`` is ``f``'s tool, at its def, not one given only ``help``.
    assert _tools(bundle) == {("lookup_city", "gen.py", 33), ("load_note", "gen.py", 27)}


NO_ARGUMENT_CLIENTS = """
from semantic_kernel.connectors.ai.open_ai import AzureChatCompletion
from somepkg.models import LocalChatModel
from widgets import Widget

service = AzureChatCompletion()
local = LocalChatModel()
widget = Widget()
"""


def test_a_client_class_built_with_no_argument_is_a_model_use_when_its_name_says_whose(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"clients.py": NO_ARGUMENT_CLIENTS})
    # The model comes from the environment; a class that names no vendor, or no model client, records nothing.
    assert {(m["provider"], m["model"], m["location"]["line"]) for m in bundle["models"]} == {("azure_openai", None, 6)}
