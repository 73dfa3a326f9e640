"""A path containment check inside a helper of the file that hands back the checked path or refuses with
``None`` / ``False`` (issue 20): the tool that tests the helper's answer and returns before its effect is behind
the helper's check, recorded where the check stands in the helper. Containment is recognised in its common
spellings (the root among the path's parents, ``is_relative_to``, the common path compared with the root, a
resolved path's prefix). Each has a negative twin: an answer nobody tests, a test whose branch goes on, a
constant tested that is not the one the helper refuses with, and a check in the helper that decides nothing."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked

HEAD = "import os\nfrom pathlib import Path\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('files')\nROOT = Path('/srv/work')\n\n"

PARENTS = (
    "def resolve_path(name: str) -> Path | None:\n"
    "    path = (ROOT / name).resolve()\n"
    "    if ROOT.resolve() not in path.parents and path != ROOT.resolve():\n"
    "        return None\n"
    "    return path\n\n"
)
RELATIVE = (
    "def resolve_path(name: str) -> Path | None:\n"
    "    path = (ROOT / name).resolve()\n"
    "    if not path.is_relative_to(ROOT):\n"
    "        return None\n"
    "    return path\n\n"
)
COMMON = (
    "def resolve_path(name: str) -> str | None:\n"
    "    full = os.path.realpath(os.path.join(str(ROOT), name))\n"
    "    if os.path.commonpath([str(ROOT), full]) != str(ROOT):\n"
    "        return None\n"
    "    return full\n\n"
)
PREFIX = (
    "def resolve_path(name: str) -> str | bool:\n"
    "    full = os.path.abspath(os.path.join(str(ROOT), name))\n"
    "    if full.startswith(str(ROOT.resolve())):\n"
    "        return full\n"
    "    return False\n\n"
)


def _tool(use: str) -> str:
    return "@mcp.tool()\ndef read(name: str) -> str:\n" + use + "    return open(p).read()\n"


def _gates_at(linked: Linked, action_class: str) -> set[tuple[str, int]]:
    """(kind, line) of the gates on every path to the actions of that class."""
    sites = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return {sites[g] for a in linked.actions if a.actionClass == action_class for g in a.gateIds}


def _check_line(source: str) -> int:
    """The line of the helper's containment test."""
    return next(
        i
        for i, line in enumerate(source.splitlines(), 1)
        if "parents" in line or "is_relative_to" in line or "commonpath" in line or ".startswith" in line
    )


@pytest.mark.parametrize(
    ("helper", "use"),
    [
        (PARENTS, "    p = resolve_path(name)\n    if p is None:\n        return 'outside the workspace'\n"),
        (RELATIVE, "    p = resolve_path(name)\n    if not p:\n        raise ValueError('outside')\n"),
        (COMMON, "    p = resolve_path(name)\n    if p is not None:\n        return open(p).read()\n    return 'no'\n"),
        (COMMON, "    p = name\n    if resolve_path(name) is None:\n        return 'outside'\n"),
        (PREFIX, "    p = resolve_path(name)\n    if p is False:\n        return 'outside'\n"),
        (PREFIX, "    p = resolve_path(name)\n    if p == False:\n        return 'outside'\n"),
    ],
)
def test_a_helper_that_refuses_gates_the_tool_that_tests_its_answer(helper: str, use: str) -> None:
    source = HEAD + helper + _tool(use)
    assert _gates_at(analyse({"server.py": source}), "file.read") == {("path_containment", _check_line(source))}


