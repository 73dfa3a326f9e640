"""Gates of issue 13 in Python, each counted only where it dominates the action: path containment and
the helpers that raise unless it holds, allowlists by construction (full regex match, literal
collections, fail-closed lookups), approval flags in every spelling, ``interrupt`` in any expression,
and ``input()`` only where its answer is compared."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds

TOOL = "from langchain_core.tools import tool\nfrom pathlib import Path\nimport os, re, subprocess\n\nROOT = Path('/srv')\n\n"


def _gates(body: str, action_class: str = "file.write") -> set[str]:
    return gate_kinds(analyse({"t.py": TOOL + body}), action_class)


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        # relative_to raises unless contained: the code after it is behind it, in a try or not.
        (
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    target = (ROOT / p).resolve()\n"
            "    try:\n        target.relative_to(ROOT)\n    except ValueError:\n        raise PermissionError(p)\n"
            "    target.write_text('x')\n",
            {"path_containment"},
        ),
        # A handler that swallows the error lets the action run unchecked.
        (
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    target = (ROOT / p).resolve()\n"
            "    try:\n        target.relative_to(ROOT)\n    except ValueError:\n        pass\n"
            "    target.write_text('x')\n",
            set(),
        ),
        (
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    real = os.path.realpath(p)\n"
            "    if not real.startswith(str(ROOT)):\n        raise PermissionError(p)\n    open(real, 'w').write('x')\n",
            {"path_containment"},
        ),
        # A flag check is not a place check.
        (
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    if p.startswith('-'):\n        raise ValueError(p)\n"
            "    open(p, 'w').write('x')\n",
            set(),
        ),
        # A helper of the file that raises unless the path is contained gates what follows its call.
        (
            "def validate(p: str) -> Path:\n    resolved = Path(p).resolve()\n"
            "    if not resolved.is_relative_to(ROOT):\n        raise PermissionError(p)\n    return resolved\n\n"
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    target = validate(p)\n    target.write_text('x')\n",
            {"path_containment"},
        ),
        # ... but not code before the call, nor a helper that only logs.
        (
            "def check(p: str) -> None:\n    if not Path(p).resolve().is_relative_to(ROOT):\n        print('outside')\n\n"
            "@tool\ndef save(p: str) -> None:\n    '''Save.'''\n    check(p)\n    Path(p).write_text('x')\n",
            set(),
        ),
    ],
)
def test_path_containment(body: str, kinds: set[str]) -> None:
    assert _gates(body) == kinds


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        (
            "@tool\ndef run(cmd: str) -> None:\n    '''Run.'''\n    if not re.fullmatch(r'[a-z]+', cmd):\n"
            "        raise ValueError(cmd)\n    subprocess.run([cmd])\n",
            {"allowlist"},
        ),
        (
            "COMMANDS = {'ls': ['ls'], 'df': ['df', '-h']}\n\n@tool\ndef run(cmd: str) -> None:\n    '''Run.'''\n"
            "    argv = COMMANDS[cmd]\n    subprocess.run(argv)\n",
            {"allowlist"},
        ),
        (
            "PROGRAMS = ('ls', 'df')\n\n@tool\ndef run(cmd: str) -> None:\n    '''Run.'''\n"
            "    if cmd not in PROGRAMS:\n        return\n    subprocess.run([cmd])\n",
            {"allowlist"},
        ),
    ],
)
def test_allowlists_by_construction(body: str, kinds: set[str]) -> None:
    assert _gates(body, "shell.exec") == kinds


def test_approval_flags_in_every_spelling() -> None:
    code = (
        "from agents import function_tool\nimport subprocess\n\ndef risky(ctx, params, call_id) -> bool:\n"
        "    return True\n\n@function_tool(needs_approval=risky)\ndef a(cmd: str) -> None:\n    subprocess.run(cmd)\n\n"
        "@function_tool(requires_approval=True)\ndef b(cmd: str) -> None:\n    subprocess.run(cmd)\n\n"
        "@function_tool(needs_approval=False)\ndef c(cmd: str) -> None:\n    subprocess.run(cmd)\n"
    )
    linked = analyse({"t.py": code})
    kinds = {g.id: g.kind for g in linked.gates}
    assert [(a.location.line, sorted(kinds[g] for g in a.gateIds)) for a in linked.actions] == [
        (9, ["human_approval"]),
        (13, ["human_approval"]),
        (17, []),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "    if not interrupt({'cmd': cmd})['approved']:\n        return\n",
        "    decision = interrupt({'cmd': cmd}).get('decision')\n",
        "    print(interrupt('ok?'))\n",
    ],
)
def test_interrupt_in_any_expression_form_pauses_the_run(line: str) -> None:
    code = (
        "from langgraph.types import interrupt\nfrom langchain_core.tools import tool\nimport subprocess\n\n"
        f"@tool\ndef run(cmd: str) -> None:\n    '''Run.'''\n{line}    subprocess.run(cmd)\n"
    )
    assert gate_kinds(analyse({"t.py": code}), "shell.exec") == {"human_approval"}


@pytest.mark.parametrize(
    ("line", "kinds"),
    [
        ("    input('Press enter to continue')\n", set()),
        ("    answer = input('run? ')\n    if not answer:\n        return\n", set()),
        ("    if input('run? ').strip().lower() != 'y':\n        return\n", {"human_approval"}),
        ("    answer = input('run? ')\n    if answer not in ('y', 'yes'):\n        return\n", {"human_approval"}),
    ],
)
def test_input_counts_only_where_its_answer_is_compared(line: str, kinds: set[str]) -> None:
    code = f"import subprocess\n\ndef run(cmd: str) -> None:\n{line}    subprocess.run(cmd)\n"
    assert gate_kinds(analyse({"t.py": code}), "shell.exec") == kinds


def test_calling_a_method_of_an_indexed_element_is_not_dynamic_dispatch() -> None:
    code = "def f(items, handlers, i):\n    items[i].strip()\n    handlers[i]()\n"
    frontier = analyse({"t.py": code}).frontier
    assert [(f.kind, f.location.line if f.location else 0) for f in frontier] == [("dynamic_dispatch", 3)]
