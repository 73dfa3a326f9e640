"""A real browser (Debian's Chromium through its chromedriver, driven by Selenium) against ``assay serve``:
sign in, open a finished run's evaluation page and the pages it links to, sign out. Screenshots of every
page (laptop and phone widths) go to $ASSAY_SCREENSHOT_DIR when set (``make browser-test``), else to the
test's temporary directory. Skipped when Chromium, its driver or Selenium is absent.
"""

from __future__ import annotations

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

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason="Chromium and chromedriver are not installed"),
]


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
def served(tmp_path: Path) -> Iterator[dict[str, str]]:
    """``assay serve`` with an organization, an AI System bound to examples/ops-agent, a key and a user."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path / "data")
    org = _admin(env, "org", "create", "Acme")["organizationId"]
    system = _admin(env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    source = _admin(env, "source", "add", "--org", org, "--system", system, "--repo", str(EXAMPLE))["sourceAssetId"]
    _admin(env, "source", "verify", source)
    key = _admin(env, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
    email = "ann@acme.example"
    _admin(
        env, "user", "create", "--org", org, "--email", email, "--role", "member", "--password-stdin", stdin=PASSWORD
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
        yield {"base": base, "email": email, "evaluation": run["links"]["dashboardEvaluation"], "run": json.dumps(run)}
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


def test_sign_in_read_the_evaluation_and_its_pages_then_sign_out(served: dict[str, str], tmp_path: Path) -> None:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.wait import WebDriverWait

    options = Options()
    options.binary_location = CHROMIUM or ""
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(flag)
    shots = _shots(tmp_path)
    base = served["base"]
    browser = webdriver.Chrome(service=Service(executable_path=DRIVER or ""), options=options)
    browser.set_page_load_timeout(60)
    wait = WebDriverWait(browser, 30)

    def shot(name: str) -> None:
        height = browser.execute_script("return document.documentElement.scrollHeight")
        width = browser.get_window_size()["width"]
        browser.set_window_size(width, min(max(int(height), 600), 6000))
        assert browser.save_screenshot(str(shots / f"{name}.png"))
        browser.set_window_size(width, 900)

    try:
        # A link of the run, opened without a session: the sign-in page, coming back afterwards.
        browser.get(base + served["evaluation"])
        wait.until(expected_conditions.presence_of_element_located((By.ID, "email")))
        assert "/dashboard/login" in browser.current_url
        shot("01-sign-in")
        # Keyboard only: type, Tab to the password, Enter to submit.
        browser.find_element(By.ID, "email").send_keys(served["email"], Keys.TAB)
        browser.switch_to.active_element.send_keys(PASSWORD, Keys.ENTER)
        wait.until(expected_conditions.presence_of_element_located((By.ID, "verdict")))
        assert browser.current_url == base + served["evaluation"]
        assert browser.find_element(By.ID, "verdict").text == "BLOCK"
        assert "BLOCK-001" in browser.page_source and "ops_agent/tools.py:37" in browser.page_source
        # No console errors: the Content-Security-Policy refused nothing the page needs.
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
        shot("02-evaluation")
        browser.set_window_size(390, 844)
        wide = browser.execute_script(
            "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
            ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
        )
        assert wide[1] <= wide[0] + 1, wide
        shot("03-evaluation-phone")
        browser.set_window_size(1280, 900)

        for link_text, name in (
            ("Assurance", "04-assurance"),
            ("Reports", "05-reports"),
            ("Decision receipt", "06-receipt"),
            ("System workspace", "07-workspace"),
        ):
            browser.find_element(By.LINK_TEXT, link_text).click()
            wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1")))
            assert "Something went wrong" not in browser.page_source
            shot(name)
        browser.get(base + served["evaluation"])
        browser.find_element(By.LINK_TEXT, "Master Report").click()
        wait.until(expected_conditions.url_contains("/master-report/document"))
        assert "Disposition: BLOCK" in browser.page_source
        refused = [e for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
        assert refused == []  # the report's own stylesheet is allowed by its hash
        shot("08-master-report")

        browser.get(base + "/dashboard")
        shot("09-home")
        browser.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
        wait.until(expected_conditions.url_contains("/dashboard/login"))
        browser.get(base + served["evaluation"])
        assert "/dashboard/login" in browser.current_url
    finally:
        browser.quit()
