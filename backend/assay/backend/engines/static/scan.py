"""``scan_tree``: analyse a source tree into an Evidence Bundle v1.0.0. Never executes what it reads.

Pipeline: walk the tree (walk.py) -> per-file facts from the language analyzers, cached by content
digest (cache.py) -> link the files (link.py) -> declaration (declaration.py) -> findings
(findings.py) -> coverage, frontier and limitations -> the bundle with its contentHash.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from assay.backend.bundle import (
    AnalysedFile,
    Coverage,
    EvidenceBundle,
    FileSet,
    FrontierItem,
    Producer,
    SkippedFile,
    SourceIdentity,
    content_hash,
)
from assay.backend.canonical import digest_json, short_id
from assay.backend.engines.static.cache import FactsCache
from assay.backend.engines.static.declaration import parse_declaration
from assay.backend.engines.static.facts import FACTS_VERSION, FileFacts
from assay.backend.engines.static.findings import compute_findings
from assay.backend.engines.static.identity import file_set_digest, git_identity, path_set_digest
from assay.backend.engines.static.js_analyzer import analyze_javascript
from assay.backend.engines.static.link import Linked, link
from assay.backend.engines.static.python_analyzer import analyze_python
from assay.backend.engines.static.rulepack import RulePack, load_rule_pack
from assay.backend.engines.static.walk import DEFAULT_MAX_FILE_BYTES, Skipped, SourceFile, Walk, walk_tree

# The engine's own version: bump it whenever analysis changes what it reports for the same input.
ENGINE_VERSION = "1.0.0"

# Skips that lose analysable code (and so make coverage incomplete); the rest are by design.
_LOSSY_SKIPS = frozenset({"binary", "too_large", "invalid_encoding", "unreadable", "symlink_outside_tree"})


def scan_tree(
    root: Path,
    *,
    cache: FactsCache | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    rules: RulePack | None = None,
) -> EvidenceBundle:
    """Scan ``root`` and return its Evidence Bundle. Raises ``WalkError`` only when root is unusable."""
    rules = rules or load_rule_pack()
    walk = walk_tree(root, max_file_bytes=max_file_bytes)
    keys = [_facts_key(src, rules) for src in walk.sources]
    facts = [_facts(src, key, rules, cache) for src, key in zip(walk.sources, keys, strict=True)]
    linked = _link(facts, keys, rules, cache)
    return assemble_bundle(walk, facts, linked, rules)


def _facts_key(src: SourceFile, rules: RulePack) -> str:
    return digest_json([ENGINE_VERSION, FACTS_VERSION, rules.digest, src.path, src.language, src.digest])


def _facts(src: SourceFile, key: str, rules: RulePack, cache: FactsCache | None) -> FileFacts:
    if cache is not None:
        hit = cache.get("facts", key)
        if hit is not None:
            try:
                return FileFacts.model_validate_json(hit)
            except ValueError:
                pass
    if src.language == "python":
        facts = analyze_python(src.path, src.data, src.digest, rules)
    else:
        facts = analyze_javascript(src.path, src.data, src.digest, src.language, rules)
    if cache is not None:
        cache.put("facts", key, facts.model_dump_json().encode("utf-8"))
    return facts


def _link(facts: Sequence[FileFacts], keys: Sequence[str], rules: RulePack, cache: FactsCache | None) -> Linked:
    key = digest_json([ENGINE_VERSION, rules.digest, sorted(keys)])
    if cache is not None:
        hit = cache.get("link", key)
        if hit is not None:
            try:
                return Linked.model_validate_json(hit)
            except ValueError:
                pass
    linked = link(facts, rules)
    if cache is not None:
        cache.put("link", key, linked.model_dump_json().encode("utf-8"))
    return linked


def assemble_bundle(walk: Walk, facts: Sequence[FileFacts], linked: Linked, rules: RulePack) -> EvidenceBundle:
    """Join the walk, the per-file facts and the link result into the bundle (pure; no I/O)."""
    declaration = None
    frontier = list(linked.frontier)
    limitations: list[str] = []

    if walk.declaration is None:
        limitations.append("No declaration file (assay.toml): the declared reach is unknown.")
    else:
        result = parse_declaration(*walk.declaration)
        declaration = result.declaration
        if result.error is not None:
            frontier.append(
                FrontierItem(
                    id=short_id("fr", "invalid_declaration", walk.declaration[0]),
                    kind="invalid_declaration",
                    detail=result.error,
                    path=walk.declaration[0],
                )
            )
            limitations.append(f"Declaration file ignored: {result.error}")

    frontier.extend(_skip_frontier(walk.skipped))
    for language, count in sorted(walk.unsupported.items()):
        frontier.append(
            FrontierItem(
                id=short_id("fr", "unsupported_language", language),
                kind="unsupported_language",
                detail=(
                    f"{count} {language} file(s) not analysed: the engine analyses Python, JavaScript and TypeScript"
                ),
            )
        )
        limitations.append(f"{count} {language} file(s) not analysed (language not supported).")

    parse_errors = sorted(f.path for f in facts if f.parseError is not None)
    if parse_errors:
        limitations.append(
            f"{len(parse_errors)} source file(s) failed to parse and were analysed only in part or not at all."
        )
    lossy = [s for s in walk.skipped if s.reason in _LOSSY_SKIPS]
    for reason, count in sorted(Counter(s.reason for s in lossy).items()):
        limitations.append(f"{count} source file(s) skipped ({reason.replace('_', ' ')}).")
    if not linked.models and not linked.tools:
        limitations.append("No AI code recognised: no model calls and no tools were found.")
    limitations.append("Static analysis only: this bundle says what the code can do, not what it was seen doing.")

    coverage = _coverage(walk, facts, lossy)
    git = git_identity(walk.root)
    identity = SourceIdentity(
        gitRemote=git.remote,
        gitCommit=git.commit,
        branch=git.branch,
        dirty=git.dirty,
        workspaceDigest=file_set_digest(walk.workspace),
        pathSetDigest=path_set_digest(f.path for f in facts),
    )
    frontier.sort(key=lambda f: (f.kind, f.path or (f.location.path if f.location else ""), f.id))
    findings = compute_findings(linked.tools, linked.actions, linked.gates, linked.taintFlows, frontier, declaration)
    body = {
        "schemaVersion": "1.0.0",
        "bundleType": "assay.evidence-bundle",
        "producer": Producer(engineVersion=ENGINE_VERSION, rulePack=rules.ref()).model_dump(mode="json"),
        "sourceIdentity": identity.model_dump(mode="json"),
        "coverage": coverage.model_dump(mode="json"),
        "models": [m.model_dump(mode="json") for m in linked.models],
        "tools": [t.model_dump(mode="json") for t in linked.tools],
        "actions": [a.model_dump(mode="json") for a in linked.actions],
        "gates": [g.model_dump(mode="json") for g in linked.gates],
        "taintFlows": [t.model_dump(mode="json") for t in linked.taintFlows],
        "declaration": declaration.model_dump(mode="json") if declaration else None,
        "frontier": [f.model_dump(mode="json") for f in frontier],
        "findings": [f.model_dump(mode="json") for f in findings],
        "limitations": sorted(set(limitations)),
    }
    return EvidenceBundle.model_validate({**body, "contentHash": content_hash(body)})


def _skip_frontier(skipped: Sequence[Skipped]) -> list[FrontierItem]:
    return [
        FrontierItem(
            id=short_id("fr", "skipped_file", s.path, s.reason),
            kind="skipped_file",
            detail=f"{s.reason.replace('_', ' ')}" + (f": {s.detail}" if s.detail else ""),
            path=s.path,
        )
        for s in skipped
        if s.reason in _LOSSY_SKIPS
    ]


def _coverage(walk: Walk, facts: Sequence[FileFacts], lossy: Sequence[Skipped]) -> Coverage:
    analysed = [AnalysedFile(path=f.path, language=f.language, digest=f.digest, lines=f.lines) for f in facts]
    skipped_code = [s for s in walk.skipped if s.reason in _LOSSY_SKIPS or s.reason == "unsupported_language"]
    discovered = sorted([*(f.path for f in analysed), *(s.path for s in skipped_code)])
    parse_errors = sum(1 for f in facts if f.parseError is not None)
    return Coverage(
        discovered=FileSet(count=len(discovered), digest=digest_json(discovered)),
        analysed=FileSet(count=len(analysed), digest=file_set_digest((f.path, f.digest) for f in analysed)),
        skipped=FileSet(count=len(walk.skipped), digest=digest_json(sorted([s.path, s.reason] for s in walk.skipped))),
        files=analysed,
        skippedFiles=[SkippedFile(path=s.path, reason=s.reason, detail=s.detail) for s in walk.skipped],
        languages=dict(sorted(Counter(f.language for f in analysed).items())),
        parseErrors=parse_errors,
        complete=parse_errors == 0 and not lossy and not walk.unsupported and bool(analysed),
    )
