"""``scan_tree``: analyse a source tree into an Evidence Bundle v1.0.0. Never executes what it reads.

Pipeline: walk the tree (walk.py) -> per-file facts from the language analyzers, cached by content
digest (cache.py) -> link the files (link.py) -> declaration (declaration.py) -> findings
(findings.py) -> coverage, frontier and limitations -> the bundle with its contentHash.

Caching: each file's facts are cached under a key made of everything that determines them (engine,
facts and rule pack versions, path, language, content digest); the linked result of a whole tree is
cached under the sorted keys of its files, with the per-file summary the bundle's coverage needs, so an
unchanged tree is neither re-analysed nor re-linked and a changed one re-analyses only what changed.
The bundle itself is cached under everything else it is made from (every file read and its digest,
the skips, the declaration, the git identity): a rescan of an unchanged workspace reads and hashes
every file, reads the git state, and returns the stored bundle.

Speed: the cyclic garbage collector is paused while a scan runs (``assay.backend.collector``). A scan holds
hundreds of thousands of objects (syntax trees, facts models) and creates no reference cycles worth
collecting; every full collection traversed all of them again, which cost as much as the analysis.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from assay.backend.canonical import (
    DIGEST_PREFIX,
    canonical_bytes,
    canonical_bytes_of_json,
    canonical_bytes_of_schema_json,
    canonical_object,
    digest_bytes,
    digest_json,
    short_id,
)
from assay.backend.collector import collect_young, collector_paused
from assay.backend.engines.static.analyse import analyse_in_workers, analyse_source
from assay.backend.engines.static.cache import FactsCache
from assay.backend.engines.static.declaration import declared_exclusions, declared_include_tests, parse_declaration
from assay.backend.engines.static.facts import FACTS_VERSION, FileFacts
from assay.backend.engines.static.findings import compute_findings
from assay.backend.engines.static.identity import GitIdentity, file_set_digest, git_identity, path_set_digest
from assay.backend.engines.static.link import Linked, link
from assay.backend.engines.static.rules.pack import RulePack, load_rule_pack
from assay.backend.engines.static.walk import DEFAULT_MAX_FILE_BYTES, Skipped, SourceFile, Walk, walk_tree
from assay.backend.scans.bundle import (
    BUNDLE_TYPE,
    SCHEMA_VERSION,
    AnalysedFile,
    Coverage,
    EvidenceBundle,
    FileSet,
    FrontierItem,
    Language,
    Producer,
    SkippedFile,
    SourceIdentity,
)

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.workspace import Workspace

# The engine's own version: bump it whenever analysis changes what it reports for the same input.
ENGINE_VERSION = "1.243.0"

# Items of a bundle list serialised and re-encoded together when the content hash is computed.
_HASH_CHUNK = 256

# Below this many files to analyse, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 64

# Skips that lose analysable code (and so make coverage incomplete); the rest are by design.
_LOSSY_SKIPS = frozenset({"binary", "too_large", "invalid_encoding", "unreadable", "symlink_outside_tree"})


class AnalysedFileFacts(Protocol):
    """What the bundle's coverage needs of each analysed file (``FileFacts`` and ``FileSummary``)."""

    @property
    def path(self) -> str: ...
    @property
    def language(self) -> Language: ...
    @property
    def digest(self) -> str: ...
    @property
    def lines(self) -> int: ...
    @property
    def parseError(self) -> str | None: ...  # noqa: N802 - the facts' field name


class FileSummary(BaseModel):
    """The part of a file's facts the bundle needs once the tree is linked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    language: Language
    digest: str
    lines: int
    parseError: str | None = None


class LinkedTree(BaseModel):
    """The cache entry of a whole tree: its files and their link."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: list[FileSummary]
    linked: Linked


@dataclass(frozen=True, slots=True)
class CanonicalBundle:
    """A bundle and its RFC 8785 bytes (``contentHash`` included): what a store or an Evaluation's
    membership keeps, without encoding the bundle a second time."""

    bundle: EvidenceBundle
    canonical: bytes


