"""Clients a tool reaches through what helpers build, hold and pass (issue 20, TypeScript round): a parameter
typed by a package's client type (``apiClient: AxiosInstance``) is that package's client; a type alias of a
factory's result (``type SlackClient = ReturnType<typeof createSlackClient>``) names the factory, in its module
and in those importing it; a module holding only a client, imported through a path alias (``~/utils/db``), is
found; ExcelJS writes and reads files; every Slack Web API method talks to Slack. Types the code does not tie
to a client stay unknown: no action is made up for them."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

AXIOS_HELPER = """
import axios from "axios";
export function createAxiosInstance(token: string) {
  return axios.create({ baseURL: "https://api.example.com", headers: { Authorization: `Bearer ${token}` } });
}
"""

MCP_SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createAxiosInstance } from "./http";
import { registerUsers } from "./users";
const server = new McpServer({ name: "users", version: "1.0.0" });
registerUsers(server, createAxiosInstance("t"));
"""


def _users(param_type: str, imported: str) -> str:
    return f"""
import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
{imported}
import {{ z }} from "zod";
export function registerUsers(server: McpServer, apiClient: {param_type}) {{
  server.tool("get_user", "Get a user", {{ id: z.string() }}, async ({{ id }}) => {{
    const response = await apiClient.get("/users/" + id);
    return {{ content: [{{ type: "text", text: JSON.stringify(response.data) }}] }};
  }});
}}
"""


def test_a_parameter_typed_as_the_packages_client_is_that_client(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "http.ts": AXIOS_HELPER,
            "server.ts": MCP_SERVER,
            "users.ts": _users("AxiosInstance", 'import { AxiosInstance } from "axios";'),
        },
    )
    assert actions_reached(bundle, "get_user") == {("network.egress", "users.ts", 7)}


def test_a_parameter_typed_by_another_type_of_the_package_is_no_client(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "http.ts": AXIOS_HELPER,
            "server.ts": MCP_SERVER,
            "users.ts": _users("AxiosRequestConfig", 'import { AxiosRequestConfig } from "axios";'),
        },
    )
    assert actions_reached(bundle, "get_user") == set()


SLACK = """
import { WebClient } from "@slack/web-api";
export type SlackClient = ReturnType<typeof createSlackClient>;
export interface SlackLike {
  sendMessage(text: string, channel: string): Promise<unknown>;
  inviteToChannel(user: string, channel: string): Promise<unknown>;
}
export function createSlackClient(token?: string) {
  const client = new WebClient(token);
  async function sendMessage(text: string, channel: string) {
    return client.chat.postMessage({ channel, text });
  }
  async function inviteToChannel(user: string, channel: string) {
    return client.conversations.invite({ channel, users: user });
  }
  return { sendMessage, inviteToChannel };
}
"""


def _slack_tools(client_type: str) -> str:
    return f"""
import {{ tool }} from "ai";
import {{ z }} from "zod";
import {{ {client_type} }} from "./slack";
export const createSendMessage = (client: {client_type}, channel: string) =>
  tool({{
    description: "Send a message",
    parameters: z.object({{ message: z.string() }}),
    execute: async ({{ message }}) => {{
      client.sendMessage(message, channel);
      return {{ ok: true }};
    }},
  }});
export const createInvite = (client: {client_type}, channel: string) =>
  tool({{
    description: "Invite someone",
    parameters: z.object({{ name: z.string() }}),
    execute: async ({{ name }}) => {{
      client.inviteToChannel(name, channel);
      return {{ ok: true }};
    }},
  }});
"""


SLACK_AGENT = """
import { openai } from "@ai-sdk/openai";
import { generateText } from "ai";
import { createInvite, createSendMessage } from "./tools";
import { createSlackClient } from "./slack";
const client = createSlackClient(process.env.SLACK_BOT_TOKEN);
export async function answer(channel: string, prompt: string) {
  const { text } = await generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: { sendMessage: createSendMessage(client, channel), inviteToChannel: createInvite(client, channel) },
  });
  return text;
}
"""


def test_a_factorys_result_type_alias_leads_to_the_functions_it_returns(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"slack.ts": SLACK, "tools.ts": _slack_tools("SlackClient"), "agent.ts": SLACK_AGENT})
    assert actions_reached(bundle, "sendMessage") == {("message.send", "slack.ts", 11)}
    assert actions_reached(bundle, "inviteToChannel") == {("network.egress", "slack.ts", 14)}


