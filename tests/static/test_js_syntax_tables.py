"""The JS/TS front-end's syntax helpers read nodes the fast way and answer exactly as the plain way
would (issue 20 speed): a node's type read from its kind id (``kind_names``), wrappers skipped by kind id
first (``unwrap``), and the look for a generic tagged template (``prisma.$queryRaw<Row[]>`...```), which
skips an arrow's ``=>`` before a template; and a checked list's values found in the blocks around the
check, read from the file's root down (``GateLogic.ancestors``); and a name's whole-word uses counted
once per file (``Code.occurrences``), exactly as a search for each name would count them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from tree_sitter import Node

from assay.backend.engines.static.jsts.frontend import analyze_javascript
from assay.backend.engines.static.jsts.syntax import (
    WRAPPERS,
    Code,
    JsLanguage,
    field_ids,
    generic_tag_arguments,
    kind_names,
    parser,
    unwrap,
)
from assay.backend.engines.static.rules.pack import load_rule_pack

# Wrappers of every kind, a generic call, JSX, and a syntax error (an ERROR node and a MISSING one).
_SOURCE = b"""const a = (await (b as any)!) satisfies T;
const f = g<string>;
const e = <div className="x">{(y)}</div>;
if (x ==== ) { run(
"""


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from _nodes(child)


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_a_kind_id_names_the_type_the_node_has(language: JsLanguage) -> None:
    names = kind_names(language)
    nodes = list(_nodes(parser(language).parse(_SOURCE).root_node))
    assert any(n.type == "ERROR" for n in nodes)
    assert all(names[n.kind_id] == n.type for n in nodes)
    # Another grammar numbers its kinds otherwise: its table names this one's nodes wrongly.
    other = kind_names("javascript" if language != "javascript" else "typescript")
    assert any(other.get(n.kind_id) != n.type for n in nodes)


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_unwrap_skips_exactly_the_wrappers(language: JsLanguage) -> None:
    for node in _nodes(parser(language).parse(_SOURCE).root_node):
        expected: Node | None = node
        while expected is not None and expected.type in WRAPPERS:
            expected = expected.named_children[0] if expected.named_children else None
        found = unwrap(node)
        assert (found.id if found is not None else None) == (expected.id if expected is not None else None)


def _spans(src: bytes, language: JsLanguage = "typescript") -> list[tuple[int, int]]:
    return generic_tag_arguments(parser(language).parse(src).root_node, src)


def test_a_generic_tag_after_an_arrow_template_is_found() -> None:
    src = b"const f = (x: string) => `a ${x}`;\nconst rows = await db.$queryRaw<Row[]>`SELECT 1`;\n"
    spans = _spans(src)
    assert [src[start:end] for start, end in spans] == [b"<Row[]>"]


def test_an_arrow_returning_a_template_is_no_generic_tag() -> None:
    src = b"const f = (x: string) =>   `SELECT ${x}`;\nconst g = () =>\n  `b`;\n"
    assert _spans(src) == []


_CHECKED = """import { exec } from "node:child_process";
export function other() {
  const ALLOWED_COMMANDS = ["rm"];
  return ALLOWED_COMMANDS.length;
}
export async function run(cmd: string) {
  const ALLOWED_COMMANDS = ["ls", "pwd"];
  if (cmd) {
    if (!ALLOWED_COMMANDS.includes(cmd)) throw new Error("no");
    exec(cmd);
  }
}
export async function elsewhere(cmd: string) {
  if (!ALLOWED_COMMANDS.includes(cmd)) throw new Error("no");
  exec(cmd);
}
"""


def _gate_values() -> dict[str, list[tuple[str, ...]]]:
    facts = analyze_javascript("a.ts", _CHECKED.encode(), "sha256:0", "typescript", load_rule_pack())
    return {f.qualname: [tuple(g.values) for g in f.gates] for f in facts.functions if f.gates}


def test_a_checked_list_of_an_enclosing_block_gives_its_values() -> None:
    assert _gate_values()["a#run"] == [("ls", "pwd")]


def test_a_list_of_another_function_gives_no_values() -> None:
    assert _gate_values()["a#elsewhere"] == [()]


_WORDS = "const tool = {}; const tools = [tool, $tool, tool_2, tool$]; x.tool; export { tool }; const café = café2 + café;\n".encode()


@pytest.mark.parametrize(
    "name", [b"tool", b"tools", b"$tool", b"tool$", b"tool_2", b"too", b"x", b"nothing", "café".encode()]
)
def test_a_words_uses_are_counted_as_a_search_for_it_would(name: bytes) -> None:
    searched = len(re.findall(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", _WORDS))
    assert Code(_WORDS, field_ids("typescript"), kind_names("typescript")).occurrences(name) == searched
