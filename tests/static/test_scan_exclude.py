"""Exclude patterns (assay.toml `exclude`, `exclude=` / `--exclude`): what they leave out is never read,
and always recorded (coverage.excluded, a skippedFiles entry per path, a limitation); bundles without
patterns are unchanged; the same tree and patterns give the same bundle."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from assay.backend.engines.static.cache import MemoryCache
from assay.backend.engines.static.scan import scan_tree, scan_tree_canonical
from assay.backend.engines.static.walk import ExcludeError
from assay.backend.scans.bundle import content_hash
from assay.backend.scans.bundle_schema import bundle_json_schema

AGENT = """
import shutil
from langchain_core.tools import tool


@tool
def lookup(key: str) -> str:
    \"\"\"Look a record up.\"\"\"
    return key.upper()
"""


def _tree(root: Path, declaration: str | None = None) -> Path:
    (root / "scripts").mkdir(parents=True)
    (root / "pkg" / "tests").mkdir(parents=True)
    (root / "agent.py").write_text(AGENT)
    (root / "scripts" / "purge.py").write_text("import shutil\nshutil.rmtree('/var/cache/app')\n")
    (root / "pkg" / "tests" / "test_agent.py").write_text("def test_a() -> None:\n    assert True\n")
    (root / "pkg" / "ui.test.ts").write_text("export const x = 1;\n")
    if declaration is not None:
        (root / "assay.toml").write_text(declaration)
    return root


def _skipped(bundle: dict[str, object]) -> dict[str, str]:
    coverage = bundle["coverage"]
    assert isinstance(coverage, dict)
    return {s["path"]: s["detail"] for s in coverage["skippedFiles"] if s["reason"] == "excluded"}


def test_declared_and_given_patterns_leave_code_out_and_say_so(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", 'version = "1"\nexclude = ["tests/"]\n')
    bundle = scan_tree(root, exclude=["scripts/*.py", "*.test.ts"]).to_json_dict()
    assert bundle["coverage"]["excluded"] == ["tests/", "scripts/*.py", "*.test.ts"]
    # A folder is one entry, never walked; each entry names the pattern that matched.
    assert _skipped(bundle) == {
        "pkg/tests": "tests/",
        "scripts/purge.py": "scripts/*.py",
        "pkg/ui.test.ts": "*.test.ts",
    }
    assert [f["path"] for f in bundle["coverage"]["files"]] == ["agent.py"]
    assert bundle["coverage"]["complete"] is True  # leaving code out is not partial coverage
    assert not [a for a in bundle["actions"] if a["location"]["path"].startswith("scripts/")]
    assert any(
        lim.startswith("Left out by exclude patterns (tests/, scripts/*.py, *.test.ts): 3 path(s) not analysed")
        for lim in bundle["limitations"]
    )
    jsonschema.validate(bundle, bundle_json_schema())
    assert bundle["declaration"] is not None and bundle["declaration"]["path"] == "assay.toml"


def test_without_patterns_the_bundle_has_no_excluded_member(tmp_path: Path) -> None:
    bundle = scan_tree(_tree(tmp_path / "t")).to_json_dict()
    assert "excluded" not in bundle["coverage"]
    assert _skipped(bundle) == {}
    assert not any(lim.startswith("Left out") for lim in bundle["limitations"])
    assert any(a["location"]["path"] == "scripts/purge.py" for a in bundle["actions"])


def test_the_same_patterns_give_the_same_bundle(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    cache = MemoryCache()
    first = scan_tree(root, exclude=["scripts/"], cache=cache)
    again = scan_tree(root, exclude=["scripts/"], cache=cache)  # from the cache
    canonical = scan_tree_canonical(root, exclude=["scripts/"])
    assert first.model_dump_json() == again.model_dump_json()
    assert first.contentHash == canonical.bundle.contentHash == content_hash(first.to_json_dict())
    assert json.loads(canonical.canonical)["coverage"]["excluded"] == ["scripts/"]
    # Other patterns, or none, are another bundle (the cache does not hand back the excluded one).
    assert scan_tree(root, cache=cache).contentHash != first.contentHash
    assert scan_tree(root, exclude=["scripts/", "pkg/"], cache=cache).contentHash != first.contentHash


def test_the_declaration_is_always_read_and_a_bad_pattern_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", 'version = "1"\nexclude = ["*"]\n')
    bundle = scan_tree(root).to_json_dict()
    assert bundle["declaration"] is not None and bundle["coverage"]["files"] == []
    with pytest.raises(ExcludeError):
        scan_tree(root, exclude=["!"])
    # In assay.toml a bad pattern makes the declaration invalid (reported), and nothing is left out.
    (root / "assay.toml").write_text('version = "1"\nexclude = ["scripts/", "!"]\n')
    bundle = scan_tree(root).to_json_dict()
    assert bundle["declaration"] is None and "excluded" not in bundle["coverage"]
    invalid = [f for f in bundle["frontier"] if f["kind"] == "invalid_declaration"]
    assert invalid and "exclude" in invalid[0]["detail"]
