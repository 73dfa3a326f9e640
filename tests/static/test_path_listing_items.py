"""Issue 20, the items of a path listing are paths: ``for note in vault.rglob("*.md"): note.read_text()`` reads each
file the listing found, also when the listing is first put in a list (``notes = list(vault.rglob(...))``) or sorted.
The listing's receiver must be a ``pathlib.Path``: a method of the same name on another object says nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def test_each_item_of_a_path_listing_read_in_a_loop_is_a_file_read() -> None:
    code = (
        "from pathlib import Path\n"  # 1
        "from agents import function_tool\n"  # 2
        "\n"  # 3
        "VAULT = Path('/notes')\n"  # 4
        "\n"  # 5
        "@function_tool\n"  # 6
        "def search_notes(query: str) -> list[str]:\n"  # 7
        "    found = []\n"  # 8
        "    for note in VAULT.rglob('*.md'):\n"  # 9
        "        if query in note.read_text():\n"  # 10
        "            found.append(note.name)\n"  # 11
        "    return found\n"  # 12
        "\n"  # 13
        "@function_tool\n"  # 14
        "def list_tagged(tag: str, root: str) -> list[str]:\n"  # 15
        "    notes = sorted(Path(root).glob('*.md'))\n"  # 16
        "    out = []\n"  # 17
        "    for note in notes:\n"  # 18
        "        if tag in note.read_text():\n"  # 19
        "            out.append(str(note))\n"  # 20
        "    return out\n"  # 21
    )
    linked = analyse({"m.py": code})
    assert ("file.read", 10) in _reached(linked, "search_notes")
    assert ("file.read", 19) in _reached(linked, "list_tagged")


def test_a_listing_method_of_another_object_gives_no_paths() -> None:
    code = (
        "from agents import function_tool\n"  # 1
        "\n"  # 2
        "class Index:\n"  # 3
        "    def glob(self, pattern: str) -> list['Index']:\n"  # 4
        "        return []\n"  # 5
        "    def read_text(self) -> str:\n"  # 6
        "        return ''\n"  # 7
        "\n"  # 8
        "@function_tool\n"  # 9
        "def search(q: str) -> int:\n"  # 10
        "    n = 0\n"  # 11
        "    for item in Index().glob(q):\n"  # 12
        "        n += len(item.read_text())\n"  # 13
        "    return n\n"  # 14
    )
    assert _reached(analyse({"m.py": code}), "search") == set()


def test_a_listing_of_a_path_field_declared_in_another_file_gives_paths() -> None:
    deps = (
        "from dataclasses import dataclass\n"
        "from pathlib import Path\n"
        "\n"
        "@dataclass\n"
        "class Deps:\n"
        "    vault: Path | None = None\n"
    )
    tools = (
        "from pydantic_ai import RunContext\n"  # 1
        "from pkg.deps import Deps\n"  # 2
        "\n"  # 3
        "def search_notes(ctx: RunContext[Deps], query: str) -> list[str]:\n"  # 4
        "    vault = ctx.deps.vault\n"  # 5
        "    notes = list(vault.rglob('*.md'))\n"  # 6
        "    return [n.name for n in notes if query in n.name]\n"  # 7
        "\n"  # 8
        "def read_all(ctx: RunContext[Deps]) -> list[str]:\n"  # 9
        "    out = []\n"  # 10
        "    for note in ctx.deps.vault.iterdir():\n"  # 11
        "        out.append(note.read_text())\n"  # 12
        "    return out\n"  # 13
    )
    agent = (
        "from pydantic_ai import Agent\n"
        "from pkg.tools import read_all, search_notes\n"
        "agent = Agent('openai:gpt-4o')\n"
        "agent.tool(search_notes)\n"
        "agent.tool(read_all)\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/deps.py": deps, "pkg/tools.py": tools, "pkg/agent.py": agent})
    assert ("file.read", 12) in _reached(linked, "read_all")