def test_an_interface_of_the_same_members_names_no_factory(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"slack.ts": SLACK, "tools.ts": _slack_tools("SlackLike"), "agent.ts": SLACK_AGENT})
    assert actions_reached(bundle, "sendMessage") == set()
    assert actions_reached(bundle, "inviteToChannel") == set()


def _task_tool(db_module: str) -> dict[str, str]:
    return {
        "tsconfig.json": '{ "compilerOptions": { "baseUrl": ".", "paths": { "~/*": ["./src/*"] } } }',
        "src/utils/db.ts": db_module,
        "src/actions/createTask.ts": """'use server'
import { db } from '~/utils/db'
export async function createTask({ title }: { title: string }) {
  return db.task.create({ data: { title } })
}
""",
        "src/agent.ts": """
import { openai } from "@ai-sdk/openai";
import { generateText, tool } from "ai";
import { z } from "zod";
import { createTask } from "~/actions/createTask";
export async function run(prompt: string) {
  return generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: {
      createTask: tool({
        description: "Create a task",
        parameters: z.object({ title: z.string() }),
        execute: async ({ title }) => JSON.stringify(await createTask({ title })),
      }),
    },
  });
}
""",
    }


def test_a_module_holding_only_a_client_is_found_through_a_path_alias(tmp_path: Path) -> None:
    files = _task_tool("import { PrismaClient } from '@prisma/client'\n\nexport const db = new PrismaClient()\n")
    bundle = scan_files(tmp_path, files)
    assert actions_reached(bundle, "createTask") == {("db.write", "src/actions/createTask.ts", 4)}


def test_a_value_of_unknown_type_in_that_module_stays_unknown(tmp_path: Path) -> None:
    files = _task_tool("import { makeDb } from './make'\n\nexport const db = makeDb()\n")
    files["src/utils/make.ts"] = "export function makeDb() {\n  return { task: { create: (x: unknown) => x } }\n}\n"
    bundle = scan_files(tmp_path, files)
    assert actions_reached(bundle, "createTask") == set()


EXPORT = """
import { tool } from "ai";
import { z } from "zod";
import ExcelJS from "exceljs";
export const exportTool = tool({
  description: "Export rows",
  parameters: z.object({ rows: z.array(z.string()) }),
  execute: async ({ rows }) => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("rows");
    rows.forEach((r) => sheet.addRow([r]));
    const buffer = await workbook.xlsx.writeBuffer();
    await workbook.xlsx.writeFile("/tmp/rows.xlsx");
    return buffer.byteLength;
  },
});
"""


def test_exceljs_writes_a_file_and_its_buffers_stay_in_the_process(tmp_path: Path) -> None:
    agent = (
        'import { generateText } from "ai";\nimport { openai } from "@ai-sdk/openai";\n'
        'import { exportTool } from "./export";\n'
        'export const run = (prompt: string) => generateText({ model: openai("gpt-4o"), prompt, '
        "tools: { exportRows: exportTool } });\n"
    )
    bundle = scan_files(tmp_path, {"export.ts": EXPORT, "agent.ts": agent})
    assert actions_reached(bundle, "exportRows") == {("file.write", "export.ts", 13)}


def _mailer(param_type: str) -> str:
    return f"""
import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import nodemailer, {{ type {param_type} }} from "nodemailer";
import {{ createClient, type SupabaseClient }} from "@supabase/supabase-js";
import {{ z }} from "zod";
export function registerMail(server: McpServer, transporter: {param_type}, supabase: SupabaseClient) {{
  server.tool("send_mail", "Send a mail", {{ to: z.string(), text: z.string() }}, async ({{ to, text }}) => {{
    await transporter.sendMail({{ to, text }});
    await supabase.from("sent").insert({{ to }});
    return {{ content: [{{ type: "text", text: "sent" }}] }};
  }});
}}
const server = new McpServer({{ name: "mail", version: "1.0.0" }});
registerMail(server, nodemailer.createTransport({{}}), createClient("u", "k"));
"""


