"""A real browser accepts a risk: a member signs in, opens a finished BLOCK evaluation, accepts a BLOCK reason
as a known risk from the form next to it (keyboard for the text), sees it listed on the system's risk page,
and a new run's evaluation shows the reason accepted (REVIEW). Screenshots at laptop and phone widths."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import date, timedelta

import httpx
import pytest
from browser_world import CLI, NEEDS_BROWSER, Browser

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]


def _second_run(served: dict[str, str]) -> str:
    """A new run through the API, with a key an admin creates for it; its evaluation page's path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = served["data_dir"]
    made = subprocess.run(
        [*CLI, "admin", "key", "create", "--org", served["organization"], "--purpose", "assurance-agent", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    auth = {"Authorization": f"Bearer {json.loads(made.stdout)['apiKey']}"}
    base = served["base"]
    created = httpx.post(
        f"{base}/api/v1/assurance/runs",
        json={"aiSystemId": served["system"], "engines": {"static": {"enabled": True}}},
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
    return str(run["links"]["dashboardEvaluation"])


def _fits(browser: Browser) -> None:
    wide = browser.driver.execute_script(
        "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
    )
    assert wide[1] <= wide[0] + 1, wide


def test_a_member_accepts_a_risk_and_the_next_run_applies_it(served: dict[str, str], browser: Browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions

    driver, wait = browser.driver, browser.wait
    browser.sign_in(served["email"], served["evaluation"])
    assert driver.find_element(By.ID, "verdict").text == "BLOCK"

    # The first reason (a BLOCK one): open its form and fill it in by keyboard.
    summary = driver.find_element(By.CSS_SELECTOR, "details.decide summary")
    assert summary.text == "Accept this reason as a known risk"
    summary.send_keys(Keys.ENTER)
    owner = wait.until(expected_conditions.visibility_of_element_located((By.ID, "owner-1-1")))
    owner.send_keys("Dana <dana@acme.example>", Keys.TAB)
    driver.switch_to.active_element.send_keys("Runs only in the sandboxed CI runner; <b>reviewed</b> 2026-11.")
    # The date widget's typing order depends on the locale: its value is set as the form would send it.
    until = (date.today() + timedelta(days=90)).isoformat()
    driver.execute_script("document.getElementById('until-1-1').value = arguments[0]", until)
    browser.shot("50-risk-accept-form")
    driver.set_window_size(390, 844)
    _fits(browser)
    browser.shot("51-risk-accept-form-phone")
    driver.set_window_size(1280, 900)
    driver.find_element(By.ID, "until-1-1").submit()

    wait.until(expected_conditions.url_contains("/risks"))
    heading = browser.present(By.CSS_SELECTOR, "main h2")
    assert heading.text == "Accepted risks"
    page = driver.page_source
    assert "ACTIVE" in page and until in page and "BLOCK-001" in page
    # What the member typed is shown as text, never as markup.
    assert "&lt;b&gt;reviewed&lt;/b&gt;" in page and not driver.find_elements(By.CSS_SELECTOR, ".justification b")
    assert browser.severe_console_errors() == []
    browser.shot("52-risks")
    driver.set_window_size(390, 844)
    _fits(browser)
    browser.shot("53-risks-phone")
    driver.set_window_size(1280, 900)

    # The evaluation it was read from is unchanged; the next run applies the acceptance.
    driver.get(served["base"] + served["evaluation"])
    assert browser.present(By.ID, "verdict").text == "BLOCK"
    assert "applies from the next run" in driver.page_source
    applied = _second_run(served)
    driver.get(served["base"] + applied)
    verdict = browser.present(By.ID, "verdict").text
    page = driver.page_source
    assert "Accepted risk" in page and "REVIEW-013" in page
    # ops-agent has other BLOCK reasons: accepting one leaves the Evaluation BLOCK.
    assert verdict == "BLOCK"
    browser.shot("54-evaluation-with-accepted-risk")
