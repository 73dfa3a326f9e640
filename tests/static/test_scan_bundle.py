"""Bundle-level guarantees: determinism, content hash, schema, identity, declaration, cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from dulwich.repo import Repo

from assay.backend.canonical import canonical_bytes, reference_canonical_bytes
from assay.backend.engines.static.cache import DirectoryCache, MemoryCache
from assay.backend.engines.static.scan import scan_tree, scan_tree_canonical
from assay.backend.scans.bundle import content_hash
from assay.backend.scans.bundle_schema import bundle_json_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_NAMES = ["ops-agent", "research-assistant", "support-agent-ts"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_two_scans_give_byte_identical_bundles(name: str) -> None:
    first = scan_tree(EXAMPLES / name).model_dump_json()
    second = scan_tree(EXAMPLES / name).model_dump_json()
    assert first == second


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_bundle_validates_against_published_schema_and_hash_recomputes(name: str) -> None:
    bundle = scan_tree(EXAMPLES / name).to_json_dict()
    jsonschema.Draft202012Validator(bundle_json_schema()).validate(bundle)
    assert bundle["contentHash"] == content_hash(bundle)
    assert bundle["contentHash"].startswith("sha256:") and len(bundle["contentHash"]) == 71


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_the_canonical_scan_gives_the_same_bundle_and_its_exact_rfc8785_bytes(name: str) -> None:
    cache = MemoryCache()
    for _ in range(2):  # analysed, then the whole bundle from the cache
        scanned = scan_tree_canonical(EXAMPLES / name, cache=cache)
        assert scanned.bundle == scan_tree(EXAMPLES / name)
        assert scanned.canonical == reference_canonical_bytes(scanned.bundle.to_json_dict())
        assert content_hash(json.loads(scanned.canonical)) == scanned.bundle.contentHash


def test_published_schema_file_is_in_step_with_the_models() -> None:
    published = json.loads((EXAMPLES.parent / "docs" / "evidence-bundle-1.0.0.schema.json").read_text())
    assert published == bundle_json_schema()


def test_bundle_carries_no_source_text(tmp_path: Path) -> None:
    secret_line = "UNIQUE_SOURCE_MARKER_93715 = subprocess.run(cmd, shell=True)"
    (tmp_path / "agent.py").write_text(
        "import subprocess\nfrom langchain_core.tools import tool\n\n\n@tool\n"
        f'def run(cmd: str) -> str:\n    """Run it."""\n    {secret_line}\n    return ""\n'
    )
    text = scan_tree(tmp_path).model_dump_json()
    assert "UNIQUE_SOURCE_MARKER_93715" not in text
    assert "shell=True" not in text


def test_changing_one_file_changes_the_workspace_digest_only_where_it_should(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "research-assistant", tmp_path / "ra")
    before = scan_tree(tmp_path / "ra")
    (tmp_path / "ra" / "notes.txt").write_text("a note, not code\n")
    after = scan_tree(tmp_path / "ra")
    assert before.sourceIdentity.workspaceDigest != after.sourceIdentity.workspaceDigest
    assert before.sourceIdentity.pathSetDigest == after.sourceIdentity.pathSetDigest
    assert before.coverage.analysed == after.coverage.analysed


def test_git_identity_clean_then_dirty(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "research-assistant", root)
    repo = Repo.init(str(root))
    config = repo.get_config()
    config.set((b"remote", b"origin"), b"url", b"https://user:s3cret@example.com/org/ra.git")
    config.write_to_path()
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    repo.get_worktree().stage(paths)
    commit = repo.get_worktree().commit(message=b"init", committer=b"T <t@example.com>", author=b"T <t@example.com>")

    clean = scan_tree(root).sourceIdentity
    assert clean.gitCommit == commit.decode()
    assert clean.branch == "master"
    assert clean.gitRemote == "https://example.com/org/ra.git"  # credentials never carried
    assert clean.dirty is False

    (root / "research" / "tools.py").write_text("# changed\n")
    assert scan_tree(root).sourceIdentity.dirty is True


def test_git_filters_make_dirty_unknown_rather_than_run_them(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "research-assistant", root)
    marker = tmp_path / "filter-ran"
    repo = Repo.init(str(root))
    config = repo.get_config()
    config.set((b"filter", b"evil"), b"clean", f"touch {marker}".encode())
    config.write_to_path()
    (root / ".gitattributes").write_text("*.py filter=evil\n")
    repo.get_worktree().stage([".gitattributes"])
    repo.get_worktree().commit(message=b"init", committer=b"T <t@example.com>", author=b"T <t@example.com>")
    identity = scan_tree(root).sourceIdentity
    assert identity.dirty == "unknown"
    assert not marker.exists()


def test_no_declaration_is_a_limitation(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "research-assistant", tmp_path / "ra")
    (tmp_path / "ra" / "assay.toml").unlink()
    bundle = scan_tree(tmp_path / "ra")
    assert bundle.declaration is None
    assert "No declaration file (assay.toml): the declared reach is unknown." in bundle.limitations


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('version = "1"\nsystem = \n', "invalid TOML"),
        ('version = "2"\n', "version"),
        ('version = "1"\n[[actions]]\nclass = "teleport"\n', "actions.0.class"),
        ('version = "1"\nsurprise = true\n', "surprise"),
    ],
)
def test_invalid_declaration_is_a_frontier_item(tmp_path: Path, text: str, expected: str) -> None:
    shutil.copytree(EXAMPLES / "research-assistant", tmp_path / "ra")
    (tmp_path / "ra" / "assay.toml").write_text(text)
    bundle = scan_tree(tmp_path / "ra")
    assert bundle.declaration is None
    items = [f for f in bundle.frontier if f.kind == "invalid_declaration"]
    assert len(items) == 1 and expected in items[0].detail
    assert any(lim.startswith("Declaration file ignored: assay.toml:") for lim in bundle.limitations)


def test_declaration_is_parsed_into_declared_reach() -> None:
    declaration = scan_tree(EXAMPLES / "ops-agent").declaration
    assert declaration is not None
    assert declaration.system == "ops-agent"
    assert declaration.tools == ["lookup_incident", "restart_service", "run_diagnostic"]
    assert [(a.actionClass, a.tools, a.requiresApproval) for a in declaration.actions] == [
        ("network.egress", ["lookup_incident"], False),
        ("shell.exec", ["restart_service"], True),
    ]
    assert declaration.scenarios[0].states == ["receive_alert", "diagnose", "approve", "remediate"]


def test_cache_gives_the_same_bundle_and_is_used(tmp_path: Path) -> None:
    cache = MemoryCache()
    cold = scan_tree(EXAMPLES / "ops-agent", cache=cache)
    assert any(ns == "facts" for ns, _ in cache._entries)
    warm = scan_tree(EXAMPLES / "ops-agent", cache=cache)
    assert canonical_bytes(cold.to_json_dict()) == canonical_bytes(warm.to_json_dict())

    disk = DirectoryCache(tmp_path / "cache")
    assert scan_tree(EXAMPLES / "ops-agent", cache=disk) == cold
    # A corrupt entry is a miss, not an error.
    for entry in (tmp_path / "cache").rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"{not json")
    assert scan_tree(EXAMPLES / "ops-agent", cache=disk) == cold