def test_client_types_of_mail_and_database_packages(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"mail.ts": _mailer("Transporter")})
    assert actions_reached(bundle, "send_mail") == {("message.send", "mail.ts", 8), ("db.write", "mail.ts", 9)}


def test_a_mail_options_type_is_no_transport(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"mail.ts": _mailer("SendMailOptions")})
    assert actions_reached(bundle, "send_mail") == {("db.write", "mail.ts", 9)}


def _notion(
    asyncness: str, imported: str = 'import { Client } from "@notionhq/client";', cls: str = "Client"
) -> dict[str, str]:
    helper = f"""
{imported}
const notion = new {cls}({{ auth: process.env.NOTION_TOKEN }});
export {asyncness}function createPage(title: string) {{
  return notion.pages.create({{ parent: {{ database_id: "db" }}, properties: {{ title }} }});
}}
export const archive = {asyncness}(id: string) => notion.pages.update({{ page_id: id, archived: true }});
"""
    agent = """
import { generateText, tool } from "ai";
import { openai } from "@ai-sdk/openai";
import { z } from "zod";
import { archive, createPage } from "./notion";
export const run = (prompt: string) =>
  generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: {
      createPage: tool({
        description: "Create a page",
        parameters: z.object({ title: z.string() }),
        execute: async ({ title }) => createPage(title),
      }),
      archivePage: tool({
        description: "Archive a page",
        parameters: z.object({ id: z.string() }),
        execute: async ({ id }) => archive(id),
      }),
    },
  });
"""
    return {"notion.ts": helper, "agent.ts": agent}


def test_a_package_call_an_async_function_returns_is_a_request(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _notion("async "))
    assert actions_reached(bundle, "createPage") == {("network.egress", "notion.ts", 5)}
    assert actions_reached(bundle, "archivePage") == {("network.egress", "notion.ts", 7)}


def test_a_package_call_a_plain_function_returns_is_not_taken_for_one(tmp_path: Path) -> None:
    # Of an object of a class not named as a client: nothing says the call leaves the process.
    bundle = scan_files(tmp_path, _notion("", 'import { Notes } from "acme-notes";', "Notes"))
    assert actions_reached(bundle, "createPage") == set()
    assert actions_reached(bundle, "archivePage") == set()


def test_a_method_of_a_packages_client_class_is_a_request_however_its_promise_is_handled(tmp_path: Path) -> None:
    # ``new Client(...)`` of ``@notionhq/client``: a plain function returning ``notion.pages.create(...)`` hands
    # its caller the request's promise.
    bundle = scan_files(tmp_path, _notion(""))
    assert actions_reached(bundle, "createPage") == {("network.egress", "notion.ts", 5)}
    assert actions_reached(bundle, "archivePage") == {("network.egress", "notion.ts", 7)}


PROMISED = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import Acme from "acme-sdk";
import { slugify } from "acme-text";
const server = new McpServer({ name: "w", version: "1" });
const acme = new Acme({ apiKey: "k" });
server.tool("archive_widget", { id: z.string() }, async ({ id }) => {
  acme.widgets.archive(id).then(() => console.log("done"));
  return { content: [{ type: "text", text: "ok" }] };
});
server.tool("sync_widgets", {}, async () => {
  const [a, b] = await Promise.all([acme.widgets.list(), acme.gadgets.list()]);
  return { content: [{ type: "text", text: String(a) + String(b) }] };
});
server.tool("stamp", { at: z.number() }, async ({ at }) => {
  const parts = [slugify(String(at)), acme.version].map((p) => String(p).trim());
  return { content: [{ type: "text", text: parts.join("-") }] };
});
"""


def test_a_package_call_handled_as_a_promise_is_a_request(tmp_path: Path) -> None:
    # ``.then(...)`` on it, or waited for by ``Promise.all``: the request's promise, not awaited where it is made.
    bundle = scan_files(tmp_path, {"server.ts": PROMISED})
    assert actions_reached(bundle, "archive_widget") == {("network.egress", "server.ts", 9)}
    assert actions_reached(bundle, "sync_widgets") == {("network.egress", "server.ts", 13)}


def test_a_package_call_in_a_plain_array_is_not_taken_for_a_request(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.ts": PROMISED})
    assert actions_reached(bundle, "stamp") == set()
