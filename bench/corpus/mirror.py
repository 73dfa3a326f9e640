"""Materialise a unit from a fetched mirror: the unit's root at the labelled commit, as a tree of its own.

Mirrors are bare git directories that the search tool's ``fetch`` leaves under
``<mirrors>/<owner>+<name>/`` (``repo`` or ``repo/.git``). Only ``git archive`` reads them: nothing
fetched is run. A unit is extracted once per (commit, root, exclude); a stamp beside the directory says
what it holds, so a changed label is extracted afresh.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
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


def materialise(unit: Unit, mirrors: Path = DEFAULT_MIRRORS, cache: Path = DEFAULT_CACHE) -> Path:
    """The directory holding ``unit``'s root at its commit; raises ``NotMaterialisedError`` when it cannot."""
    git_dir = find_mirror(unit.repo, mirrors)
    if git_dir is None:
        raise NotMaterialisedError(f"no mirror of {unit.repo} under {mirrors} (fetch github:{unit.repo})")
    if _git(git_dir, "cat-file", "-e", f"{unit.commit}^{{commit}}").returncode != 0:
        raise NotMaterialisedError(f"commit {unit.commit[:12]} is not in the mirror of {unit.repo} (fetched later?)")
    target = cache / unit.id
    stamp = cache / f"{unit.id}.stamp.json"
    wanted = json.dumps({"commit": unit.commit, "root": unit.root, "exclude": sorted(unit.exclude)})
    if target.is_dir() and stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return target
    shutil.rmtree(target, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    target.mkdir(parents=True)
    args = ["archive", "--format=tar", unit.commit]
    if unit.root:
        args += ["--", unit.root]
    archive = _git(git_dir, *args)
    if archive.returncode != 0:
        raise NotMaterialisedError(f"git archive failed: {archive.stderr.decode(errors='replace').strip()}")
    tmp = cache / f"{unit.id}.tar"
    tmp.write_bytes(archive.stdout)
    try:
        count = _extract(tmp, target, unit.root, unit.exclude)
    finally:
        tmp.unlink(missing_ok=True)
    if count == 0:
        raise NotMaterialisedError(f"root {unit.root!r} holds no file at {unit.commit[:12]}")
    stamp.write_text(wanted, encoding="utf-8")
    return target


def _extract(archive: Path, target: Path, root: str, exclude: tuple[str, ...]) -> int:
    """Extract the members under ``root`` into ``target`` without the prefix; skip ``exclude``."""
    prefix = PurePosixPath(root) if root else None
    count = 0
    with tarfile.open(archive) as tar:
        for member in tar:
            path = PurePosixPath(member.name)
            if prefix is not None:
                if path == prefix or prefix not in path.parents:
                    continue
                path = path.relative_to(prefix)
            if path.is_absolute() or ".." in path.parts or not path.parts or path.parts[0] == "pax_global_header":
                continue
            if any(path == PurePosixPath(e) or PurePosixPath(e) in path.parents for e in exclude):
                continue
            dest = target.joinpath(*path.parts)
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                dest.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is not None:
                    dest.write_bytes(source.read())
                    count += 1
            elif member.issym():
                # Kept as a link: the walk records links and never follows them.
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.symlink_to(member.linkname)
    return count


def head_commit(git_dir: Path) -> str | None:
    result = _git(git_dir, "rev-parse", "HEAD")
    return result.stdout.decode().strip() if result.returncode == 0 else None


def _git(git_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False)
