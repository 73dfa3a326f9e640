"""The scan's cache layers (per file, per tree, per bundle) and its section-by-section content hash."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from bench.gen_tree import generate

from assay.backend.engines.static.cache import DirectoryCache, MemoryCache
from assay.backend.engines.static.jsts import frontend as jsts_frontend
from assay.backend.engines.static.jsts.frontend import analyze_javascript
from assay.backend.engines.static.pyast import frontend as pyast_frontend
from assay.backend.engines.static.pyast.frontend import analyze_python
from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import content_hash

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the language analyzers are run on, in order."""
    seen: list[str] = []
    python, javascript = analyze_python, analyze_javascript

    def count_python(path: str, *args: Any) -> Any:
        seen.append(path)
        return python(path, *args)

    def count_javascript(path: str, *args: Any) -> Any:
        seen.append(path)
        return javascript(path, *args)

    # analyse.py imports each analyzer from its module when it runs it (start-up), so patch it there.
    monkeypatch.setattr(pyast_frontend, "analyze_python", count_python)
    monkeypatch.setattr(jsts_frontend, "analyze_javascript", count_javascript)
    return seen


def _namespaces(cache: MemoryCache) -> set[str]:
    return {namespace for namespace, _ in cache._entries}


def test_an_unchanged_tree_is_served_from_the_bundle_entry(tmp_path: Path, analysed: list[str]) -> None:
    shutil.copytree(EXAMPLES / "ops-agent", tmp_path / "ops")
    cache = MemoryCache()
    cold = scan_tree(tmp_path / "ops", cache=cache)
    assert _namespaces(cache) == {"facts", "tree", "bundle"}
    assert analysed
    analysed.clear()
    warm = scan_tree(tmp_path / "ops", cache=cache)
    assert analysed == []
    assert warm == cold
    assert warm.model_dump_json() == cold.model_dump_json()


def test_a_changed_non_code_file_reuses_the_linked_tree(tmp_path: Path, analysed: list[str]) -> None:
    shutil.copytree(EXAMPLES / "ops-agent", tmp_path / "ops")
    cache = MemoryCache()
    cold = scan_tree(tmp_path / "ops", cache=cache)
    (tmp_path / "ops" / "NOTES.txt").write_text("not code\n")
    analysed.clear()
    warm = scan_tree(tmp_path / "ops", cache=cache)
    assert analysed == []
    assert warm.sourceIdentity.workspaceDigest != cold.sourceIdentity.workspaceDigest
    assert warm.contentHash != cold.contentHash
    assert warm.model_dump_json() == scan_tree(tmp_path / "ops").model_dump_json()


def test_a_changed_code_file_is_the_only_one_analysed_again(tmp_path: Path, analysed: list[str]) -> None:
    generate(tmp_path / "tree", total_lines=1_500)
    cache = MemoryCache()
    scan_tree(tmp_path / "tree", cache=cache)
    changed = sorted((tmp_path / "tree").rglob("helpers*.py"))[0]
    changed.write_text(changed.read_text() + "\n\ndef extra() -> None:\n    pass\n")
    analysed.clear()
    warm = scan_tree(tmp_path / "tree", cache=cache)
    assert analysed == [changed.relative_to(tmp_path / "tree").as_posix()]
    assert warm.model_dump_json() == scan_tree(tmp_path / "tree").model_dump_json()


def test_corrupt_tree_and_bundle_entries_are_misses(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "support-agent-ts", tmp_path / "ts")
    disk = DirectoryCache(tmp_path / "cache")
    cold = scan_tree(tmp_path / "ts", cache=disk)
    for namespace in ("tree", "bundle"):
        for entry in (tmp_path / "cache" / namespace).rglob("*"):
            if entry.is_file():
                entry.write_bytes(b'{"files": [')
    assert scan_tree(tmp_path / "ts", cache=disk).model_dump_json() == cold.model_dump_json()


def test_the_streamed_content_hash_is_the_content_hash_of_the_whole_bundle(tmp_path: Path) -> None:
    generate(tmp_path / "tree", total_lines=2_000)
    # Text the canonical fast path must hand to the reference encoder, and text it keeps.
    (tmp_path / "tree" / "odd.py").write_text(
        "from langchain_core.tools import tool\n\n\n@tool\n"
        'def caf\u00e9(x: str) -> str:\n    """D\u00e9crire \U0001f600 \u2028 \\x01 "q" \\\\ \u4e2d."""\n    return x\n'
    )
    bundle = scan_tree(tmp_path / "tree")
    assert any(tool.name == "caf\u00e9" for tool in bundle.tools)
    assert bundle.contentHash == content_hash(bundle.to_json_dict())


def test_the_garbage_collector_is_restored_after_a_scan() -> None:
    import gc

    assert gc.isenabled()
    scan_tree(EXAMPLES / "research-assistant")
    assert gc.isenabled()
    gc.disable()
    try:
        scan_tree(EXAMPLES / "research-assistant")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_after_a_pause_cycles_stay_collectable_and_a_host_freeze_is_kept() -> None:
    import gc
    import weakref

    from assay.backend.collector import collector_paused

    class Node:
        me: object

    with collector_paused():
        node = Node()
        node.me = node  # a cycle made during paused work, and garbage once the pause ends
        ref = weakref.ref(node)
        del node
    # What survived the pause is counted as old, never frozen: a full collection still frees it.
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert ref() is None
    # Objects a host application froze itself stay frozen across a scan.
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        scan_tree(EXAMPLES / "research-assistant")
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
