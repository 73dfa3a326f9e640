"""Walk a source tree: which files exist, which are analysed, which are skipped and why.

The walk never follows a symbolic link (a link that points out of the tree is recorded as
``symlink_outside_tree``; one inside it as ``symlink_inside_tree``, since its target is walked under
its own path), never reads a file twice, and never fails on a single bad file: every file it cannot
analyse is recorded with a reason. Paths are POSIX and relative to the root, and every list is sorted,
so the same tree always gives the same walk.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from assay.backend.canonical import DIGEST_PREFIX
from assay.backend.engines.static.testcode import convention_of_test_file, is_test_directory
from assay.backend.scans.bundle import Language, SkipReason

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

# Directories that hold dependencies, build output or tool state rather than the system's own code.
IGNORED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
        "dist",
        "build",
        ".next",
        ".turbo",
        "coverage",
        ".idea",
        ".vscode",
    }
)

LANGUAGE_BY_SUFFIX: dict[str, Language] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}

# Code in languages the engine does not analyse: recorded, never silently dropped.
UNSUPPORTED_BY_SUFFIX: dict[str, str] = {
    ".go": "Go",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".rs": "Rust",
    ".cs": "C#",
    ".php": "PHP",
    ".swift": "Swift",
    ".scala": "Scala",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".sh": "Shell",
    ".bash": "Shell",
    ".ps1": "PowerShell",
    ".lua": "Lua",
    ".r": "R",
    ".jl": "Julia",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".dart": "Dart",
    ".vue": "Vue",
    ".svelte": "Svelte",
}

DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024
_BINARY_SNIFF_BYTES = 8192


class WalkError(Exception):
    """The root itself cannot be scanned (missing, not a directory, unreadable)."""


class ExcludeError(ValueError):
    """An exclude pattern that is not a gitignore-style pattern."""


def exclude_spec(patterns: Sequence[str]) -> GitIgnoreSpec | None:
    """The matcher of ``patterns`` (gitignore syntax, relative to the root); None when there are none.
    Raises ExcludeError for a pattern that cannot be read."""
    kept = [p for p in patterns if p.strip()]
    if not kept:
        return None
    # Imported here: most scans have no exclude pattern, and loading the matcher's modules took 8 ms of
    # the start of every `assay scan`.
    from pathspec import GitIgnoreSpec

    try:
        return GitIgnoreSpec.from_lines(kept)
    except ValueError as exc:
        raise ExcludeError(f"bad exclude pattern: {exc}") from exc


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to analyse: its text as UTF-8 bytes, its digest over the bytes on disk, its language."""

    path: str
    language: Language
    data: bytes
    digest: str
    lines: int


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: SkipReason
    detail: str | None = None


@dataclass(slots=True)
class Walk:
    root: Path
    sources: list[SourceFile] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # Every regular file read in the tree (code or not), for the workspace digest: (path, digest).
    workspace: list[tuple[str, str]] = field(default_factory=list)
    # The ``package.json`` files read, (path, bytes): the tree's own JS/TS packages (jsts/workspace.py).
    manifests: list[tuple[str, bytes]] = field(default_factory=list)
    unsupported: dict[str, int] = field(default_factory=dict)
    declaration: tuple[str, bytes] | None = None
    # The exclude patterns in effect, as given (order kept: in gitignore syntax a later one may re-include).
    excluded: list[str] = field(default_factory=list)
    spec: GitIgnoreSpec | None = None
    # Whether test code (testcode.py) is analysed as the system's; when not, each test file is recorded.
    include_tests: bool = False


DECLARATION_FILENAME = "assay.toml"


def walk_tree(
    root: Path,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    exclude: Sequence[str] = (),
    include_tests: bool = False,
) -> Walk:
    """Walk ``root`` and read every file the engine may analyse. Raises WalkError only for the root, and
    ExcludeError for a bad pattern. A file or folder ``exclude`` matches (gitignore syntax) is recorded as
    ``excluded`` and never read; the declaration file is always read. Unless ``include_tests``, a source
    file that is test code (testcode.py) is read for the workspace digest and recorded as ``test_code``,
    with the convention that made it so, but not analysed."""
    try:
        root_stat = root.lstat()
    except FileNotFoundError as exc:
        raise WalkError(f"{root}: no such file or directory") from exc
    except PermissionError as exc:
        raise WalkError(f"{root}: permission denied") from exc
    if stat.S_ISLNK(root_stat.st_mode):
        root = root.resolve()
    if not root.is_dir():
        raise WalkError(f"{root}: not a directory (scan a source tree, not a single file)")
    if not os.access(root, os.R_OK | os.X_OK):
        raise WalkError(f"{root}: permission denied")
    real_root = root.resolve()
    walk = Walk(
        root=real_root,
        excluded=[p for p in exclude if p.strip()],
        spec=exclude_spec(exclude),
        include_tests=include_tests,
    )
    _walk_dir(walk, real_root, "", max_file_bytes)
    walk.sources.sort(key=lambda s: s.path)
    walk.skipped.sort(key=lambda s: (s.path, s.reason))
    walk.workspace.sort()
    walk.manifests.sort()
    return walk


