"""Tools acting through service layers typed by interfaces (issue 20): a method called on a value typed by an
interface of the tree (a parameter, a field, what a factory typed ``() => Interface`` returns) reaches every class
of the tree implementing it, in the interface's file or another; an interface nothing implements stays an
``unresolved_call`` frontier item; two interfaces of the same name in two files are two types. An ssh2 client's
``exec`` runs a command on the remote host."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

CLIENT = """
import { exec } from "child_process";
import * as fs from "fs";

export interface IRunner {
  run(cmd: string): Promise<string>;
}

export class Runner implements IRunner {
  async run(cmd: string): Promise<string> {
    exec(cmd);
    return "";
  }
}

export interface IStore {
  save(path: string, text: string): Promise<void>;
}

export class Store implements IStore {
  async save(path: string, text: string): Promise<void> {
    fs.writeFileSync(path, text);
  }
}
"""

MOCK = """
import { IRunner } from "./client.js";

export class MockRunner implements IRunner {
  calls: string[] = [];
  async run(cmd: string): Promise<string> {
    this.calls.push(cmd);
    return "ok";
  }
}
"""

FACTORY = """
import { IRunner, IStore } from "./client.js";

export type RunnerFactory = () => IRunner;
export type StoreFactory = () => IStore;
"""

TOOLS = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { RunnerFactory, StoreFactory } from "./factory.js";

export function register(server: McpServer, runners: RunnerFactory, stores: StoreFactory) {
  server.tool("run", "Run a command", { cmd: z.string() }, async ({ cmd }) => {
    const client = runners();
    await client.run(cmd);
    return { content: [] };
  });
  server.tool("save", "Save a note", { text: z.string() }, async ({ text }) => {
    const store = stores();
    await store.save("notes.txt", text);
    return { content: [] };
  });
}
"""


def test_a_factory_typed_by_an_interface_reaches_every_implementing_class(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"client.ts": CLIENT, "mock.ts": MOCK, "factory.ts": FACTORY, "tools.ts": TOOLS})
    # ``runners()`` gives an ``IRunner``: its ``run`` is Runner's (and the mock's, which does nothing).
    assert actions_reached(bundle, "run") == {("shell.exec", "client.ts", 11)}
    # The types keep the two services apart: the store's tool never reaches the runner, nor the reverse.
    assert actions_reached(bundle, "save") == {("file.write", "client.ts", 22)}
    shell = [(f["sink"]["path"], f["sink"]["line"]) for f in bundle["taintFlows"] if f["actionClass"] == "shell.exec"]
    assert shell == [("client.ts", 11)]
    assert not [f for f in bundle["frontier"] if f["kind"] == "unresolved_call"]


def test_an_interface_of_this_file_types_a_parameter(tmp_path: Path) -> None:
    server = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { exec } from "child_process";

interface Shell { run(cmd: string): void; }
class HostShell implements Shell { run(cmd: string): void { exec(cmd); } }

export function register(server: McpServer, shell: Shell) {
  server.tool("sh", "Run", { cmd: z.string() }, async ({ cmd }) => {
    shell.run(cmd);
    return { content: [] };
  });
}
"""
    bundle = scan_files(tmp_path, {"server.ts": server})
    assert actions_reached(bundle, "sh") == {("shell.exec", "server.ts", 7)}


def test_an_interface_nothing_implements_stays_frontier(tmp_path: Path) -> None:
    client = """
export interface IRunner {
  run(cmd: string): Promise<string>;
}
"""
    bundle = scan_files(tmp_path, {"client.ts": client, "factory.ts": FACTORY, "tools.ts": TOOLS})
    assert actions_reached(bundle, "run") == set()
    unresolved = [
        (f["location"]["path"], f["location"]["line"]) for f in bundle["frontier"] if f["kind"] == "unresolved_call"
    ]
    # Both calls go into code the tree does not hold; neither is silently dropped.
    assert unresolved == [("tools.ts", 9), ("tools.ts", 14)]


def test_two_interfaces_of_one_name_in_two_files_are_two_types(tmp_path: Path) -> None:
    mail = """
import nodemailer from "nodemailer";
export interface Gateway { send(to: string, body: string): Promise<void>; }
export class MailGateway implements Gateway {
  async send(to: string, body: string): Promise<void> {
    await nodemailer.createTransport({}).sendMail({ to, text: body });
  }
}
"""
    pages = """
