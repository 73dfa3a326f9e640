"""A content-addressed cache for per-file facts and link results.

Entries are keyed by a digest of everything that determines them (engine and facts versions, rule
pack digest, path, language and the file's content digest), so a stale entry can never be served: a
changed input is a different key. Writes are atomic (temporary file, then rename); an unreadable or
corrupt entry is a miss, never an error.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Protocol

from platformdirs import user_cache_dir


class FactsCache(Protocol):
    def get(self, namespace: str, key: str) -> bytes | None: ...

    def put(self, namespace: str, key: str, data: bytes) -> None: ...


def default_cache_dir() -> Path:
    return Path(user_cache_dir("assay")) / "static"


class MemoryCache:
    """An in-process cache (tests, and services that scan the same tree repeatedly)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], bytes] = {}

    def get(self, namespace: str, key: str) -> bytes | None:
        return self._entries.get((namespace, key))

    def put(self, namespace: str, key: str, data: bytes) -> None:
        self._entries[(namespace, key)] = data


class DirectoryCache:
    """One file per entry under ``root/namespace/ab/<key>``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, namespace: str, key: str) -> Path:
        name = key.removeprefix("sha256:")
        return self.root / namespace / name[:2] / name

    def get(self, namespace: str, key: str) -> bytes | None:
        try:
            return self._path(namespace, key).read_bytes()
        except OSError:
            return None

    def put(self, namespace: str, key: str, data: bytes) -> None:
        path = self._path(namespace, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            Path(tmp).replace(path)
        except OSError:
            # A cache that cannot be written only costs speed; the scan result is unaffected.
            return
