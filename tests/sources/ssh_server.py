"""A real SSH git server for the tests: Debian's OpenSSH daemon (``/usr/sbin/sshd``, from openssh-server:
``make gitpeers`` installs it) on a free 127.0.0.1 port, run as the current user with a configuration of its
own in a temporary directory (its own host key, its own authorized keys, public keys only, no PAM, no system
configuration). Repositories are served by plain ``git-upload-pack`` run through the user's shell, as on any
git host reached over ssh: ``ssh://USER@127.0.0.1:PORT/ABS/PATH/NAME.git``.

The service trusts the host key only through ``GitFetchSettings.known_hosts`` (ASSAY_GIT_KNOWN_HOSTS): the
fixture hands out the ``known_hosts`` line; the tests decide whether the service gets it.
"""

from __future__ import annotations

import getpass
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")
STARTUP_SECONDS = 20.0


def sshd_missing() -> str | None:
    """Why the SSH git tests cannot run here, or None when they can."""
    if not SSHD.is_file() or not os.access(SSHD, os.X_OK):
        return f"{SSHD} is not installed (openssh-server; `make gitpeers` installs it as root): SSH git tests skip"
    if not (Path("/run/sshd").is_dir() or os.geteuid() == 0):
        return "/run/sshd (sshd's privilege separation directory) is missing and only root can create it"
    return None


def keygen(path: Path, comment: str) -> str:
    """A new unencrypted ed25519 key pair at ``path`` (private) and ``path.pub``; the private key's text."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return path.read_text()


@dataclass(frozen=True)
class SshGitServer:
    root: Path
    port: int
    user: str
    host_key_line: str  # the known_hosts line of this server's host key
    deploy_key: str  # a private key the server authorizes
    log: Path

    def url(self, name: str) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{self.root}/{name}.git"

    def log_text(self) -> str:
        """What sshd logged so far (``-e``: its log goes to this file)."""
        return self.log.read_text(errors="replace")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_banner(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Until sshd accepts on ``port`` and sends its banner, within STARTUP_SECONDS (or it exits)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited ({process.returncode}): {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
                connection.settimeout(max(0.1, deadline - time.monotonic()))
                if connection.recv(256).startswith(b"SSH-2.0-"):
                    return
        except OSError:
            pass
        # A bound wait that also notices sshd exiting.
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.05)
    raise RuntimeError(f"sshd did not answer on 127.0.0.1:{port} within {STARTUP_SECONDS} s")


@contextmanager
def serve_ssh_git(folder: Path) -> Iterator[SshGitServer]:
    """An SSH git server for the bare repositories under ``folder / "repos"``, until the block ends."""
    root = folder / "repos"
    root.mkdir(parents=True)
    if not Path("/run/sshd").is_dir():
        Path("/run/sshd").mkdir(mode=0o755)
    host_key = folder / "host_ed25519"
    keygen(host_key, "assay-test-host")
    deploy_key = keygen(folder / "deploy_ed25519", "assay-test-deploy")
    # Only git-upload-pack is wanted: no forwarding, no terminal.
    (folder / "authorized_keys").write_text("restrict " + (folder / "deploy_ed25519.pub").read_text())
    user = getpass.getuser()
    log = folder / "sshd.log"
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {host_key}",
                f"AuthorizedKeysFile {folder / 'authorized_keys'}",
                f"PidFile {folder / 'sshd.pid'}",
                f"AllowUsers {user}",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                "UsePAM no",
                "StrictModes no",
                "PrintMotd no",
                "LogLevel VERBOSE",
                "",
            ]
        )
    )
    with log.open("wb") as log_handle:
        process = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log_handle,
            stderr=log_handle,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    try:
        _wait_for_banner(process, port, log)
        public = (host_key.with_suffix(".pub")).read_text().split()
        yield SshGitServer(
            root=root,
            port=port,
            user=user,
            host_key_line=f"[127.0.0.1]:{port} {public[0]} {public[1]}\n",
            deploy_key=deploy_key,
            log=log,
        )
    finally:
        process.kill()
        process.wait(timeout=10)
