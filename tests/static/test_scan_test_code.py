"""Test code is not the system's: by default a repository's tests are recognised by the test runners'
conventions, listed in the bundle's coverage (reason ``test_code``, with the convention) and counted in a
limitation, but their tools, actions and providers are not the system's; ``include_tests`` (the
argument, ``--include-tests``, ``include_tests = true`` in assay.toml) counts them. A name that only
resembles a test's is never left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from assay.backend.engines.static.cache import MemoryCache
from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle_schema import bundle_json_schema
from assay.server.cli import main

PY_TOOL = '''
import subprocess
from langchain_core.tools import tool
from openai import OpenAI


@tool
def {name}(command: str) -> str:
    """Run a command."""
    OpenAI().chat.completions.create(model="gpt-4o", messages=[])
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout
'''

TS_TOOL = """
import {{ tool }} from "ai";
import {{ z }} from "zod";
import {{ execSync }} from "node:child_process";

export const {name} = tool({{
  description: "Run a command",
  parameters: z.object({{ command: z.string() }}),
  execute: async ({{ command }}) => execSync(command).toString(),
}});
"""

# Test code by each runner's convention -> the convention recorded.
TEST_FILES = {
    "tests/test_agent.py": "tests/",
    "pkg/tests/helpers.py": "tests/",
    "pkg/test/fixtures/tools.py": "test/",
    "test_tools.py": "test_*.py",
    "pkg/tools_test.py": "*_test.py",
    "conftest.py": "conftest.py",
    "shop/tests.py": "tests.py",
    "src/__tests__/tools.ts": "__tests__/",
    "src/__mocks__/client.ts": "__mocks__/",
    "spec/tools.ts": "spec/",
    "src/tools.test.ts": "*.test.ts",
    "src/panel.spec.tsx": "*.spec.tsx",
    "src/db.test.mjs": "*.test.mjs",
}

# Production code whose names only resemble a test's.
PRODUCTION_FILES = (
    "agent.py",
    "testing_utils/helpers.py",
    "testing/tools.py",
    "tests_helpers/tools.py",
    "testdata/tools.py",
    "contest.py",
    "pkg/latest.py",
    "pkg/test.py",
    "pkg/testify.py",
    "pkg/mytest.py",
    "src/attest.ts",
    "src/latest.ts",
    "src/spec.ts",
    "src/testing.ts",
    "specs/tools.ts",
    "src/contest/tools.ts",
    # Names Node's test runner would collect, but shipped code uses too.
    "mastra/agents/test-agent-a.ts",
    "src/run-test.mjs",
    "src/run_test.js",
    "src/test.js",
)


def _name(path: str) -> str:
    return "t_" + "".join(c if c.isalnum() else "_" for c in path)


def _write(root: Path, path: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    template = PY_TOOL if path.endswith(".py") else TS_TOOL
    target.write_text(template.format(name=_name(path)))


def _tree(root: Path, files: Any = (*TEST_FILES, *PRODUCTION_FILES)) -> Path:
    for path in files:
        _write(root, path)
    return root


def _tool_paths(bundle: dict[str, Any]) -> set[str]:
    return {t["location"]["path"] for t in bundle["tools"]}


def _test_code(bundle: dict[str, Any]) -> dict[str, str]:
    return {s["path"]: s["detail"] for s in bundle["coverage"]["skippedFiles"] if s["reason"] == "test_code"}


def test_test_code_is_listed_but_not_the_systems(tmp_path: Path) -> None:
    bundle = scan_tree(_tree(tmp_path / "t")).to_json_dict()
    assert _test_code(bundle) == TEST_FILES
    # Every tool, action and provider the tests declare is left out; the system's own are all there.
    assert _tool_paths(bundle) == set(PRODUCTION_FILES)
    assert {a["location"]["path"] for a in bundle["actions"]} <= set(PRODUCTION_FILES)
    assert {m["location"]["path"] for m in bundle["models"]} <= set(PRODUCTION_FILES)
    assert {f["path"] for f in bundle["coverage"]["files"]} == set(PRODUCTION_FILES)
    # Leaving tests out is by design: coverage stays complete, and a limitation says how many.
    assert bundle["coverage"]["complete"] is True
    assert [lim for lim in bundle["limitations"] if lim.startswith("13 test file(s) left out of the system's surface")]
    jsonschema.validate(bundle, bundle_json_schema())


def test_names_resembling_tests_are_production_code(tmp_path: Path) -> None:
    bundle = scan_tree(_tree(tmp_path / "t", PRODUCTION_FILES)).to_json_dict()
    assert _test_code(bundle) == {}
    assert _tool_paths(bundle) == set(PRODUCTION_FILES)
    assert not [lim for lim in bundle["limitations"] if "test file(s)" in lim]


def test_test_code_still_counts_in_the_workspace_digest(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", ("agent.py", "tests/test_agent.py"))
    before = scan_tree(root).to_json_dict()
    (root / "tests" / "test_agent.py").write_text("def test_nothing() -> None:\n    assert True\n")
    after = scan_tree(root).to_json_dict()
    assert before["sourceIdentity"]["workspaceDigest"] != after["sourceIdentity"]["workspaceDigest"]
    assert before["tools"] == after["tools"]


@pytest.mark.parametrize("how", ["argument", "declaration"])
def test_include_tests_counts_them_as_the_systems(tmp_path: Path, how: str) -> None:
    root = _tree(tmp_path / "t")
    if how == "declaration":
        (root / "assay.toml").write_text('version = "1"\ninclude_tests = true\n')
    cache = MemoryCache()
    if how == "argument":
        # A cached bundle of the same tree without its tests is never returned for one with them.
        assert _test_code(scan_tree(root, cache=cache).to_json_dict()) == TEST_FILES
    bundle = scan_tree(root, cache=cache, include_tests=how == "argument").to_json_dict()
    assert _test_code(bundle) == {}
    assert _tool_paths(bundle) == {*TEST_FILES, *PRODUCTION_FILES}
    assert not [lim for lim in bundle["limitations"] if "test file(s)" in lim]
    if how == "declaration":
        assert bundle["declaration"] is not None


def test_a_declaration_not_saying_true_leaves_tests_out(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", ("agent.py", "tests/test_agent.py"))
    (root / "assay.toml").write_text('version = "1"\ninclude_tests = "yes"\n')
    bundle = scan_tree(root).to_json_dict()
    assert _test_code(bundle) == {"tests/test_agent.py": "tests/"}
    assert [f for f in bundle["frontier"] if f["kind"] == "invalid_declaration"]


def test_an_exclude_pattern_wins_over_the_test_convention(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", ("agent.py", "tests/test_agent.py", "src/tools.test.ts"))
    bundle = scan_tree(root, exclude=["tests/"]).to_json_dict()
    reasons = {s["path"]: s["reason"] for s in bundle["coverage"]["skippedFiles"]}
    assert reasons == {"tests": "excluded", "src/tools.test.ts": "test_code"}


def test_same_tree_same_bundle(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    assert scan_tree(root).to_json_dict() == scan_tree(root).to_json_dict()


def test_scan_cli_include_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path / "t", ("agent.py", "tests/test_agent.py"))
    assert main(["scan", str(root), "--json", "--no-cache"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    assert _tool_paths(bundle) == {"agent.py"} and _test_code(bundle) == {"tests/test_agent.py": "tests/"}
    assert main(["scan", str(root), "--json", "--no-cache", "--include-tests"]) == 0
    bundle = json.loads(capsys.readouterr().out)
    assert _tool_paths(bundle) == {"agent.py", "tests/test_agent.py"} and _test_code(bundle) == {}
