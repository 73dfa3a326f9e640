"""A JS/TS monorepo's own packages (issue 20): a module imported by the name a ``package.json`` of the
scanned tree gives is that package's code, followed as a relative import would be, so a Prisma client
it exports is a database client where a tool uses it; the same import with no such package in the tree
stays a third party's package."""

from __future__ import annotations

import json
from pathlib import Path

from assay.backend.engines.static.jsts.workspace import own_packages
from assay.backend.engines.static.scan import PARALLEL_MIN_FILES, scan_tree
from assay.backend.scans.bundle import EvidenceBundle

_MANIFEST = {
    "name": "@acme/db",
    "main": "./dist/index.js",
    "exports": {
        ".": {"import": "./dist/index.js", "types": "./dist/index.d.ts"},
        "./client": {"import": "./dist/client.js"},
    },
}
_CLIENT = """import { PrismaClient } from "@prisma/client";
declare global { var prisma: PrismaClient | undefined; }
export const prisma = globalThis.prisma ?? new PrismaClient();
"""


def _server(spec: str) -> str:
    return f"""import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import {{ z }} from "zod";
import {{ prisma }} from "{spec}";
const server = new McpServer({{ name: "crm", version: "1.0.0" }});
server.tool("find_users", "Find users by name", {{ q: z.string() }}, async ({{ q }}) => {{
  const rows = await prisma.user.findMany({{ where: {{ name: q }} }});
  await prisma.audit.create({{ data: {{ q }} }});
  return {{ content: [{{ type: "text", text: JSON.stringify(rows) }}] }};
}});
"""


def _tree(root: Path, spec: str = "@acme/db", manifest: dict[str, object] | None = _MANIFEST) -> Path:
    files = {
        "packages/db/src/index.ts": 'export * from "./client";\n',
        "packages/db/src/client.ts": _CLIENT,
        "packages/api/src/server.ts": _server(spec),
    }
    if manifest is not None:
        files["packages/db/package.json"] = json.dumps(manifest)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _reach(bundle: EvidenceBundle) -> set[tuple[str, int, str, tuple[str, ...]]]:
    names = {t.id: t.name for t in bundle.tools}
    return {
        (a.actionClass, a.location.line, a.target, tuple(sorted(names[p.toolId] for p in a.reachedFrom)))
        for a in bundle.actions
    }


def test_an_import_of_the_trees_own_package_is_followed_to_its_prisma_client(tmp_path: Path) -> None:
    # The entry names build output (./dist/index.js): the same path under src/ is the package's code.
    assert _reach(scan_tree(_tree(tmp_path))) == {
        ("db.read", 6, "@prisma/client.PrismaClient.user.findMany", ("find_users",)),
        ("db.write", 7, "@prisma/client.PrismaClient.audit.create", ("find_users",)),
    }


def test_a_subpath_of_the_trees_own_package_is_its_declared_export(tmp_path: Path) -> None:
    assert {(c, line) for c, line, _, _ in _reach(scan_tree(_tree(tmp_path, "@acme/db/client")))} == {
        ("db.read", 6),
        ("db.write", 7),
    }


def test_the_same_import_with_no_such_package_in_the_tree_stays_a_package(tmp_path: Path) -> None:
    assert _reach(scan_tree(_tree(tmp_path, manifest=None))) == {
        ("network.egress", 6, "@acme/db.prisma.user.findMany", ("find_users",)),
        ("network.egress", 7, "@acme/db.prisma.audit.create", ("find_users",)),
    }


def test_a_name_two_packages_of_the_tree_give_is_nobodys() -> None:
    manifest = json.dumps({"name": "@acme/db"}).encode()
    found = own_packages(
        [("b/package.json", manifest), ("a/package.json", manifest), ("c/package.json", b'{"name": "c"}')],
        ["a/index.ts", "b/src/index.ts", "c/lib/main.js"],
    )
    assert [name for name, _ in found.packages] == ["c"]
    assert found.resolve("@acme/db") is None
    assert found.resolve("c") == "c"  # no entry in the tree: its folder, as ``import "./c"`` names it
    assert found.resolve("c/lib/main.js") == "c/lib/main"


def test_the_entry_is_found_from_main_or_the_source_index() -> None:
    found = own_packages(
        [
            ("tools/package.json", json.dumps({"name": "tools", "main": "lib/main.js"}).encode()),
            ("web/package.json", json.dumps({"name": "web", "main": "dist/app.js"}).encode()),
            ("bad/package.json", b"{not json"),
        ],
        ["tools/lib/main.ts", "web/src/index.tsx"],
    )
    assert found.resolve("tools") == "tools/lib/main"
    assert found.resolve("web") == "web/src"
    assert found.resolve("react") is None


def test_worker_processes_resolve_the_trees_own_packages_as_this_one_does(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    for i in range(PARALLEL_MIN_FILES):
        (root / f"packages/api/src/util{i}.ts").write_text(f"export const n{i} = {i};\n")
    alone = scan_tree(root, workers=1)
    assert scan_tree(root, workers=2).contentHash == alone.contentHash
    assert {a.actionClass for a in alone.actions} == {"db.read", "db.write"}


def test_a_copy_of_a_library_the_rules_know_stays_that_library(tmp_path: Path) -> None:
    """A tree holding a package named as one the rules model (the framework's own repository, a vendored
    SDK) is read through the rules: its users' tools and models are still found, not lost in its internals."""
    files = {
        "packages/ai/package.json": json.dumps({"name": "ai", "main": "./dist/index.js"}),
        "packages/ai/src/index.ts": "export function generateText(options: unknown) { return options; }\n"
        "export function tool(spec: unknown) { return spec; }\n",
        "examples/app.ts": """import { generateText, tool } from "ai";
import { openai } from "@ai-sdk/openai";
import { z } from "zod";
import { execSync } from "node:child_process";
export async function main(prompt: string) {
  return generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: {
      run: tool({
        description: "Run a shell command",
        parameters: z.object({ command: z.string() }),
        execute: async ({ command }) => execSync(command).toString(),
      }),
    },
  });
}
""",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    bundle = scan_tree(tmp_path)
    assert [t.name for t in bundle.tools] == ["run"]
    assert {(a.actionClass, a.location.path) for a in bundle.actions if a.reachedFrom} == {
        ("shell.exec", "examples/app.ts")
    }
