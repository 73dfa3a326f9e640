"""Helpers for the tests that scan a small tree written from strings: the bundle as JSON, and what a tool
reaches in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.backend.engines.static.scan import scan_tree


def scan_files(tmp_path: Path, files: dict[str, str]) -> dict[str, Any]:
    """The bundle (JSON form) of a tree holding ``files`` (relative path -> text), scanned in one process
    without a cache."""
    root = tmp_path / "system"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return scan_tree(root, cache=None, workers=1).model_dump(mode="json")


def actions_reached(bundle: dict[str, Any], tool: str) -> set[tuple[str, str, int]]:
    """(action class, path, line) of every action the named tool reaches."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    return {
        (a["actionClass"], a["location"]["path"], a["location"]["line"])
        for a in bundle["actions"]
        if any(p["toolId"] in ids for p in a.get("reachedFrom", []))
    }
