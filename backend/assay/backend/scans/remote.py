"""Fetching a remote git source into a throwaway directory with the git command line, never executing it.

A remote is an ``https://`` or ``ssh://`` URL (or the scp form ``user@host:path``) without credentials
in it; its deploy credential (an HTTPS token, or an SSH private key) is handed to git only through the
environment of the one process that needs it (``http.extraHeader`` through ``GIT_CONFIG_*``, or an
owner-only key file named by ``GIT_SSH_COMMAND``): never on a command line, never in a file of the
checkout. Every git process runs with:

- no system or user configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``, ``HOME`` a
  private empty directory), so no filter, hook, credential helper or ``core.fsmonitor`` of the machine
  applies, and a fetched repository cannot bring configuration of its own;
- hooks off (``core.hooksPath=/dev/null``, an empty template), submodules not fetched, LFS not smudged,
  symlinks checked out as plain files (``core.symlinks=false``), redirects not followed;
- protocols https and ssh only (``protocol.allow=never`` and ``GIT_ALLOW_PROTOCOL``);
- an overall deadline, after which its whole process group is killed;
- a size bound (``GitFetchSettings.max_bytes``): no file may grow past it (``prlimit --fsize``), the
  directory is watched while the pack arrives, the pack is measured after, and the tree's blob sizes are
  summed (``git ls-tree -l``) before anything is checked out, so a compression bomb is refused unpacked.

Only the tip of a branch (``--depth 1``) or one commit (by its full sha) is fetched. The directory is
removed when the ``fetched_tree`` block ends, whatever happened.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from assay.backend.settings import GitFetchSettings

GitErrorCode = Literal[
    "AUTH_FAILED", "BRANCH_NOT_FOUND", "COMMIT_NOT_FOUND", "UNREACHABLE", "TOO_LARGE", "TIMEOUT", "REFUSED", "FAILED"
]
CredentialKind = Literal["https-token", "ssh-key"]
# Fetch errors worth retrying later (the remote may come back); the others need someone to act.
RETRYABLE: frozenset[GitErrorCode] = frozenset({"UNREACHABLE", "TIMEOUT", "FAILED"})
# How often the directory is measured while a pack arrives (the size bound's reaction time).
_WATCH_SECONDS = 0.2
# The most of a git process's output read back (ls-remote, ls-tree on a bounded pack, rev-parse).
_MAX_OUTPUT = 64 * 1024 * 1024
_HOST = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$"
)
_SCP = re.compile(r"^(?P<user>[A-Za-z0-9._-]+)@(?P<host>[^:/]+):(?P<path>(?!//).+)$")
_BRANCH_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[-/.]|[/.]$|\.lock$")
_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class GitFetchError(Exception):
    """A remote could not be fetched as asked; ``message`` is fit for a person and holds no secret."""

    def __init__(self, code: GitErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: GitErrorCode = code
        self.message = message

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE


@dataclass(frozen=True, slots=True)
class GitCredential:
    """A deploy credential. ``secret`` is never shown: not in ``repr``, logs or messages."""

    kind: CredentialKind
    secret: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Remote:
    """A remote git URL this service may fetch."""

    url: str
    scheme: Literal["https", "ssh"]
    host: str


@dataclass(frozen=True, slots=True)
class RemoteRefs:
    """What ``git ls-remote`` answered: the default branch (HEAD's target) and every branch's tip."""

    default_branch: str | None
    branches: dict[str, str]


@dataclass(frozen=True, slots=True)
class FetchedTree:
    """A checked-out tree: ``root`` exists only inside the ``fetched_tree`` block."""

    root: Path
    commit: str
    branch: str | None


def parse_remote(url: str) -> Remote:
    """``url`` as a fetchable remote, or ValueError saying why not (scheme, credentials in it, host)."""
    url = url.strip()
    scp = _SCP.match(url)
    if "://" not in url and scp is not None:
        host, path = scp.group("host"), scp.group("path")
        scheme: Literal["https", "ssh"] = "ssh"
    else:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "ssh"):
            raise ValueError(
                "only https:// and ssh:// git remotes (or user@host:path) can be fetched; "
                f"{parts.scheme or 'a plain path'}{'://' if parts.scheme else ''} is refused"
            )
        scheme = "https" if parts.scheme == "https" else "ssh"
        if scheme == "https" and (parts.username is not None or parts.password is not None):
            raise ValueError("the URL carries credentials: give the URL without them and the token on stdin")
        if parts.password is not None:
            raise ValueError("the URL carries a password: SSH remotes authenticate with a deploy key")
        host, path = parts.hostname or "", parts.path
        try:
            _ = parts.port
        except ValueError as exc:
            raise ValueError(f"the URL's port is not a number: {exc}") from None
    if not _HOST.match(host) and not _is_ip_literal(host):
        raise ValueError(f"{host!r} is not a host name")
    if not path.strip("/") or path.lstrip("/").startswith("-"):
        raise ValueError("the URL names no repository path")
    if any(ord(c) < 0x21 or c == "\x7f" for c in url):
        raise ValueError("the URL holds spaces or control characters")
    return Remote(url=url, scheme=scheme, host=host.lower())


def _fetchable(url: str) -> Remote:
    try:
        return parse_remote(url)
    except ValueError as exc:
        raise GitFetchError("REFUSED", str(exc)) from exc


def _is_ip_literal(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def check_branch(name: str) -> str:
    """A branch name git accepts (``git check-ref-format`` rules, checked here without running git)."""
    name = name.strip()
    if not name or _BRANCH_FORBIDDEN.search(name):
        raise ValueError(f"{name!r} is not a valid branch name")
    return name


def check_commit(sha: str) -> str:
    """A full commit id (40 or 64 hex digits): only a full id can be fetched from a remote."""
    sha = sha.strip().lower()
    if not _SHA.match(sha):
        raise ValueError("a commit is fetched by its full id (40 hexadecimal digits)")
    return sha


def read_credential(remote: Remote, text: str) -> GitCredential:
    """The credential given for ``remote``: a token (or ``USER:TOKEN``) for https, a private key for ssh."""
    if remote.scheme == "https":
        token = text.strip()
        if not token or "\n" in token or any(ord(c) < 0x20 or c == "\x7f" for c in token):
            raise ValueError("an HTTPS credential is one line: a token, or USER:TOKEN")
        return GitCredential("https-token", token)
    key = _rewrap_key(text.strip())
    if not (key.startswith("-----BEGIN ") and "PRIVATE KEY-----" in key and key.endswith("-----")):
        raise ValueError("an SSH credential is a private key (OpenSSH or PEM, as ssh-keygen writes it)")
    return GitCredential("ssh-key", key + "\n")


_ONE_LINE_KEY = re.compile(
    r"^(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)\s*([A-Za-z0-9+/=\s]+?)\s*(-----END [A-Z0-9 ]*PRIVATE KEY-----)$"
)


def _rewrap_key(key: str) -> str:
    """A private key whose line breaks were lost (a password field strips them; a form may turn them into
    spaces) written back as ssh-keygen does: header, base64 body in lines of 70 (64 for PEM), footer."""
    if "\n" in key:
        return key
    match = _ONE_LINE_KEY.match(key)
    if match is None:
        return key
    head, body, foot = match.group(1), re.sub(r"\s+", "", match.group(2)), match.group(3)
    width = 70 if "OPENSSH" in head else 64
    return "\n".join([head, *(body[i : i + width] for i in range(0, len(body), width)), foot])


def basic_authorization(token: str) -> str:
    """The Authorization header of an HTTPS token: Basic, with ``USER:TOKEN`` as given, or a bare token
    as the password of ``x-access-token`` (what GitHub and Gitea deploy tokens expect; GitLab's need the
    deploy token's user name: give ``USER:TOKEN``)."""
    pair = token if ":" in token else f"x-access-token:{token}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


def ssh_command(key_file: Path | None, known_hosts: Path, connect_timeout: int) -> str:
    """``GIT_SSH_COMMAND``: this key only, no agent, no user config, strict host keys from ``known_hosts``
    only, never a prompt. (git runs it through a shell: every path is quoted.)"""
    options = [
        "IdentitiesOnly=yes",
        "IdentityAgent=none",
        "BatchMode=yes",
        "StrictHostKeyChecking=yes",
        f"UserKnownHostsFile={known_hosts}",
        "GlobalKnownHostsFile=/dev/null",
        "UpdateHostKeys=no",
        "PasswordAuthentication=no",
        "KbdInteractiveAuthentication=no",
        "ControlMaster=no",
        "ControlPath=none",
        "ForwardAgent=no",
        "PermitLocalCommand=no",
        f"ConnectTimeout={max(1, connect_timeout)}",
    ]
    words = ["ssh", "-F", "/dev/null"]
    if key_file is not None:
        words += ["-i", str(key_file)]
    for option in options:
        words += ["-o", option]
    return " ".join(shlex.quote(w) for w in words)


# Configuration every git process gets (through GIT_CONFIG_COUNT/KEY/VALUE, never a file).
_CONFIG: tuple[tuple[str, str], ...] = (
    ("protocol.allow", "never"),
    ("protocol.https.allow", "always"),
    ("protocol.ssh.allow", "always"),
    ("core.hooksPath", "/dev/null"),
    ("core.symlinks", "false"),
    ("core.fsmonitor", "false"),
    ("credential.helper", ""),
    ("http.followRedirects", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("submodule.recurse", "false"),
    ("fetch.unpackLimit", "1"),
    ("transfer.unpackLimit", "1"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("advice.detachedHead", "false"),
    ("init.defaultBranch", "assay-fetch"),
    # A remote that stalls below 1 KB/s for 30 s is given up before the deadline.
    ("http.lowSpeedLimit", "1024"),
    ("http.lowSpeedTime", "30"),
)


def git_environment(
    remote: Remote, credential: GitCredential | None, settings: GitFetchSettings, home: Path
) -> dict[str, str]:
    """The whole environment of a git process for ``remote`` (nothing inherited but ``PATH``). Writes the
    SSH key, owner-only, into ``home`` (a private directory the caller removes)."""
    config = list(_CONFIG)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "LANG": "C",
        "LC_ALL": "C",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_ALLOW_PROTOCOL": "https:ssh",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
    }
    if remote.scheme == "https":
        if settings.ca_file is not None:
            config.append(("http.sslCAInfo", str(settings.ca_file)))
        if credential is not None:
            if credential.kind != "https-token":
                raise GitFetchError("REFUSED", "the source's credential is an SSH key, but its URL is https")
            config.append(("http.extraHeader", f"Authorization: {basic_authorization(credential.secret)}"))
    else:
        if settings.known_hosts is None or not settings.known_hosts.is_file():
            where = settings.known_hosts or "a known_hosts file (ASSAY_GIT_KNOWN_HOSTS)"
            raise GitFetchError(
                "REFUSED",
                f"no SSH host key is trusted for {remote.host}: add its key to {where} "
                "after checking its fingerprint (ssh-keyscan prints it)",
            )
        key_file: Path | None = None
        if credential is not None:
            if credential.kind != "ssh-key":
                raise GitFetchError("REFUSED", "the source's credential is an HTTPS token, but its URL is ssh")
            key_file = home / "deploy-key"
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(credential.secret)
        env["GIT_SSH_COMMAND"] = ssh_command(key_file, settings.known_hosts, int(min(settings.timeout_seconds, 60)))
        env["GIT_SSH_VARIANT"] = "ssh"
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def _tree_bytes(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                total += (Path(folder) / name).lstat().st_size
    return total


def _largest_file(path: Path) -> int:
    largest = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                largest = max(largest, (Path(folder) / name).lstat().st_size)
    return largest


def _classify(stderr: str, remote: Remote) -> GitFetchError:
    """The error a failed git process means, in words that hold no secret (git never prints the header
    or the key; the URL has no credential in it)."""
    text = stderr.lower()
    if f"died of signal {int(signal.SIGXFSZ)}" in text or "file size limit exceeded" in text:
        return GitFetchError("TOO_LARGE", "the repository is larger than this service fetches (ASSAY_GIT_MAX_BYTES)")
    if "couldn't find remote ref" in text or "could not find remote ref" in text:
        return GitFetchError("BRANCH_NOT_FOUND", "the remote has no such branch")
    if "not our ref" in text or "unadvertised object" in text or "no such remote ref" in text:
        return GitFetchError("COMMIT_NOT_FOUND", "the remote has no such commit (or does not serve it by id)")
    if "host key verification failed" in text:
        return GitFetchError(
            "REFUSED", f"the SSH host key of {remote.host} is not the one trusted (ASSAY_GIT_KNOWN_HOSTS)"
        )
    if any(
        marker in text
        for marker in (
            "authentication failed",
            "could not read username",
            "could not read password",
            "permission denied (publickey",
            "permission to",  # GitHub: "Permission to o/r.git denied to deploy-key"
            "access denied",
            "returned error: 401",
            "returned error: 403",
            "invalid username or password",
        )
    ):
        return GitFetchError(
            "AUTH_FAILED", f"{remote.host} refused the credential (wrong, expired, or without read access)"
        )
    if "not allowed" in text and "transport" in text:
        return GitFetchError("REFUSED", "only https and ssh remotes are fetched")
    if (
        "returned error: 404" in text
        or "repository not found" in text
        or re.search(r"repository '[^']*' not found", text)
        or "does not appear to be a git" in text
    ):
        return GitFetchError("UNREACHABLE", f"{remote.host} has no such repository (or hides it from this credential)")
    if "certificate" in text or "ssl" in text:
        return GitFetchError("UNREACHABLE", f"the TLS certificate of {remote.host} is not trusted (ASSAY_GIT_CA_FILE)")
    if any(
        marker in text
        for marker in (
            "could not resolve host",
            "could not resolve hostname",
            "failed to connect",
            "connection refused",
            "connection timed out",
            "no route to host",
            "network is unreachable",
            "operation too slow",
            "could not read from remote repository",
            "empty reply from server",
        )
    ):
        return GitFetchError("UNREACHABLE", f"{remote.host} cannot be reached")
    return GitFetchError("FAILED", "git could not fetch the repository")


class _Git:
    """Runs git for one remote under one deadline and one size bound, in a private directory."""

    def __init__(
        self, remote: Remote, credential: GitCredential | None, settings: GitFetchSettings, private: Path
    ) -> None:
        self.remote = remote
        self.settings = settings
        self.private = private
        home = private / "home"
        home.mkdir(mode=0o700)
        self.env = git_environment(remote, credential, settings, home)
        self.deadline = time.monotonic() + settings.timeout_seconds
        self.prlimit = shutil.which("prlimit")
        self.git = shutil.which("git") or "git"

    def __call__(self, args: list[str], *, cwd: Path, watch: Path | None = None) -> str:
        """Run ``git ARGS``; its stdout (bounded) or the GitFetchError its failure means."""
        out_path, err_path = self.private / "stdout", self.private / "stderr"
        command = [self.git, *args]
        if self.prlimit is not None:
            # Every file any git process writes stays within the bound (SIGXFSZ past it).
            command = [self.prlimit, f"--fsize={self.settings.max_bytes}", *command]
        with out_path.open("wb") as out, err_path.open("wb") as err:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            try:
                code = self._wait(process, watch)
            finally:
                if process.returncode is None:
                    _kill(process)
        stderr = _read(err_path, 64 * 1024)
        if code != 0:
            # A helper stopped at the file size bound (SIGXFSZ) may be reported only as broken output.
            if watch is not None and _largest_file(watch) >= self.settings.max_bytes:
                raise too_large(self.settings)
            raise _classify(stderr, self.remote)
        return _read(out_path, _MAX_OUTPUT)

    def _wait(self, process: subprocess.Popen[bytes], watch: Path | None) -> int:
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                _kill(process)
                raise GitFetchError(
                    "TIMEOUT",
                    f"fetching from {self.remote.host} took longer than {self.settings.timeout_seconds:g} s "
                    "(ASSAY_GIT_TIMEOUT_SECONDS)",
                )
            try:
                return process.wait(timeout=min(remaining, _WATCH_SECONDS))
            except subprocess.TimeoutExpired:
                if watch is not None and _tree_bytes(watch) > self.settings.max_bytes:
                    _kill(process)
                    raise too_large(self.settings) from None

    def check_size(self, path: Path) -> None:
        if _tree_bytes(path) > self.settings.max_bytes:
            raise too_large(self.settings)


def too_large(settings: GitFetchSettings) -> GitFetchError:
    return GitFetchError(
        "TOO_LARGE",
        f"the repository is larger than {settings.max_bytes} bytes, the most this service fetches "
        "(ASSAY_GIT_MAX_BYTES)",
    )


def _kill(process: subprocess.Popen[bytes]) -> None:
    # The whole group: git's helpers (remote-https, index-pack, ssh) go with it.
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _read(path: Path, limit: int) -> str:
    with path.open("rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


@contextmanager
def _private_directory() -> Iterator[Path]:
    private = Path(tempfile.mkdtemp(prefix="assay-git-"))
    try:
        yield private
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _parse_ls_remote(text: str) -> RemoteRefs:
    default: str | None = None
    branches: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            target = line[len("ref: ") : -len("\tHEAD")]
            default = target.removeprefix("refs/heads/") if target.startswith("refs/heads/") else None
            continue
        sha, _, ref = line.partition("\t")
        if ref.startswith("refs/heads/"):
            branches[ref.removeprefix("refs/heads/")] = sha
    return RemoteRefs(default_branch=default, branches=branches)


def list_remote(url: str, credential: GitCredential | None, settings: GitFetchSettings) -> RemoteRefs:
    """The remote's default branch and branches (``git ls-remote --symref``): proves the host answers and
    accepts the credential, without fetching anything."""
    remote = _fetchable(url)
    with _private_directory() as private:
        git = _Git(remote, credential, settings, private)
        return _parse_ls_remote(git(["ls-remote", "--symref", remote.url, "HEAD", "refs/heads/*"], cwd=private))


@contextmanager
def fetched_tree(
    url: str,
    credential: GitCredential | None,
    settings: GitFetchSettings,
    *,
    branch: str | None = None,
    commit: str | None = None,
) -> Iterator[FetchedTree]:
    """The tip of ``branch`` (or ``commit``) of ``url`` checked out in a throwaway directory, removed when the
    block ends. The checkout's ``origin`` is ``url`` and, for a branch, HEAD is on it, so the scan's source
    identity names the remote, commit and branch."""
    if (branch is None) == (commit is None):
        raise ValueError("fetch a branch or a commit")
    remote = _fetchable(url)
    want = f"refs/heads/{check_branch(branch)}" if branch is not None else check_commit(commit or "")
    with _private_directory() as private:
        git = _Git(remote, credential, settings, private)
        tree = private / "tree"
        git(["init", "--quiet", "--template=", str(tree)], cwd=private)
        git(["config", "remote.origin.url", remote.url], cwd=tree)
        fetch = ["fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--no-auto-gc"]
        git([*fetch, "origin", want], cwd=tree, watch=tree)
        git.check_size(tree / ".git")
        sha = git(["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], cwd=tree).strip()
        _check_blob_sizes(git(["ls-tree", "-r", "-l", "-z", "--full-tree", sha], cwd=tree), settings)
        if branch is not None:
            git(["checkout", "--quiet", "--no-recurse-submodules", "-B", branch, sha], cwd=tree, watch=tree)
        else:
            git(["checkout", "--quiet", "--no-recurse-submodules", "--detach", sha], cwd=tree, watch=tree)
        yield FetchedTree(root=tree, commit=sha, branch=branch)


def _check_blob_sizes(listing: str, settings: GitFetchSettings) -> None:
    """Refuse a tree whose files add up past the bound before any is written (a small pack can hold a
    huge tree: compressed zeros)."""
    total = 0
    for entry in listing.split("\0"):
        meta, _, _path = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 4 and fields[1] == "blob" and fields[3].isdigit():
            total += int(fields[3])
            if total > settings.max_bytes:
                raise too_large(settings)
