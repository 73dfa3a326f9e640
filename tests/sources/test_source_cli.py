"""``assay admin source add --git URL --credential-stdin`` and ``source verify`` as a user runs them: the real
command line against the real git server; the credential goes in on stdin and never comes out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from git_server import TOKEN, USER, GitServer, publish

pytestmark = pytest.mark.slow

ASSAY = str(Path(sys.executable).with_name("assay"))


def admin(env: dict[str, str], *argv: str, stdin: str = "") -> tuple[int, dict[str, Any], str]:
    done = subprocess.run(
        [ASSAY, "admin", "--json", *argv],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert TOKEN not in done.stdout and TOKEN not in done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_connect_and_verify_a_git_remote_from_the_command_line(git_server: GitServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "agent.py").write_text("print('hello')\n")
    sha = publish(git_server, "agent", work)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "ASSAY_DATA_DIR": str(tmp_path / "data"),
        "ASSAY_GIT_CA_FILE": str(git_server.ca_file),
        "ASSAY_GIT_MAX_BYTES": str(4 * 1024 * 1024),
    }
    _, org, _ = admin(env, "org", "create", "Acme")
    _, system, _ = admin(env, "system", "create", "--org", org["organizationId"], "--name", "Agent")
    where = ["--org", org["organizationId"], "--system", system["aiSystemId"]]
    url = git_server.url("agent")

    code, added, _ = admin(
        env, "source", "add", *where, "--git", url, "--branch", "main", "--credential-stdin", stdin=f"{USER}:{TOKEN}\n"
    )
    assert code == 0 and added["status"] == "PENDING" and added["credential"] == "https-token"
    code, verified, _ = admin(env, "source", "verify", added["sourceAssetId"])
    assert code == 0 and verified == {
        "sourceAssetId": added["sourceAssetId"],
        "status": "VERIFIED",
        "credential": "https-token",
        "verifiedCommit": sha,
    }
    # The key file that seals credentials is owner-only.
    key_file = tmp_path / "data" / "keys" / "runtime-secrets.key"
    assert key_file.stat().st_mode & 0o077 == 0

    code, wrong, _ = admin(
        env, "source", "add", *where, "--git", url, "--credential-stdin", stdin="deploy:wrong-token\n"
    )
    assert code == 0
    code, failed, stderr = admin(env, "source", "verify", wrong["sourceAssetId"])
    assert code == 1 and failed["error"]["code"] == "AUTH_FAILED" and "wrong-token" not in stderr + json.dumps(failed)
    # A token in the URL, or a remote that is not https/ssh, is refused before anything is stored.
    code, refused, _ = admin(env, "source", "add", *where, "--git", url.replace("https://", f"https://{USER}:{TOKEN}@"))
    assert code == 1 and refused["error"]["code"] == "INVALID" and "credentials" in refused["error"]["message"]
    code, refused, _ = admin(env, "source", "add", *where, "--git", "git://example.com/a.git")
    assert code == 1 and refused["error"]["code"] == "INVALID"