@pytest.mark.parametrize(
    ("helper", "use"),
    [
        # An answer nobody tests, or tested in a branch that goes on, decides nothing.
        (PARENTS, "    resolve_path(name)\n    p = ROOT / name\n"),
        (PARENTS, "    p = resolve_path(name)\n"),
        (PARENTS, "    p = resolve_path(name)\n    if p is None:\n        print('outside')\n"),
        # The helper refuses with False: a test for None lets the refusal through.
        (PREFIX, "    p = resolve_path(name)\n    if p is None:\n        return 'outside'\n"),
        # The helper's test says nothing on the way to its value: only a missing file is refused.
        (
            "def resolve_path(name: str) -> Path | None:\n"
            "    path = (ROOT / name).resolve()\n"
            "    if ROOT not in path.parents:\n"
            "        print('outside the workspace')\n"
            "    if not path.exists():\n"
            "        return None\n"
            "    return path\n\n",
            "    p = resolve_path(name)\n    if p is None:\n        return 'no such file'\n",
        ),
        # Containment computed and never decided on.
        (
            "def resolve_path(name: str) -> Path | None:\n"
            "    path = (ROOT / name).resolve()\n"
            "    inside = path.is_relative_to(ROOT)\n"
            "    if not path.exists():\n"
            "        return None\n"
            "    return path\n\n",
            "    p = resolve_path(name)\n    if p is None:\n        return 'no such file'\n",
        ),
    ],
)
def test_a_refusal_nobody_tests_or_a_check_that_decides_nothing_is_no_gate(helper: str, use: str) -> None:
    source = HEAD + helper + _tool(use)
    assert _gates_at(analyse({"server.py": source}), "file.read") == set()


def test_a_helper_that_hands_back_data_it_builds_is_not_one_that_refuses() -> None:
    source = (
        HEAD
        + (
            "def listing(name: str) -> dict | None:\n"
            "    path = (ROOT / name).resolve()\n"
            "    if ROOT not in path.parents:\n"
            "        return None\n"
            "    return {'path': str(path)}\n\n"
        )
        + _tool("    p = name\n    if listing(name) is None:\n        return 'outside'\n")
    )
    assert _gates_at(analyse({"server.py": source}), "file.read") == set()


@pytest.mark.parametrize(
    ("check", "gated"),
    [
        ("    if ROOT not in p.parents and p != ROOT:\n        return 'outside'\n", True),
        ("    if ROOT in p.parents or p == ROOT:\n        return open(p).read()\n    return 'outside'\n", True),
        ("    if ROOT not in p.parents:\n        return 'outside'\n", True),
        # The path compared with the root alone, or a parents test whose branch goes on, contains nothing.
        ("    if p != ROOT:\n        return 'not the root'\n", False),
        ("    if ROOT not in p.parents and p != ROOT:\n        print('outside')\n", False),
    ],
)
def test_a_root_tested_among_a_path_s_parents(check: str, gated: bool) -> None:
    source = HEAD + _tool("    p = (ROOT / name).resolve()\n" + check)
    kinds = {kind for kind, _ in _gates_at(analyse({"server.py": source}), "file.read")}
    assert kinds == ({"path_containment"} if gated else set())


WORDED = (
    "def resolve_path(name: str) -> str:\n"
    "    full = os.path.realpath(os.path.join(str(ROOT), name))\n"
    "    if not full.startswith(str(ROOT) + os.sep):\n"
    "        return f'Error: {name} is outside the workspace'\n"
    "    return full\n\n"
)


@pytest.mark.parametrize(
    ("use", "gated"),
    [
        ("    p = resolve_path(name)\n    if p.startswith('Error'):\n        return p\n", True),
        (
            "    p = resolve_path(name)\n    if not p.startswith('Error: '):\n        return open(p).read()\n    return p\n",
            True,
        ),
        # A message is truthy as a path is: testing the answer's truth lets the refusal through.
        ("    p = resolve_path(name)\n    if not p:\n        return 'outside'\n", False),
        # Words the refusal does not open with.
        ("    p = resolve_path(name)\n    if p.startswith('Warning'):\n        return p\n", False),
        ("    p = resolve_path(name)\n    if p.startswith('Error'):\n        print(p)\n", False),
    ],
)
def test_a_helper_that_refuses_with_a_message_tested_for_its_words(use: str, gated: bool) -> None:
    source = HEAD + WORDED + _tool(use)
    expected = {("path_containment", _check_line(source))} if gated else set()
    assert _gates_at(analyse({"server.py": source}), "file.read") == expected