export interface Gateway { send(to: string, body: string): Promise<void>; }
export class PageGateway implements Gateway {
  async send(to: string, body: string): Promise<void> {
    await fetch(to, { method: "POST", body });
  }
}
"""
    tools = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Gateway } from "./pages.js";

export function register(server: McpServer, gateway: Gateway) {
  server.tool("publish", "Publish", { url: z.string() }, async ({ url }) => {
    await gateway.send(url, "hello");
    return { content: [] };
  });
}
"""
    bundle = scan_files(tmp_path, {"mail.ts": mail, "pages.ts": pages, "tools.ts": tools})
    # ``Gateway`` of pages.ts: PageGateway's request, never MailGateway's mail.
    assert actions_reached(bundle, "publish") == {("network.egress", "pages.ts", 5)}


def test_an_ssh2_client_runs_the_command_on_the_remote_host(tmp_path: Path) -> None:
    server = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { Client } from "ssh2";

const conn = new Client();
const server = new McpServer({ name: "ssh", version: "1" });
server.tool("remote", "Run remotely", { cmd: z.string() }, async ({ cmd }) => {
  conn.connect({ host: "example.org" });
  conn.exec(cmd, () => {});
  return { content: [] };
});
server.tool("ls", "List remotely", { dir: z.string() }, async ({ dir }) => {
  conn.sftp((err, sftp) => {
    sftp.readdir(dir, () => {});
  });
  return { content: [] };
});
"""
    bundle = scan_files(tmp_path, {"server.ts": server})
    # The command is the model's: a process on the remote host; connecting is only egress.
    assert actions_reached(bundle, "remote") == {("network.egress", "server.ts", 9), ("shell.exec", "server.ts", 10)}
    assert [(f["actionClass"], f["sink"]["line"]) for f in bundle["taintFlows"]] == [("shell.exec", 10)]
    # An SFTP session: the remote listing its callback asks for is network egress, no process.
    assert actions_reached(bundle, "ls") == {("network.egress", "server.ts", 14)}


GATEWAY = """
export interface Gateway {
  getPage(id: string): Promise<string>;
  removePage(id: string): Promise<void>;
}
"""

NOTION_GATEWAY = """
import { Client } from "@notionhq/client";
import * as fs from "fs";
import type { Gateway } from "./gateway";
export function createGateway(notion: Client): Gateway {
  return {
    async getPage(id) {
      const page = await notion.pages.retrieve({ page_id: id });
      return String(page);
    },
    async removePage(id) {
      fs.rmSync(`/cache/${id}`);
    },
  };
}
export function createDefaults(): Record<string, string> {
  return { getPage: "none" };
}
"""

GATEWAY_TOOLS = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Gateway } from "./gateway";
export function registerTools(server: McpServer, gateway: Gateway) {
  server.tool("get_page", { id: z.string() }, async ({ id }) => ({
    content: [{ type: "text", text: await gateway.getPage(id) }],
  }));
  server.tool("remove_page", { id: z.string() }, async ({ id }) => {
    await gateway.removePage(id);
    return { content: [{ type: "text", text: "ok" }] };
  });
}
"""


def test_a_factory_declared_to_return_an_interface_implements_it_with_its_returned_methods(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"gateway.ts": GATEWAY, "notion.ts": NOTION_GATEWAY, "tools.ts": GATEWAY_TOOLS})
    assert actions_reached(bundle, "get_page") == {("network.egress", "notion.ts", 8)}
    assert actions_reached(bundle, "remove_page") == {("file.delete", "notion.ts", 12)}
    assert not [f for f in bundle["frontier"] if f["kind"] == "unresolved_call"]


def test_an_interface_no_factory_returns_stays_frontier(tmp_path: Path) -> None:
    # ``createDefaults`` returns a record, not the interface: it implements nothing.
    tools = NOTION_GATEWAY.replace("): Gateway {", "): Record<string, unknown> {")
    bundle = scan_files(tmp_path, {"gateway.ts": GATEWAY, "notion.ts": tools, "tools.ts": GATEWAY_TOOLS})
    assert actions_reached(bundle, "get_page") == set()
    assert [f for f in bundle["frontier"] if f["kind"] == "unresolved_call"]