def scan_tree(
    root: Path,
    *,
    cache: FactsCache | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    rules: RulePack | None = None,
    workers: int = 1,
    exclude: Sequence[str] = (),
    include_tests: bool = False,
) -> EvidenceBundle:
    """Scan ``root`` and return its Evidence Bundle. Raises ``WalkError`` only when root is unusable, and
    ``ExcludeError`` for a bad pattern.

    ``workers`` > 1 analyses the files in that many worker processes when at least
    ``PARALLEL_MIN_FILES`` need analysing; the bundle is the same byte for byte. Paths matching the
    declaration's ``exclude`` patterns, then ``exclude`` (gitignore syntax), are left out and recorded. Test
    code (testcode.py) is recorded and not analysed, unless ``include_tests`` or the declaration's
    ``include_tests = true``."""
    with collector_paused():
        # In a function of its own, so that what the scan held is freed before collection resumes.
        bundle, _ = _scan(
            root, cache, max_file_bytes, rules or load_rule_pack(), workers, exclude, include_tests, canonical=False
        )
        return bundle


def scan_tree_canonical(
    root: Path,
    *,
    cache: FactsCache | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    rules: RulePack | None = None,
    workers: int = 1,
    exclude: Sequence[str] = (),
    include_tests: bool = False,
) -> CanonicalBundle:
    """``scan_tree`` and the bundle's canonical bytes, taken from the content hash's own encoding."""
    with collector_paused():
        bundle, canonical = _scan(
            root, cache, max_file_bytes, rules or load_rule_pack(), workers, exclude, include_tests, canonical=True
        )
        assert canonical is not None
        return CanonicalBundle(bundle=bundle, canonical=canonical)


def _scan(
    root: Path,
    cache: FactsCache | None,
    max_file_bytes: int,
    rules: RulePack,
    workers: int,
    exclude: Sequence[str],
    include_tests: bool,
    *,
    canonical: bool,
) -> tuple[EvidenceBundle, bytes | None]:
    walk = walk_tree(
        root,
        max_file_bytes=max_file_bytes,
        exclude=[*declared_exclusions(root), *exclude],
        include_tests=include_tests or declared_include_tests(root),
    )
    workspace = _own_packages(walk, rules)
    keys = [_facts_key(src, rules, workspace) for src in walk.sources]
    tree_key = digest_json([ENGINE_VERSION, rules.digest, sorted(keys)])
    git = git_identity(walk.root)
    bundle_key = _bundle_key(walk, tree_key, git, rules)
    if cache is not None:
        hit = cache.get("bundle", bundle_key)
        if hit is not None:
            try:
                cached = EvidenceBundle.model_validate_json(hit)
            except ValueError:
                pass
            else:
                return cached, canonical_bytes_of_json(hit) if canonical else None
    files, linked = _analyse(walk.sources, keys, tree_key, rules, cache, max(1, workers), workspace)
    parts = bundle_parts(walk, files, linked, rules, git=git)
    encoded: bytes | None = None
    if canonical:
        # The members' bytes are kept (the size of the bundle's JSON) to give the whole bundle's.
        members = {name: b"".join(_member_bytes(value)) for name, value in parts.items()}
        content_hash = digest_bytes(canonical_object(members))
        members["contentHash"] = canonical_bytes(content_hash)
        encoded = canonical_object(members)
    else:
        content_hash = bundle_content_hash(parts)
    bundle = EvidenceBundle.model_construct(**parts, contentHash=content_hash)
    if cache is not None:
        cache.put("bundle", bundle_key, bundle.model_dump_json().encode("utf-8"))
    return bundle, encoded


def _bundle_key(walk: Walk, tree_key: str, git: GitIdentity, rules: RulePack) -> str:
    """Everything a bundle is made from besides the linked files: every file read (code or not, with
    its digest), every skip, the declaration, the git identity, and the engine and rule pack."""
    declaration = [walk.declaration[0], digest_bytes(walk.declaration[1])] if walk.declaration else None
    return digest_json(
        [
            ENGINE_VERSION,
            rules.digest,
            tree_key,
            [[path, digest] for path, digest in walk.workspace],
            [[s.path, s.reason, s.detail] for s in walk.skipped],
            sorted([language, count] for language, count in walk.unsupported.items()),
            declaration,
            [git.remote, git.commit, git.branch, git.dirty],
            walk.excluded,
        ]
    )


