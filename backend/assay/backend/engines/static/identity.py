"""The source identity of a scanned tree: digests of what was read, and its git coordinates.

Git metadata is read with dulwich, never by running ``git``: the configuration of a repository under
scan is untrusted, and git would execute what it names (fsmonitor, clean/smudge filters, hooks). For
the same reason no filter is applied when comparing the work tree to the index; a repository that
configures filters or line-ending conversion reports ``dirty: "unknown"`` rather than a guess.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from assay.backend.canonical import digest_json

if TYPE_CHECKING:
    from dulwich.repo import Repo

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GitIdentity:
    remote: str | None = None
    commit: str | None = None
    branch: str | None = None
    dirty: bool | Literal["unknown"] = "unknown"


def file_set_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """Digest of a set of files given as ``(path, contentDigest)`` pairs, order-independent."""
    return digest_json(sorted([path, digest] for path, digest in pairs))


def path_set_digest(paths: Iterable[str]) -> str:
    return digest_json(sorted(paths))


def git_identity(root: Path) -> GitIdentity:
    """Read HEAD, branch, origin URL and dirty state of the repository containing ``root``, if any."""
    repo_root = _find_repo_root(root)
    if repo_root is None:
        return GitIdentity()
    # Imported only for a git repository: dulwich is a good part of `assay scan`'s start-up (issue 21).
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    try:
        repo = Repo(str(repo_root))
    except (NotGitRepository, OSError, ValueError) as exc:
        logger.warning("cannot read git metadata at %s: %s", repo_root, exc)
        return GitIdentity()
    with repo:
        commit, branch = _head(repo)
        return GitIdentity(remote=_remote(repo), commit=commit, branch=branch, dirty=_dirty(repo, commit))


def _find_repo_root(root: Path) -> Path | None:
    for candidate in (root, *root.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _head(repo: Repo) -> tuple[str | None, str | None]:
    from dulwich.refs import HEADREF

    try:
        chain, sha = repo.refs.follow(HEADREF)
    except (KeyError, OSError, ValueError):
        return None, None
    branch: str | None = None
    if chain and len(chain) > 1:
        ref = chain[-1].decode("utf-8", "replace")
        branch = ref.removeprefix("refs/heads/")
    return (sha.decode("ascii") if sha else None), branch


def _remote(repo: Repo) -> str | None:
    config = repo.get_config()
    try:
        url = config.get((b"remote", b"origin"), b"url")
    except KeyError:
        return None
    return _strip_credentials(url.decode("utf-8", "replace"))


def _strip_credentials(url: str) -> str:
    """Never carry a token embedded in a remote URL (``https://user:token@host/...``) into evidence."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest.split("/", 1)[0]:
        return f"{scheme}://{rest.split('@', 1)[1]}"
    return url


def _uses_filters(repo: Repo, work_tree: Path) -> bool:
    config = repo.get_config()
    if any(section and section[0] == b"filter" for section in config.sections()):
        return True
    try:
        if config.get((b"core",), b"autocrlf").lower() in (b"true", b"input"):
            return True
    except KeyError:
        pass
    attributes = work_tree / ".gitattributes"
    if attributes.is_file():
        text = attributes.read_text(encoding="utf-8", errors="replace")
        return any(token in text for token in ("filter=", "eol=", " text"))
    return False


def _dirty(repo: Repo, commit: str | None) -> bool | Literal["unknown"]:
    from dulwich.index import get_unstaged_changes
    from dulwich.objects import Commit

    work_tree = Path(repo.path)
    if commit is None or _uses_filters(repo, work_tree):
        return "unknown"
    try:
        index = repo.open_index()
        head = repo[commit.encode("ascii")]
        if not isinstance(head, Commit):
            return "unknown"
        for _change in index.changes_from_tree(repo.object_store, head.tree):
            return True
        for _path in get_unstaged_changes(index, str(work_tree), filter_blob_callback=None):
            return True
    except (KeyError, OSError, ValueError, NotImplementedError) as exc:
        logger.warning("cannot compute git dirty state at %s: %s", work_tree, exc)
        return "unknown"
    return False
