"""A Python file saved with a byte-order mark (editors on Windows write one) is read as Python reads it: the mark
is no character of the program, so the file is analysed, not reported unparsed."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached

from assay.backend.engines.static.scan import scan_tree

SOURCE = (
    "import subprocess\n"
    "from agents import function_tool\n\n"
    "@function_tool\n"
    "def run(cmd: str) -> str:\n"
    "    return subprocess.run(cmd, shell=True).stdout\n"
)


def test_a_file_opening_with_a_byte_order_mark_is_analysed(tmp_path: Path) -> None:
    root = tmp_path / "system"
    root.mkdir()
    (root / "tools.py").write_bytes(b"\xef\xbb\xbf" + SOURCE.encode("utf-8"))
    bundle = scan_tree(root).model_dump(mode="json")
    assert [f for f in bundle["frontier"] if f["kind"] == "parse_error"] == []
    assert actions_reached(bundle, "run") == {("shell.exec", "tools.py", 6)}
