"""Helpers shared by the service tests: provisioned world, request helpers, a git work tree."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from dulwich import porcelain
from dulwich.refs import HEADREF, Ref

from assay.backend import provisioning
from assay.backend.scopes import ALL_SCOPES
from assay.backend.storage.db import SessionFactory

# The rate-limited test route's bucket in tests/service/conftest.py: it does not refill within a test,
# so the fourth request is refused, deterministically.
RATE_LIMIT_BURST = 3


@dataclass
class World:
    """Two organizations with AI Systems and keys, provisioned through the admin functions."""

    sessions: SessionFactory
    org_a: str = ""
    org_b: str = ""
    system_a: str = ""
    system_a2: str = ""
    system_b: str = ""
    agent_key_a: str = ""
    agent_key_b: str = ""
    key_ids: dict[str, str] = field(default_factory=dict)

    async def key(self, scopes: Iterable[str], *, org: str | None = None, **kwargs: Any) -> str:
        """A new key of ``org`` (default A) with exactly ``scopes`` (an empty list gets a useless scope)."""
        chosen = list(scopes)
        async with self.sessions() as session:
            issued = await provisioning.create_api_key(
                session, org or self.org_a, scopes=chosen or ["evidence:ingest"], **kwargs
            )
            await session.commit()
        self.key_ids[issued.api_key] = issued.record.id
        return issued.api_key

    async def key_without(self, scope: str) -> str:
        return await self.key([s for s in ALL_SCOPES if s != scope])


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is the contract's envelope with ``code`` and ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "retryable"}
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    assert isinstance(body["error"]["retryable"], bool)
    error: dict[str, Any] = body["error"]
    return error


def make_git_tree(path: Path, branch: str = "main") -> str:
    """A git work tree at ``path`` with one committed Python file, HEAD on ``branch``; returns the commit."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "agent.py").write_text("import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    repo = porcelain.init(str(path))
    repo.refs.set_symbolic_ref(HEADREF, Ref(f"refs/heads/{branch}".encode()))
    porcelain.add(str(path), paths=[str(path / "agent.py")])
    commit = porcelain.commit(str(path), message=b"init", author=b"T <t@example.com>", committer=b"T <t@example.com>")
    repo.close()
    return commit.decode("ascii")
