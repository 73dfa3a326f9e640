"""Source repository assets: how a repository reference is normalised, and when a fresh scan may use one.

A reference is either a git URL (``https://``, ``ssh://``, ``git://``, ``file://`` or the scp form
``user@host:path``), stored exactly as given, or a local path, stored absolute. A fresh scan may use a
source only when it is VERIFIED, not retired, reachable, and on its bound branch (contract part 3); a git
remote is fetched for it (https and ssh only: scans/remote.py).
Git metadata is read with dulwich, never by running ``git`` (a repository's config can make git execute
commands).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.backend.storage.models import RepoKind, SourceAsset

if TYPE_CHECKING:  # the API models are not needed to provision a source (`assay admin`)
    from assay.backend.schemas import IneligibilityCode

_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_FORM = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!//)")


@dataclass(frozen=True, slots=True)
class Ineligibility:
    code: IneligibilityCode
    message: str


@dataclass(frozen=True, slots=True)
class GitHead:
    commit: str | None
    branch: str | None


def repo_kind(reference: str) -> RepoKind:
    """``git`` for a URL or scp-style reference, ``local`` for a filesystem path."""
    return "git" if _URL_SCHEME.match(reference) or _SCP_FORM.match(reference) else "local"


def normalise_repo(reference: str) -> tuple[RepoKind, str]:
    """The kind and stored form of a repository reference: git URLs as given, local paths absolute."""
    reference = reference.strip()
    if not reference:
        raise ValueError("a repository reference cannot be empty")
    kind = repo_kind(reference)
    if kind == "git":
        return kind, reference
    return kind, str(Path(reference).expanduser().resolve())


def match_local_reference(reference: str) -> str | None:
    """The stored form a caller's local-path reference would have, or None when it is not absolute.

    A remote caller's relative path means nothing on the server, so it never matches a source.
    """
    if repo_kind(reference) == "git" or not Path(reference).is_absolute():
        return None
    return str(Path(reference).resolve())


def read_git_head(path: Path) -> GitHead | None:
    """HEAD commit and branch of the repository containing ``path``; None when it is not in one."""
    root = next((c for c in (path, *path.parents) if (c / ".git").exists()), None)
    if root is None:
        return None
    # Imported here: provisioning (``assay admin``) uses this module without reading any repository.
    from dulwich.errors import NotGitRepository
    from dulwich.refs import HEADREF
    from dulwich.repo import Repo

    try:
        with Repo(str(root)) as repo:
            chain, sha = repo.refs.follow(HEADREF)
    except (NotGitRepository, KeyError, OSError, ValueError):
        return GitHead(commit=None, branch=None)
    branch = chain[-1].decode("utf-8", "replace").removeprefix("refs/heads/") if chain and len(chain) > 1 else None
    return GitHead(commit=sha.decode("ascii") if sha else None, branch=branch)


_STATUS_REASONS: dict[str, Ineligibility] = {
    "PENDING": Ineligibility("unverified", "The source is not verified yet (assay admin source verify)."),
    "CONFLICTED": Ineligibility("conflicted", "The source's binding is disputed; resolve it before scanning."),
    "UNAVAILABLE": Ineligibility("unavailable", "The source is marked unavailable."),
    "RETIRED": Ineligibility("retired", "The source is retired and can no longer be scanned."),
}


def fresh_scan_ineligibility(source: SourceAsset, *, ref_given: bool = False) -> list[Ineligibility]:
    """Every reason a fresh scan may not use ``source`` now; empty when it may. Reads the filesystem.

    A git remote is fetched at a branch: its bound one, or one the caller names (``ref_given``: a branch
    or a commit in the request); only https and ssh remotes are fetched (scans/remote.py)."""
    reasons: list[Ineligibility] = []
    status_reason = _STATUS_REASONS.get(source.status)
    if status_reason is not None:
        reasons.append(status_reason)
    if source.status == "RETIRED":
        return reasons
    if source.repo_kind == "git":
        from assay.backend.scans.remote import parse_remote

        try:
            parse_remote(source.repo)
        except ValueError as exc:
            reasons.append(Ineligibility("unavailable", f"The remote cannot be fetched: {exc}."))
        if source.branch is None and not ref_given:
            reasons.append(
                Ineligibility(
                    "branch_missing", "A git source bound to no branch needs engines.static.branch (or commitSha)."
                )
            )
        return reasons
    path = Path(source.repo)
    if not path.is_dir():
        if source.status != "UNAVAILABLE":
            reasons.append(Ineligibility("unavailable", "The local path does not exist or is not a directory."))
        return reasons
    if source.branch is not None:
        head = read_git_head(path)
        if head is None or head.branch != source.branch:
            where = "not in a git repository" if head is None else f"on {head.branch or 'a detached HEAD'}"
            reasons.append(
                Ineligibility(
                    "branch_missing", f"The bound branch {source.branch!r} is not checked out (tree is {where})."
                )
            )
    return reasons
