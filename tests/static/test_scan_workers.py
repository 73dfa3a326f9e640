"""Analysing files in worker processes gives the same bundle, byte for byte, as analysing in process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench.gen_tree import generate

from assay.backend.engines.static import analyse
from assay.backend.engines.static.cache import MemoryCache
from assay.backend.engines.static.jsts.workspace import Workspace
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.engines.static.scan import PARALLEL_MIN_FILES, scan_tree
from assay.backend.engines.static.walk import SourceFile


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workers") / "tree"
    generate(root, total_lines=8_000)
    assert sum(1 for p in root.rglob("*") if p.suffix in (".py", ".ts")) >= PARALLEL_MIN_FILES
    return root


def test_two_workers_give_the_same_bytes(tree: Path) -> None:
    assert scan_tree(tree, workers=2).model_dump_json() == scan_tree(tree).model_dump_json()


def test_workers_fill_the_same_cache(tree: Path) -> None:
    parallel, serial = MemoryCache(), MemoryCache()
    scan_tree(tree, workers=2, cache=parallel)
    scan_tree(tree, cache=serial)
    assert parallel._entries == serial._entries


def test_workers_are_used_for_large_trees_only(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = analyse.analyse_in_workers

    def spy(sources: list[SourceFile], rules: RulePack, workers: int, workspace: Workspace | None) -> object:
        calls.append(len(sources))
        return real(sources, rules, workers, workspace)

    monkeypatch.setattr("assay.backend.engines.static.scan.analyse_in_workers", spy)
    scan_tree(tree, workers=2)
    assert calls and calls[0] >= PARALLEL_MIN_FILES
    calls.clear()
    scan_tree(Path(__file__).resolve().parents[2] / "examples" / "ops-agent", workers=2)
    assert calls == []


def _killed(chunk: list[SourceFile]) -> list[bytes]:
    # A worker that dies mid-task, as one killed by the kernel would.
    os._exit(1)


def test_a_broken_pool_falls_back_to_analysing_in_process(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = scan_tree(tree).model_dump_json()
    monkeypatch.setattr(analyse, "_analyse_chunk", _killed)
    assert scan_tree(tree, workers=2).model_dump_json() == expected
