"""Remote git sources of AI Systems: their sealed deploy credential, their verification, their checkout.

The credential is sealed with the service's secret key (``runtime/secrets.py``: Fernet under
``runtime-secrets.key`` in the key directory) and opened only inside a fetch, in the thread that runs
git. Verifying a source lists the remote (``git ls-remote``: the host answers and takes the credential,
the branch exists) and fetches the branch's tip within the size and time bounds, then throws it away.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from assay.backend.runtime import secrets
from assay.backend.scans.remote import (
    FetchedTree,
    GitCredential,
    GitFetchError,
    fetched_tree,
    list_remote,
    parse_remote,
    read_credential,
)
from assay.backend.settings import GitFetchSettings
from assay.backend.storage.models import SourceAsset

_SEALED_FIELD = "credential"


def seal_credential(key_dir: Path | None, credential: GitCredential) -> bytes:
    """``credential`` encrypted under the service's secret key (created on first use)."""
    return secrets.seal(key_dir, {"kind": credential.kind, _SEALED_FIELD: credential.secret})


def parse_credential(url: str, text: str) -> GitCredential:
    """The credential ``text`` for the remote ``url`` (ValueError with a message that quotes none of it)."""
    return read_credential(parse_remote(url), text)


def open_credential(source: SourceAsset, key_dir: Path | None) -> GitCredential | None:
    """The source's credential, or None when it has none; GitFetchError when the key does not open it."""
    if source.sealed_credential is None:
        return None
    try:
        values = secrets.unseal(key_dir, source.sealed_credential)
    except secrets.SecretKeyError as exc:
        raise GitFetchError(
            "REFUSED",
            "the source's credential cannot be opened with this service's secret key "
            f"({exc}); connect the credential again",
        ) from exc
    kind = values.get("kind")
    if kind == "https-token":
        return GitCredential("https-token", values[_SEALED_FIELD])
    if kind == "ssh-key":
        return GitCredential("ssh-key", values[_SEALED_FIELD])
    raise GitFetchError("REFUSED", "the source's sealed credential is not one this service wrote")


@dataclass(frozen=True, slots=True)
class Verified:
    branch: str
    commit: str


def verify_remote(source: SourceAsset, key_dir: Path | None, settings: GitFetchSettings) -> Verified:
    """Prove the source can be fetched: its branch (else the remote's default branch) exists, the
    credential is accepted, and the tip fits the bounds. Blocking: run it in a worker thread."""
    credential = open_credential(source, key_dir)
    refs = list_remote(source.repo, credential, settings)
    branch = source.branch or refs.default_branch
    if branch is None:
        raise GitFetchError("BRANCH_NOT_FOUND", "the remote has no default branch; bind the source to a branch")
    if branch not in refs.branches:
        raise GitFetchError("BRANCH_NOT_FOUND", f"the remote has no branch {branch!r}")
    with fetched_tree(source.repo, credential, settings, branch=branch) as tree:
        return Verified(branch=branch, commit=tree.commit)


@contextmanager
def checked_out(
    source: SourceAsset,
    key_dir: Path | None,
    settings: GitFetchSettings,
    *,
    branch: str | None = None,
    commit: str | None = None,
) -> Iterator[FetchedTree]:
    """The source at ``commit``, else at the tip of ``branch`` (else its bound branch), in a throwaway
    directory that is gone when the block ends. Blocking: run it in a worker thread."""
    credential = open_credential(source, key_dir)
    if commit is not None:
        with fetched_tree(source.repo, credential, settings, commit=commit) as tree:
            yield tree
        return
    wanted = branch or source.branch
    if wanted is None:
        raise GitFetchError("BRANCH_NOT_FOUND", "name a branch or a commit: the source is bound to no branch")
    with fetched_tree(source.repo, credential, settings, branch=wanted) as tree:
        yield tree
