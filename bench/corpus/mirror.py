"""Materialise a unit from a fetched mirror: the unit's root at the labelled commit, as a tree of its own.

Mirrors are bare git directories that the search tool's ``fetch`` leaves under
``<mirrors>/<owner>+<name>/`` (``repo`` or ``repo/.git``). Only ``git ls-tree`` and ``git cat-file``
read them: nothing fetched is run. A unit is extracted once per (commit, root, exclude), into a folder named by a digest
of those, built aside and renamed into place whole: scorers running at once (in several work trees, say) never see a
tree half written or removed under them, and a changed label is extracted afresh beside the old one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bench.corpus.labels import Unit

DEFAULT_MIRRORS = Path(os.environ.get("ASSAY_CORPUS_MIRRORS", "/work/.mirror"))
DEFAULT_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "corpus"


class NotMaterialisedError(Exception):
    """The unit's mirror or commit is absent: the unit is listed, not scored."""


def find_mirror(repo: str, mirrors: Path = DEFAULT_MIRRORS) -> Path | None:
    """The git directory of ``repo``'s mirror, or None when it was not fetched."""
    base = mirrors / repo.replace("/", "+")
    if not base.is_dir():
        return None
    candidates = sorted(base.glob("*/.git")) + sorted(base.glob("*")) + [base]
    for candidate in candidates:
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class Materialised:
    """A unit's tree on disk, and the files of its root whose content the mirror does not hold
    (a snapshot may list its largest files without their content); those are left out."""

    root: Path
    absent: tuple[str, ...]


def materialise(unit: Unit, mirrors: Path = DEFAULT_MIRRORS, cache: Path = DEFAULT_CACHE) -> Materialised:
    """``unit``'s root at its commit on disk; raises ``NotMaterialisedError`` when it cannot be."""
    git_dir = find_mirror(unit.repo, mirrors)
    if git_dir is None:
        raise NotMaterialisedError(f"no mirror of {unit.repo} under {mirrors} (fetch github:{unit.repo})")
    if _git(git_dir, "cat-file", "-e", f"{unit.commit}^{{commit}}").returncode != 0:
        raise NotMaterialisedError(f"commit {unit.commit[:12]} is not in the mirror of {unit.repo} (fetched later?)")
    wanted = {"commit": unit.commit, "root": unit.root, "exclude": sorted(unit.exclude)}
    key = hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()[:16]
    home = cache / f"{unit.id}@{key}"
    _drop_old_layout(cache, unit.id)
    found = _stored(home, unit.id)
    if found is not None:
        return found
    entries = _entries(git_dir, unit)
    if not entries:
        raise NotMaterialisedError(f"root {unit.root!r} holds no file at {unit.commit[:12]}")
    cache.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{unit.id}.part-", dir=cache))
    try:
        (part / unit.id).mkdir()
        absent = _write_entries(git_dir, entries, part / unit.id)
        (part / _STAMP).write_text(json.dumps(wanted | {"absent": absent}), encoding="utf-8")
        # Another scorer may have put the same tree in place first: its copy is read, this one dropped.
        with contextlib.suppress(OSError):
            part.rename(home)
    finally:
        shutil.rmtree(part, ignore_errors=True)
    found = _stored(home, unit.id)
    if found is None:
        raise NotMaterialisedError(f"{home} could not be put in place")
    return found


_STAMP = "stamp.json"


def _stored(home: Path, unit_id: str) -> Materialised | None:
    """The tree a finished extraction left in ``home``, or None: the stamp is written before the folder is
    renamed into place, so a stamp means a whole tree."""
    try:
        stored = json.loads((home / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict):
        return None
    return Materialised(home / unit_id, tuple(stored.get("absent", [])))


def _drop_old_layout(cache: Path, unit_id: str) -> None:
    """Remove a tree extracted by the earlier layout (``<id>/`` beside ``<id>.stamp.json``)."""
    old_stamp = cache / f"{unit_id}.stamp.json"
    if old_stamp.is_file():
        shutil.rmtree(cache / unit_id, ignore_errors=True)
        old_stamp.unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class _Entry:
    mode: str
    oid: str
    path: PurePosixPath  # relative to the unit root


def _entries(git_dir: Path, unit: Unit) -> list[_Entry]:
    """The blobs under the unit's root at its commit, without the excluded directories."""
    args = ["ls-tree", "-r", "-z", "--full-tree", unit.commit]
    if unit.root:
        args += ["--", unit.root]
    listing = _git(git_dir, *args)
    if listing.returncode != 0:
        raise NotMaterialisedError(f"git ls-tree failed: {listing.stderr.decode(errors='replace').strip()}")
    prefix = PurePosixPath(unit.root) if unit.root else None
    excluded = [PurePosixPath(e) for e in unit.exclude]
    entries: list[_Entry] = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        if kind != "blob":  # submodules are not part of the unit
            continue
        path = PurePosixPath(raw_path.decode("utf-8", errors="surrogateescape"))
        if prefix is not None:
            if prefix not in path.parents:
                continue
            path = path.relative_to(prefix)
        if ".." in path.parts or any(e == path or e in path.parents for e in excluded):
            continue
        entries.append(_Entry(mode, oid, path))
    return entries


def _write_entries(git_dir: Path, entries: list[_Entry], target: Path) -> list[str]:
    """Write each blob under ``target``; return the paths whose content the mirror does not hold."""
    request = b"".join(f"{e.oid}\n".encode() for e in entries)
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"], input=request, capture_output=True, check=False
    )
    if batch.returncode != 0:
        raise NotMaterialisedError(f"git cat-file failed: {batch.stderr.decode(errors='replace').strip()}")
    out = batch.stdout
    offset = 0
    absent: list[str] = []
    for entry in entries:
        newline = out.index(b"\n", offset)
        header = out[offset:newline].split()
        offset = newline + 1
        if len(header) == 2 and header[1] == b"missing":
            absent.append(entry.path.as_posix())
            continue
        size = int(header[2])
        content = out[offset : offset + size]
        offset += size + 1  # the blob is followed by a newline
        dest = target.joinpath(*entry.path.parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if entry.mode == "120000":
            # Kept as a link: the walk records links and never follows them.
            dest.symlink_to(content.decode("utf-8", errors="surrogateescape"))
        else:
            dest.write_bytes(content)
    return absent


def head_commit(git_dir: Path) -> str | None:
    result = _git(git_dir, "rev-parse", "HEAD")
    return result.stdout.decode().strip() if result.returncode == 0 else None


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False)
