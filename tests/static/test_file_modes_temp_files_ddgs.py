"""Issue 20: effects the rule pack now names. ``open(path, mode)`` with ``mode`` a local bound to literals (``"a" if
exists else "w"``) writes when any of them writes; a named temporary file is a file created and written on disk
(``tempfile.NamedTemporaryFile(mode="w")``, then ``f.write(code)``); DuckDuckGo searches through the package's
current name (``ddgs.DDGS().text(q)``) leave the process as its former name's did."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def test_a_mode_held_in_a_local_bound_to_write_modes_writes() -> None:
    code = (
        "import os\n"  # 1
        "from smolagents import tool\n"  # 2
        "\n"  # 3
        "@tool\n"  # 4
        "def save(text: str) -> str:\n"  # 5
        '    """Save text.\n'  # 6
        "\n"  # 7
        "    Args:\n"  # 8
        "        text: the text\n"  # 9
        '    """\n'  # 10
        "    mode = 'a' if os.path.exists('out.csv') else 'w'\n"  # 11
        "    with open('out.csv', mode) as f:\n"  # 12
        "        f.write(text)\n"  # 13
        "    reading = 'r'\n"  # 14
        "    with open('out.csv', reading) as f:\n"  # 15
        "        return f.read()\n"  # 16
    )
    reached = _reached(analyse({"m.py": code}), "save")
    assert ("file.write", 12) in reached
    assert ("file.write", 15) not in reached


def test_a_named_temporary_file_is_a_file_written() -> None:
    code = (
        "import subprocess\n"  # 1
        "import tempfile\n"  # 2
        "from agents import function_tool\n"  # 3
        "\n"  # 4
        "@function_tool\n"  # 5
        "def run_python(code: str) -> str:\n"  # 6
        "    with tempfile.NamedTemporaryFile(suffix='.py', mode='w', delete=False) as f:\n"  # 7
        "        f.write(code)\n"  # 8
        "    return subprocess.run(['python', f.name]).stdout\n"  # 9
    )
    assert _reached(analyse({"m.py": code}), "run_python") == {("file.write", 7), ("shell.exec", 9)}


def test_a_search_through_ddgs_leaves_the_process() -> None:
    code = (
        "from ddgs import DDGS\n"  # 1
        "from agents import function_tool\n"  # 2
        "\n"  # 3
        "@function_tool\n"  # 4
        "def search_web(query: str) -> str:\n"  # 5
        "    with DDGS() as ddgs:\n"  # 6
        "        return str(list(ddgs.text(query, max_results=5)))\n"  # 7
    )
    assert _reached(analyse({"m.py": code}), "search_web") == {("network.egress", 7)}
