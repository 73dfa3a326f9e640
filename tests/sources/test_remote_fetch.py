"""The fetch of a remote git source (assay.backend.scans.remote): which remotes it takes, how credentials
reach git (never on a command line, never in a file of the checkout), SSH's command, and bounds.

SSH is exercised here by the command it builds and the key file it writes; no sshd runs in the tests
(docs/sources.md says so)."""

from __future__ import annotations

import shlex
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from git_server import TOKEN, USER, GitServer, publish

from assay.backend.scans import remote
from assay.backend.settings import GitFetchSettings

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("url", "scheme", "host"),
    [
        ("https://git.example.com/acme/agent.git", "https", "git.example.com"),
        ("https://git.example.com:8443/acme/agent", "https", "git.example.com"),
        ("ssh://git@git.example.com:2222/acme/agent.git", "ssh", "git.example.com"),
        ("git@github.com:acme/agent.git", "ssh", "github.com"),
    ],
)
def test_https_and_ssh_remotes_are_taken(url: str, scheme: str, host: str) -> None:
    parsed = remote.parse_remote(url)
    assert (parsed.scheme, parsed.host, parsed.url) == (scheme, host, url)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://git.example.com/a.git", "only https:// and ssh://"),
        ("git://git.example.com/a.git", "only https:// and ssh://"),
        ("file:///srv/git/a.git", "only https:// and ssh://"),
        ("ext::sh -c touch% /tmp/x", "only https:// and ssh://"),
        ("/srv/git/a.git", "only https:// and ssh://"),
        ("https://deploy:tok@git.example.com/a.git", "carries credentials"),
        ("https://tok@git.example.com/a.git", "carries credentials"),
        ("ssh://-oProxyCommand=touch%20x/a.git", "is not a host name"),
        ("https://git.example.com/", "names no repository"),
        ("https://git.example.com/-upload-pack=x", "names no repository"),
    ],
)
def test_other_remotes_are_refused_with_the_reason(url: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        remote.parse_remote(url)


def test_credentials_are_read_per_scheme_and_never_shown() -> None:
    https = remote.parse_remote("https://git.example.com/a.git")
    ssh = remote.parse_remote("git@git.example.com:a.git")
    token = remote.read_credential(https, f"  {TOKEN}\n")
    assert token.kind == "https-token" and token.secret == TOKEN and TOKEN not in repr(token)
    key = remote.read_credential(ssh, KEY + "\n\n")
    assert key.kind == "ssh-key" and key.secret == KEY + "\n"
    with pytest.raises(ValueError, match="one line") as caught:
        remote.read_credential(https, "first\nsecond")
    assert "first" not in str(caught.value)
    with pytest.raises(ValueError, match="private key"):
        remote.read_credential(ssh, TOKEN)
    # Pasted into a password field, a key loses its line breaks: they are put back as ssh-keygen writes them.
    body = "A" * 150
    flat = f"-----BEGIN OPENSSH PRIVATE KEY-----{body}-----END OPENSSH PRIVATE KEY-----"
    rewrapped = remote.read_credential(ssh, flat).secret.splitlines()
    assert rewrapped == [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "A" * 70,
        "A" * 70,
        "A" * 10,
        "-----END OPENSSH PRIVATE KEY-----",
    ]
    spaced = "-----BEGIN RSA PRIVATE KEY----- " + " ".join(["B" * 64] * 2) + " -----END RSA PRIVATE KEY-----"
    assert remote.read_credential(ssh, spaced).secret.splitlines()[1:3] == ["B" * 64, "B" * 64]
    # A bare token is sent as the password of x-access-token; USER:TOKEN as given.
    assert remote.basic_authorization("abc") == "Basic eC1hY2Nlc3MtdG9rZW46YWJj"
    assert remote.basic_authorization("u:p") == "Basic dTpw"


def test_ssh_uses_only_the_deploy_key_and_strict_known_hosts(tmp_path: Path) -> None:
    known_hosts = tmp_path / "known hosts"
    known_hosts.write_text("git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample\n")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    settings = GitFetchSettings(known_hosts=known_hosts, timeout_seconds=30)
    parsed = remote.parse_remote("ssh://git@git.example.com/acme/agent.git")
    env = remote.git_environment(parsed, remote.GitCredential("ssh-key", KEY + "\n"), settings, home)
    words = shlex.split(env["GIT_SSH_COMMAND"])
    key_file = home / "deploy-key"
    assert words[:5] == ["ssh", "-F", "/dev/null", "-i", str(key_file)]
    options = {words[i + 1] for i, w in enumerate(words) if w == "-o"}
    assert {
        "IdentitiesOnly=yes",
        "IdentityAgent=none",
        "BatchMode=yes",
        "StrictHostKeyChecking=yes",
        f"UserKnownHostsFile={known_hosts}",
        "GlobalKnownHostsFile=/dev/null",
        "ConnectTimeout=30",
    } <= options
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and key_file.read_text() == KEY + "\n"
    # The key is in that file only: not in the environment git (or ssh) is given.
    assert not any("OPENSSH PRIVATE KEY" in value for value in env.values())
    # Protocols: https and ssh only, hooks off, no user or system configuration.
    config = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))}
    assert config["protocol.allow"] == "never" and config["core.hooksPath"] == "/dev/null"
    assert env["GIT_ALLOW_PROTOCOL"] == "https:ssh" and env["GIT_CONFIG_GLOBAL"] == "/dev/null"
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_LFS_SKIP_SMUDGE"] == "1"


