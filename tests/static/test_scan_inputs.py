"""The scan's treatment of bad input: never a crash, never a link followed out of the tree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assay.backend.engines.static.scan import scan_tree, scan_tree_canonical
from assay.backend.engines.static.walk import WalkError

AGENT = b'''
import subprocess
from langchain_core.tools import tool


@tool
def run(cmd: str) -> str:
    """Run a command."""
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout
'''


def _skips(bundle_root: Path) -> dict[str, str]:
    bundle = scan_tree(bundle_root)
    return {s.path: s.reason for s in bundle.coverage.skippedFiles}


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WalkError, match="no such file or directory"):
        scan_tree(tmp_path / "nope")


def test_a_file_as_root_is_a_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "agent.py"
    target.write_bytes(AGENT)
    with pytest.raises(WalkError, match="not a directory"):
        scan_tree(target)


def test_binary_huge_and_badly_encoded_files_are_skipped_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_bytes(AGENT)
    (tmp_path / "blob.py").write_bytes(b"\x00\x01\x02binary" * 10)
    (tmp_path / "latin.ts").write_bytes("const s = 'caf\xe9';\n".encode("latin-1"))
    (tmp_path / "huge.py").write_bytes(b"x = 1\n" * 200)
    bundle = scan_tree(tmp_path, max_file_bytes=600)
    reasons = {s.path: s.reason for s in bundle.coverage.skippedFiles}
    assert reasons == {"blob.py": "binary", "latin.ts": "invalid_encoding", "huge.py": "too_large"}
    assert [f.path for f in bundle.coverage.files] == ["agent.py"]
    assert bundle.coverage.complete is False
    assert {f.path for f in bundle.frontier if f.kind == "skipped_file"} == {"blob.py", "latin.ts", "huge.py"}
    assert "1 source file(s) skipped (binary)." in bundle.limitations


def test_declared_python_encoding_is_transcoded_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "legacy.py").write_bytes(b"# -*- coding: latin-1 -*-\nNAME = '\xe9t\xe9'\n")
    bundle = scan_tree(tmp_path)
    assert [f.path for f in bundle.coverage.files] == ["legacy.py"]
    assert bundle.coverage.skippedFiles == []


def test_symlinks_are_never_followed_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret_agent.py").write_bytes(AGENT)
    root = tmp_path / "root"
    root.mkdir()
    (root / "agent.py").write_bytes(AGENT)
    (root / "escape_dir").symlink_to(outside, target_is_directory=True)
    (root / "escape.py").symlink_to(outside / "secret_agent.py")
    (root / "alias.py").symlink_to(root / "agent.py")
    (root / "loop").symlink_to(root / "loop")
    bundle = scan_tree(root)
    reasons = {s.path: s.reason for s in bundle.coverage.skippedFiles}
    assert reasons == {
        "escape_dir": "symlink_outside_tree",
        "escape.py": "symlink_outside_tree",
        "alias.py": "symlink_inside_tree",
        "loop": "symlink_outside_tree",
    }
    assert [f.path for f in bundle.coverage.files] == ["agent.py"]
    assert all("secret_agent" not in a.location.path for a in bundle.actions)


def test_syntax_errors_are_a_limitation_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_bytes(AGENT)
    (tmp_path / "broken.py").write_bytes(b"def broken(:\n    pass\n")
    bundle = scan_tree(tmp_path)
    assert bundle.coverage.parseErrors == 1
    assert bundle.coverage.complete is False
    assert [f.path for f in bundle.frontier if f.kind == "parse_error"] == ["broken.py"]
    assert any("failed to parse" in lim for lim in bundle.limitations)
    # The good file is still analysed.
    assert {a.actionClass for a in bundle.actions} == {"shell.exec"}


def test_a_tree_without_ai_code_says_so(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_bytes(b"def add(a, b):\n    return a + b\n")
    bundle = scan_tree(tmp_path)
    assert bundle.models == [] and bundle.tools == [] and bundle.actions == []
    assert "No AI code recognised: no model calls and no tools were found." in bundle.limitations


def test_an_empty_tree_scans_to_an_incomplete_bundle(tmp_path: Path) -> None:
    bundle = scan_tree(tmp_path)
    assert bundle.coverage.analysed.count == 0
    assert bundle.coverage.complete is False


def test_unsupported_languages_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_bytes(AGENT)
    (tmp_path / "main.go").write_bytes(b"package main\n")
    (tmp_path / "lib.rs").write_bytes(b"fn main() {}\n")
    bundle = scan_tree(tmp_path)
    kinds = sorted(f.detail for f in bundle.frontier if f.kind == "unsupported_language")
    assert kinds == [
        "1 Go file(s) not analysed: the engine analyses Python, JavaScript and TypeScript",
        "1 Rust file(s) not analysed: the engine analyses Python, JavaScript and TypeScript",
    ]
    assert bundle.coverage.discovered.count == 3


def test_dependency_directories_are_not_scanned(tmp_path: Path) -> None:
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_bytes(b"require('child_process').exec(x)\n")
    (tmp_path / "agent.py").write_bytes(AGENT)
    bundle = scan_tree(tmp_path)
    assert [s.path for s in bundle.coverage.skippedFiles] == ["node_modules"]
    assert all(not a.location.path.startswith("node_modules") for a in bundle.actions)


def test_lone_surrogates_in_python_strings_are_replaced_not_a_crash(tmp_path: Path) -> None:
    # Valid Python (an escape in a string), not valid Unicode text: JSON cannot hold it as it is.
    (tmp_path / "agent.py").write_bytes(
        AGENT.replace(b'"""Run a command."""', b'"""Run before\\udce4after, \\ud83d\\ude00."""')
    )
    first = scan_tree_canonical(tmp_path)
    assert [t.description for t in first.bundle.tools] == ["Run before\ufffdafter, \U0001f600."]
    assert first.canonical == scan_tree_canonical(tmp_path).canonical
    assert json.loads(first.canonical)["contentHash"] == first.bundle.contentHash


def test_paths_that_are_not_utf8_are_skipped_under_a_readable_name(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_bytes(AGENT)
    (tmp_path / os.fsdecode(b"caf\xe9.py")).write_bytes(AGENT)
    odd_dir = tmp_path / os.fsdecode(b"pkg\xff")
    odd_dir.mkdir()
    (odd_dir / "tools.py").write_bytes(AGENT)
    (odd_dir / "notes.txt").write_bytes(b"not code")
    bundle = scan_tree_canonical(tmp_path).bundle
    assert [f.path for f in bundle.coverage.files] == ["agent.py"]
    assert {s.path: (s.reason, s.detail) for s in bundle.coverage.skippedFiles} == {
        "caf\\xe9.py": ("invalid_encoding", "its path is not valid UTF-8"),
        "pkg\\xff/tools.py": ("invalid_encoding", "its path is not valid UTF-8"),
    }
    assert bundle.coverage.complete is False
    assert "2 source file(s) skipped (invalid encoding)." in bundle.limitations