def _walk_dir(
    walk: Walk, directory: Path, prefix: str, max_file_bytes: int, *, exact: bool = True, tests: str | None = None
) -> None:
    """Walk one directory. ``exact`` is False under a directory whose name is not valid UTF-8; ``tests`` is
    the test folder (``tests/``) this one is in, if any."""
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        walk.skipped.append(Skipped(prefix.rstrip("/") or ".", "unreadable", exc.strerror or str(exc)))
        return
    for entry in entries:
        name = _portable_name(entry.name)
        rel = f"{prefix}{name}"
        exact_path = exact and name == entry.name
        try:
            if entry.is_symlink():
                _record_symlink(walk, Path(entry.path), rel)
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in IGNORED_DIRECTORIES:
                    walk.skipped.append(Skipped(rel, "ignored_directory"))
                elif _excluded(walk, f"{rel}/"):
                    pass
                else:
                    inner = tests or (f"{name}/" if is_test_directory(name) else None)
                    _walk_dir(walk, Path(entry.path), f"{rel}/", max_file_bytes, exact=exact_path, tests=inner)
            elif entry.is_file(follow_symlinks=False):
                if rel != DECLARATION_FILENAME and _excluded(walk, rel):
                    pass
                elif exact_path:
                    _read_file(walk, Path(entry.path), rel, max_file_bytes, tests)
                else:
                    _record_inexact_file(walk, Path(entry.path), rel)
        except OSError as exc:
            walk.skipped.append(Skipped(rel, "unreadable", exc.strerror or str(exc)))


def _excluded(walk: Walk, rel: str) -> bool:
    """Whether an exclude pattern leaves ``rel`` out (a folder's ``rel`` ends in ``/``); if so, recorded."""
    if walk.spec is None:
        return False
    found = walk.spec.check_file(rel)
    if not found.include or found.index is None:
        return False
    walk.skipped.append(Skipped(rel.rstrip("/"), "excluded", str(walk.spec.patterns[found.index].pattern)))
    return True


def _portable_name(name: str) -> str:
    """A file name as text: itself, or, when its bytes are not valid UTF-8 (Python holds them as lone
    surrogates, which no JSON document can), those bytes with each undecodable one written ``\\xNN``."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    return name


def _record_inexact_file(walk: Walk, path: Path, rel: str) -> None:
    """A file whose path had to be rewritten (``_portable_name``): it counts in the workspace digest, but
    its code is not analysed, since no location in the bundle could name it exactly."""
    walk.workspace.append((rel, _digest_file(path)))
    if _is_code(rel):
        walk.skipped.append(Skipped(rel, "invalid_encoding", "its path is not valid UTF-8"))


def _record_symlink(walk: Walk, path: Path, rel: str) -> None:
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        walk.skipped.append(Skipped(rel, "symlink_outside_tree", "dangling or looping link"))
        return
    if not _is_code(rel) and not target.is_dir():
        return
    if target == walk.root or walk.root in target.parents:
        walk.skipped.append(Skipped(rel, "symlink_inside_tree", "its target is scanned under its own path"))
    else:
        walk.skipped.append(Skipped(rel, "symlink_outside_tree", "links are never followed out of the tree"))


def _is_code(rel: str) -> bool:
    suffix = _suffix(rel)
    return suffix in LANGUAGE_BY_SUFFIX or suffix in UNSUPPORTED_BY_SUFFIX


def _suffix(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _read_file(walk: Walk, path: Path, rel: str, max_file_bytes: int, tests: str | None) -> None:
    suffix = _suffix(rel)
    language = LANGUAGE_BY_SUFFIX.get(suffix)
    if language is not None and not walk.include_tests:
        convention = tests or convention_of_test_file(rel.rsplit("/", 1)[-1], suffix)
        if convention is not None:
            walk.workspace.append((rel, _digest_file(path)))
            walk.skipped.append(Skipped(rel, "test_code", convention))
            return
    size = path.stat().st_size
    if size > max_file_bytes:
        walk.workspace.append((rel, _digest_file(path)))
        if language is not None:
            walk.skipped.append(Skipped(rel, "too_large", f"{size} bytes, limit {max_file_bytes}"))
        return
    data = path.read_bytes()
    digest = DIGEST_PREFIX + hashlib.sha256(data).hexdigest()
    walk.workspace.append((rel, digest))
    if rel == DECLARATION_FILENAME:
        walk.declaration = (rel, data)
    if rel.rsplit("/", 1)[-1] == "package.json":
        walk.manifests.append((rel, data))
    if language is None:
        unsupported = UNSUPPORTED_BY_SUFFIX.get(suffix)
        if unsupported is not None:
            walk.unsupported[unsupported] = walk.unsupported.get(unsupported, 0) + 1
            walk.skipped.append(Skipped(rel, "unsupported_language", unsupported))
        return
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        walk.skipped.append(Skipped(rel, "binary", "NUL bytes in a source file"))
        return
    utf8 = _as_utf8(data, language)
    if utf8 is None:
        walk.skipped.append(Skipped(rel, "invalid_encoding", "not valid UTF-8 (nor a declared encoding)"))
        return
    lines = utf8.count(b"\n") + (1 if utf8 and not utf8.endswith(b"\n") else 0)
    walk.sources.append(SourceFile(rel, language, utf8, digest, lines))


def _as_utf8(data: bytes, language: Language) -> bytes | None:
    """The UTF-8 bytes of a source file, or None when it cannot be decoded.

    Python files may declare another encoding (PEP 263); they are transcoded so analyzers see UTF-8.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        if language != "python":
            return None
        try:
            encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
            codecs.lookup(encoding)
            return data.decode(encoding).encode("utf-8")
        except (SyntaxError, LookupError, UnicodeDecodeError):
            return None
    return data


def _digest_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return DIGEST_PREFIX + h.hexdigest()
