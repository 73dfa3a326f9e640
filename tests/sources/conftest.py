"""Fixtures of the remote-source tests: a real git server (git http-backend over HTTPS with basic
authentication, git_server.py), and the run tests' world with settings that trust its certificate and
bound fetches low (a 2 MiB size bound, 60 s)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "service"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from git_server import GitServer, serve_git
from run_world import world

from assay.backend.settings import GitFetchSettings, RateLimitSettings, ServiceSettings
from assay.backend.storage.db import sqlite_url_for

__all__ = ["world"]

MAX_BYTES = 2 * 1024 * 1024


@pytest.fixture
def git_server(tmp_path: Path) -> Iterator[GitServer]:
    with serve_git(tmp_path / "git-server") as server:
        yield server


@pytest.fixture
def git_settings(git_server: GitServer, tmp_path: Path) -> GitFetchSettings:
    return GitFetchSettings(
        max_bytes=MAX_BYTES, timeout_seconds=60, ca_file=git_server.ca_file, known_hosts=tmp_path / "known_hosts"
    )


@pytest.fixture
def settings(tmp_path: Path, service_db: Path, git_settings: GitFetchSettings) -> ServiceSettings:
    return ServiceSettings(
        database_url=sqlite_url_for(service_db),
        data_dir=tmp_path / "data",
        rate_limit=RateLimitSettings(enabled=False),
        git=git_settings,
    )


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory of the service's fetches during the test (so a test can see it emptied)."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    assert Path(tempfile.mkdtemp(prefix="probe-")).parent == folder
    (next(folder.iterdir())).rmdir()
    return folder