def test_ssh_without_trusted_host_keys_is_refused_before_connecting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    parsed = remote.parse_remote("git@git.example.com:acme/agent.git")
    settings = GitFetchSettings(known_hosts=tmp_path / "missing")
    with pytest.raises(remote.GitFetchError, match="no SSH host key is trusted") as caught:
        remote.git_environment(parsed, None, settings, home)
    assert caught.value.code == "REFUSED"


def test_the_token_never_appears_in_a_command_line_or_on_disk(
    git_server: GitServer, git_settings: GitFetchSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sha = publish(git_server, "agent", _tree(tmp_path))
    commands: list[list[str]] = []
    real_popen = subprocess.Popen

    def recording_popen(args: list[str], **kwargs: Any) -> Any:
        commands.append(list(args))
        return real_popen(args, **kwargs)

    monkeypatch.setattr(remote.subprocess, "Popen", recording_popen)
    credential = remote.GitCredential("https-token", f"{USER}:{TOKEN}")
    with remote.fetched_tree(git_server.url("agent"), credential, git_settings, branch="main") as tree:
        assert tree.commit == sha and (tree.root / "agent.py").is_file()
        on_disk = b"".join(p.read_bytes() for p in tree.root.parent.rglob("*") if p.is_file())
        assert TOKEN.encode() not in on_disk and remote.basic_authorization(f"{USER}:{TOKEN}").encode() not in on_disk
        root = tree.root
    assert not root.exists() and not root.parent.exists()
    assert len(commands) >= 5 and not any(TOKEN in word or "Authorization" in word for c in commands for word in c)


def test_a_fetch_past_its_deadline_is_stopped(
    git_server: GitServer, git_settings: GitFetchSettings, tmp_path: Path
) -> None:
    publish(git_server, "agent", _tree(tmp_path))
    credential = remote.GitCredential("https-token", f"{USER}:{TOKEN}")
    hurried = GitFetchSettings(max_bytes=git_settings.max_bytes, timeout_seconds=0.001, ca_file=git_settings.ca_file)
    with pytest.raises(remote.GitFetchError, match="ASSAY_GIT_TIMEOUT_SECONDS") as caught:
        remote.list_remote(git_server.url("agent"), credential, hurried)
    assert caught.value.code == "TIMEOUT" and caught.value.retryable


def _tree(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "agent.py").write_text("import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd)\n")
    (work / "leak").symlink_to("/etc/passwd")
    return work


def test_symlinks_are_checked_out_as_plain_files(
    git_server: GitServer, git_settings: GitFetchSettings, tmp_path: Path
) -> None:
    publish(git_server, "agent", _tree(tmp_path))
    credential = remote.GitCredential("https-token", f"{USER}:{TOKEN}")
    with remote.fetched_tree(git_server.url("agent"), credential, git_settings, branch="main") as tree:
        leak = tree.root / "leak"
        assert not leak.is_symlink() and leak.read_text() == "/etc/passwd"
