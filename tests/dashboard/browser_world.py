"""The world of the browser tests (tests/dashboard/test_browser*.py): ``assay serve`` as a subprocess with an
organization, an AI System bound to examples/ops-agent, a finished run, a member and an owner; and a
headless Chromium (Debian's, through its chromedriver, driven by Selenium) that signs in and takes
screenshots. Screenshots go to $ASSAY_SCREENSHOT_DIR when set (``make browser-test``), else to the test's
temporary directory. The tests skip when Chromium, its driver or Selenium is absent.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CLI = [sys.executable, "-m", "assay.server.cli"]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ops-agent"
PASSWORD = "a browser's long passphrase"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

OWNER_EMAIL = "olive@acme.example"
NEEDS_BROWSER = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None, reason="Chromium and chromedriver are not installed"
)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _admin(env: dict[str, str], *argv: str, stdin: str = "") -> dict[str, Any]:
    proc = subprocess.run(
        [*CLI, "admin", *argv, "--json"], env=env, input=stdin, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    value: dict[str, Any] = json.loads(proc.stdout)
    return value


@pytest.fixture
def served_env() -> dict[str, str]:
    """More environment for the served service (a test module overrides this fixture, e.g. to trust its
    git server's certificate)."""
    return {}


@pytest.fixture
def served(tmp_path: Path, served_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """``assay serve`` with an organization, an AI System bound to examples/ops-agent, a key, a member (ann)
    and an owner (olive), and one finished run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path / "data")
    env.update(served_env)
    org = _admin(env, "org", "create", "Acme")["organizationId"]
    system = _admin(env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    source = _admin(env, "source", "add", "--org", org, "--system", system, "--repo", str(EXAMPLE))["sourceAssetId"]
    _admin(env, "source", "verify", source)
    key = _admin(env, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
    email = "ann@acme.example"
    _admin(
        env, "user", "create", "--org", org, "--email", email, "--role", "member", "--password-stdin", stdin=PASSWORD
    )
    _admin(
        env,
        "user",
        "create",
        "--org",
        org,
        "--email",
        OWNER_EMAIL,
        "--role",
        "owner",
        "--password-stdin",
        stdin=PASSWORD,
    )
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "assay serve did not become healthy"
            try:
                server.wait(timeout=0.2)  # paces the polling and notices an early exit
                raise AssertionError(f"assay serve exited with {server.returncode}")
            except subprocess.TimeoutExpired:
                pass
        auth = {"Authorization": f"Bearer {key}"}
        created = httpx.post(
            f"{base}/api/v1/assurance/runs",
            json={"aiSystemId": system, "engines": {"static": {"enabled": True}}},
            headers={**auth, "Prefer": "wait=30"},
            timeout=60,
        )
        assert created.status_code in (200, 201, 202), created.text
        run = created.json()
        deadline = time.monotonic() + 120
        while run["status"] not in ("COMPLETED", "FAILED"):
            assert time.monotonic() < deadline, "the run did not finish"
            run = httpx.get(f"{base}{run['links']['self']}", headers={**auth, "Prefer": "wait=10"}, timeout=30).json()
        assert run["status"] == "COMPLETED", run
        yield {
            "base": base,
            "email": email,
            "owner_email": OWNER_EMAIL,
            "organization": org,
            "system": system,
            "evaluation": run["links"]["dashboardEvaluation"],
            "run": json.dumps(run),
            "data_dir": env["ASSAY_DATA_DIR"],
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)


def _shots(tmp_path: Path) -> Path:
    configured = os.environ.get("ASSAY_SCREENSHOT_DIR")
    folder = Path(configured) if configured else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Browser:
    """A headless Chromium at 1280x900 with the steps every browser test takes: open a page, wait for an
    element, sign in by keyboard, take a full-page screenshot."""

    def __init__(self, base: str, shots: Path) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.wait import WebDriverWait

        options = Options()
        options.binary_location = CHROMIUM or ""
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
            options.add_argument(flag)
        self.base = base
        self.shots = shots
        self.driver = webdriver.Chrome(service=Service(executable_path=DRIVER or ""), options=options)
        self.driver.set_page_load_timeout(60)
        self.wait = WebDriverWait(self.driver, 30)

    def present(self, by: str, value: str) -> Any:
        from selenium.webdriver.support import expected_conditions

        return self.wait.until(expected_conditions.presence_of_element_located((by, value)))

    def sign_in(self, email: str, next_path: str = "/dashboard") -> None:
        """Open ``next_path`` signed out, sign in on the form it leads to (keyboard only), land back there."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.driver.get(self.base + next_path)
        self.present(By.ID, "email").send_keys(email, Keys.TAB)
        self.driver.switch_to.active_element.send_keys(PASSWORD, Keys.ENTER)
        self.wait.until(lambda driver: "/dashboard/login" not in driver.current_url)

    def shot(self, name: str) -> None:
        """The whole page (up to 6000 px tall) at the window's width, through the DevTools protocol: a headless
        window cannot grow past the screen, so a window-sized screenshot would cut long pages."""
        driver = self.driver
        size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        width = max(size["width"], driver.execute_script("return window.innerWidth"))
        clip = {"x": 0, "y": 0, "width": width, "height": min(size["height"], 6000), "scale": 1}
        image = driver.execute_cdp_cmd(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
        )
        (self.shots / f"{name}.png").write_bytes(base64.b64decode(image["data"]))

    def severe_console_errors(self) -> list[Any]:
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.fixture
def browser(served: dict[str, str], tmp_path: Path) -> Iterator[Browser]:
    pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    opened = Browser(served["base"], _shots(tmp_path))
    try:
        yield opened
    finally:
        opened.driver.quit()