def _analyse(
    sources: Sequence[SourceFile],
    keys: Sequence[str],
    tree_key: str,
    rules: RulePack,
    cache: FactsCache | None,
    workers: int,
    workspace: Workspace | None = None,
) -> tuple[Sequence[AnalysedFileFacts], Linked]:
    """Per-file facts and their link, or the cached link of the same set of files."""
    if cache is not None:
        hit = cache.get("tree", tree_key)
        if hit is not None:
            try:
                tree = LinkedTree.model_validate_json(hit)
            except ValueError:
                pass
            else:
                return tree.files, tree.linked
    facts = _all_facts(sources, keys, rules, cache, workers, workspace)
    linked = link(facts, rules)
    files = [
        FileSummary(path=f.path, language=f.language, digest=f.digest, lines=f.lines, parseError=f.parseError)
        for f in facts
    ]
    # The facts are the largest thing a scan holds: let them go before the bundle is put together
    # (reference counting frees them; a collection here would only traverse the link's live result).
    del facts
    if cache is not None:
        cache.put("tree", tree_key, LinkedTree(files=files, linked=linked).model_dump_json().encode("utf-8"))
    return files, linked


def _own_packages(walk: Walk, rules: RulePack) -> Workspace | None:
    """The tree's own JS/TS packages (``package.json`` names), read once per scan; None without any. A
    package some rule models stays that package (``JsRules.modelled_package``)."""
    scripts = [src.path for src in walk.sources if src.language != "python"]
    if not walk.manifests or not scripts:
        return None
    from assay.backend.engines.static.jsts.rules import compile_rules
    from assay.backend.engines.static.jsts.workspace import own_packages

    found = own_packages(walk.manifests, scripts, compile_rules(rules).modelled_package)
    return found if found.packages else None


def _facts_key(src: SourceFile, rules: RulePack, workspace: Workspace | None = None) -> str:
    parts = [ENGINE_VERSION, FACTS_VERSION, rules.digest, src.path, src.language, src.digest]
    if workspace is not None and workspace.digest is not None and src.language != "python":
        parts.append(workspace.digest)
    return digest_json(parts)


def _all_facts(
    sources: Sequence[SourceFile],
    keys: Sequence[str],
    rules: RulePack,
    cache: FactsCache | None,
    workers: int,
    workspace: Workspace | None = None,
) -> list[FileFacts]:
    """Every file's facts, in order: from the cache, else analysed here or by ``workers`` processes."""
    found: list[FileFacts | None] = [_cached_facts(key, cache) for key in keys]
    missing = [index for index, facts in enumerate(found) if facts is None]
    if workers > 1 and len(missing) >= PARALLEL_MIN_FILES:
        # Facts validated from JSON hold no reference cycles: nothing here for a collection to free.
        for position, data in analyse_in_workers([sources[index] for index in missing], rules, workers, workspace):
            index = missing[position]
            found[index] = FileFacts.model_validate_json(data)
            if cache is not None:
                cache.put("facts", keys[index], data)
    else:
        for index in missing:
            facts = found[index] = analyse_source(sources[index], rules, workspace)
            if cache is not None:
                cache.put("facts", keys[index], facts.model_dump_json().encode("utf-8"))
            collect_young()
    return [facts for facts in found if facts is not None]


def _cached_facts(key: str, cache: FactsCache | None) -> FileFacts | None:
    hit = cache.get("facts", key) if cache is not None else None
    if hit is None:
        return None
    try:
        return FileFacts.model_validate_json(hit)
    except ValueError:
        return None


def assemble_bundle(
    walk: Walk,
    facts: Sequence[AnalysedFileFacts],
    linked: Linked,
    rules: RulePack,
    *,
    git: GitIdentity | None = None,
) -> EvidenceBundle:
    """Join the walk, the per-file facts and the link result into the bundle. The git identity of
    ``walk.root`` is read unless given."""
    parts = bundle_parts(walk, facts, linked, rules, git=git)
    return EvidenceBundle.model_construct(**parts, contentHash=bundle_content_hash(parts))


