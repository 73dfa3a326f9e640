"""A real git server for the tests: git's smart HTTP backend (``git http-backend``, CGI) behind a small
threaded HTTPS server on 127.0.0.1 with basic authentication and a self-signed certificate.

The service trusts the certificate through ``GitFetchSettings.ca_file`` (ASSAY_GIT_CA_FILE), the setting
an operator uses for an internal CA: plain http is never allowed, not even in tests.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Protocol

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

USER = "deploy"
TOKEN = "s3cret-deploy-token-0123456789"


def write_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "assay test git server")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "server.pem", folder / "server.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


@dataclass
class GitServer:
    root: Path
    port: int
    ca_file: Path
    requests: list[str] = field(default_factory=list)

    def url(self, name: str) -> str:
        return f"https://127.0.0.1:{self.port}/{name}.git"


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


def _handler(server: GitServer) -> type[BaseHTTPRequestHandler]:
    expected = "Basic " + base64.b64encode(f"{USER}:{TOKEN}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def _serve(self) -> None:
            server.requests.append(f"{self.command} {self.path} auth={'Authorization' in self.headers}")
            body = _read_body(self) if self.command == "POST" else b""
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "GIT_PROJECT_ROOT": str(server.root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": "/dev/null",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "REMOTE_USER": USER,
                "REMOTE_ADDR": "127.0.0.1",
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            }
            result = subprocess.run(
                ["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60, check=False
            )
            head, _, payload = result.stdout.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _serve
        do_POST = _serve

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A client the service stopped (a fetch over its size or time bound) hangs up mid-response.
        return


@contextmanager
def serve_git(folder: Path) -> Iterator[GitServer]:
    """A git server for the bare repositories under ``folder / "repos"``, until the block ends."""
    root = folder / "repos"
    root.mkdir(parents=True)
    cert_file, key_file = write_certificate(folder)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    state = GitServer(root=root, port=0, ca_file=cert_file)
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git for the test's own repositories (not the service's fetch)."""
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env={**base, **(env or {})}, check=True, capture_output=True, text=True
    ).stdout


class Serves(Protocol):
    """A test git server (HTTPS here, SSH in ssh_server.py): its bare repositories live under ``root``."""

    @property
    def root(self) -> Path: ...


def publish(server: Serves, name: str, work: Path, branch: str = "main") -> str:
    """Commit everything in ``work`` on ``branch`` and push it to a new bare repository ``name``; the
    commit id."""
    bare = server.root / f"{name}.git"
    if not bare.exists():
        git(server.root, "init", "--quiet", "--bare", "--initial-branch", branch, str(bare))
    if not (work / ".git").exists():
        git(work, "init", "--quiet", "--initial-branch", branch)
    git(work, "checkout", "--quiet", "-B", branch)
    git(work, "add", "--all", "--force")
    git(work, "commit", "--quiet", "--allow-empty", "-m", f"publish {name}")
    git(work, "push", "--quiet", "--force", str(bare), f"{branch}:{branch}")
    return git(work, "rev-parse", "HEAD").strip()
