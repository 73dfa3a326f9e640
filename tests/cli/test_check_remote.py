"""`assay check` against a running `assay serve`: the same tree gives the same disposition and digests as
embedded, with the system given or resolved from the workspace's bound source."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_helpers import ASSAY, EXAMPLES, child_env, run_assay

pytestmark = pytest.mark.slow


def _admin(env: dict[str, str], *argv: str) -> dict[str, str]:
    proc = run_assay("admin", *argv, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    value: dict[str, str] = json.loads(proc.stdout)
    return value


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    env = child_env(ASSAY_DATA_DIR=str(tmp_path / "service"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [*ASSAY, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120  # bounded, generous under load
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, "assay serve exited"
            assert time.monotonic() < deadline, "assay serve did not start"
            time.sleep(0.05)
        yield base, env
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_same_disposition_embedded_and_remote(service: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    base, admin_env = service
    org = _admin(admin_env, "org", "create", "Acme")["organizationId"]
    system = _admin(admin_env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    key = _admin(admin_env, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
    user = child_env(ASSAY_DATA_DIR=str(tmp_path / "user"))

    embedded = run_assay("check", "examples/ops-agent", "--format", "json", "--no-cache", env=user)
    remote = run_assay(
        "check",
        "examples/ops-agent",
        "--format",
        "json",
        "--no-cache",
        "--base-url",
        base,
        "--system-id",
        system,
        env={**user, "ASSAY_API_KEY": key},
    )
    assert embedded.returncode == remote.returncode == 5, (embedded.stderr, remote.stderr)
    local, served = json.loads(embedded.stdout), json.loads(remote.stdout)
    assert (local["mode"], served["mode"]) == ("embedded", "remote")
    assert served["aiSystemId"] == system
    assert local["disposition"] == served["disposition"] == "BLOCK"
    assert local["digests"]["coreTruthDigest"] == served["digests"]["coreTruthDigest"]
    assert [r["fingerprint"] for r in local["reasons"]] == [r["fingerprint"] for r in served["reasons"]]

    # Without a system id the service's discovery resolves the workspace through its bound source.
    source = _admin(admin_env, "source", "add", "--org", org, "--system", system, "--repo", str(EXAMPLES / "ops-agent"))
    resolved = run_assay(
        "check",
        "examples/ops-agent",
        "--format",
        "json",
        "--no-cache",
        env={**user, "ASSAY_API_KEY": key, "ASSAY_BASE_URL": base},
    )
    assert resolved.returncode == 5, resolved.stderr
    assert json.loads(resolved.stdout)["aiSystemId"] == system
    # A workspace no system has bound cannot be resolved: not assessed, with what to pass.
    orphan = run_assay(
        "check", "examples/research-assistant", "--no-cache", env={**user, "ASSAY_API_KEY": key, "ASSAY_BASE_URL": base}
    )
    assert orphan.returncode == 3
    assert "AI_SYSTEM_NOT_FOUND" in orphan.stderr and source["sourceAssetId"]
    # docs/cli.md: the message names the flag to pass and the command that binds the repository.
    assert "--system-id" in orphan.stderr and "assay admin source add" in orphan.stderr
    unknown = run_assay(
        "check",
        "examples/ops-agent",
        "--no-cache",
        "--system-id",
        "sys_unknown",
        env={**user, "ASSAY_API_KEY": key, "ASSAY_BASE_URL": base},
    )
    assert unknown.returncode == 3 and "AI_SYSTEM_NOT_FOUND" in unknown.stderr
    assert "--system-id" in unknown.stderr and "assay admin source add" in unknown.stderr


def test_a_service_that_is_down_is_said_before_any_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.server.cli import main
    from assay.server.commands import check

    def no_scan(options: object) -> dict[str, object]:
        raise AssertionError("scanned before the service was reached")

    monkeypatch.setattr(check, "_scan", no_scan)
    with socket.socket() as sock:  # a port nothing listens on once this socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ASSAY_API_KEY", "svc_live_" + "k" * 43)
    monkeypatch.setenv("ASSAY_DATA_DIR", str(tmp_path))
    code = main(["check", str(EXAMPLES / "ops-agent"), "--base-url", f"http://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 3
    assert f"CONNECTION_FAILED: The Assay service at http://127.0.0.1:{port} could not be reached" in err
    assert "--base-url" in err  # what to check next
