"""Python 3.12 f-strings (PEP 701: a backslash or the string's own quote inside a replacement field) in a file
the engine's Python 3.11 parser reads: that f-string is read as an empty string, a parse_error frontier item says
so at its line, and the rest of the file is analysed. A file broken otherwise is still not parsed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scanned import actions_reached, scan_files

TOOLS = (
    "import subprocess\n"  # 1
    "from agents import function_tool\n\n"  # 2
    "def render(cols: list[str], row: dict) -> str:\n"  # 4
    "    head = f\"{',\\n'.join(cols)}\"\n"  # 5: a backslash in the expression part
    '    return head + f"{row["name"]}"\n\n'  # 6: the string's own quote in it
    "@function_tool\n"  # 8
    "def run(cmd: str) -> str:\n"  # 9
    "    return subprocess.run(cmd, shell=True).stdout\n"  # 10
)


def _parse_errors(bundle: dict[str, Any]) -> list[tuple[int, str]]:
    return [(f["location"]["line"], f["detail"]) for f in bundle["frontier"] if f["kind"] == "parse_error"]


def test_an_f_string_of_python_3_12_syntax_leaves_the_rest_of_the_file_analysed(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.py": TOOLS})
    assert actions_reached(bundle, "run") == {("shell.exec", "tools.py", 10)}
    errors = _parse_errors(bundle)
    assert sorted(line for line, _ in errors) == [5, 6]
    assert all("read as an empty string" in detail for _, detail in errors)


@pytest.mark.parametrize("broken", ["    return (\n", "    .\n"])
def test_a_file_broken_otherwise_is_still_not_parsed(tmp_path: Path, broken: str) -> None:
    bundle = scan_files(tmp_path, {"tools.py": TOOLS + "\ndef other():\n" + broken})
    assert actions_reached(bundle, "run") == set()
    errors = _parse_errors(bundle)
    assert len(errors) == 1 and "nothing in this file was analysed" in errors[0][1]