def bundle_parts(
    walk: Walk,
    facts: Sequence[AnalysedFileFacts],
    linked: Linked,
    rules: RulePack,
    *,
    git: GitIdentity | None = None,
) -> dict[str, Any]:
    """The bundle's members but ``contentHash``, each already a validated model or JSON value."""
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
    if walk.excluded:
        left_out = [s.path for s in walk.skipped if s.reason == "excluded"]
        shown = ", ".join(left_out[:5]) + (f" and {len(left_out) - 5} more" if len(left_out) > 5 else "")
        limitations.append(
            f"Left out by exclude patterns ({', '.join(walk.excluded)}): {len(left_out)} path(s) not analysed"
            + (f" ({shown})" if left_out else "")
            + "; what they can do is not part of this bundle."
        )
    tests = [s for s in walk.skipped if s.reason == "test_code"]
    if tests:
        limitations.append(
            f"{len(tests)} test file(s) left out of the system's surface (test folders such as tests/, and "
            "test_*.py, conftest.py, *.test.ts, *.spec.ts and the like; each is listed in coverage with "
            "reason test_code): the tools, actions, gates, providers and flows they declare are not the "
            "system's. Include them with --include-tests or include_tests = true in assay.toml."
        )

    coverage = _coverage(walk, facts, lossy)
    if git is None:
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
    # Every part is already a validated model: the bundle is put together without validating it all again.
    parts: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "bundleType": BUNDLE_TYPE,
        "producer": Producer(engineVersion=ENGINE_VERSION, rulePack=rules.ref()),
        "sourceIdentity": identity,
        "coverage": coverage,
        "models": list(linked.models),
        "tools": list(linked.tools),
        "actions": list(linked.actions),
        "gates": list(linked.gates),
        "taintFlows": list(linked.taintFlows),
        "declaration": declaration,
        "frontier": frontier,
        "findings": findings,
        "limitations": sorted(set(limitations)),
    }
    return parts


def bundle_content_hash(parts: dict[str, Any]) -> str:
    """``content_hash`` of a bundle given as its top-level members (models or JSON values), computed
    without building the bundle's whole JSON form: the RFC 8785 bytes of an object are ``{``, its
    members in key order as ``"key":value`` joined by ``,``, and ``}``, so the digest is fed member by
    member and, through ``_member_bytes``, piece by piece. Member names are ASCII, for which code-point
    order is the RFC 8785 (UTF-16) order."""
    digest = hashlib.sha256(b"{")
    names = sorted(name for name in parts if name != "contentHash")
    for position, name in enumerate(names):
        if not name.isascii():
            raise ValueError(f"bundle member name {name!r} is not ASCII")
        digest.update(b"," if position else b"")
        digest.update(canonical_bytes(name) + b":")
        for piece in _member_bytes(parts[name]):
            digest.update(piece)
    digest.update(b"}")
    return DIGEST_PREFIX + digest.hexdigest()


def _member_bytes(value: Any) -> Iterator[bytes]:
    """The RFC 8785 bytes of one bundle member, in pieces. A list is written a chunk of items at a
    time by pydantic's serializer and re-encoded canonically as one array, whose bytes without the
    brackets are the chunk's items joined by commas."""
    if isinstance(value, list):
        yield b"["
        for start in range(0, len(value), _HASH_CHUNK):
            yield b"," if start else b""
            yield canonical_bytes_of_schema_json(to_json(value[start : start + _HASH_CHUNK]))[1:-1]
        yield b"]"
    elif isinstance(value, BaseModel):
        yield canonical_bytes_of_schema_json(to_json(value))
    else:
        yield canonical_bytes(value)


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


def _coverage(walk: Walk, facts: Sequence[AnalysedFileFacts], lossy: Sequence[Skipped]) -> Coverage:
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
        excluded=list(walk.excluded),
    )
