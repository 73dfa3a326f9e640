"""A real browser starts a run from the system workspace, watches its page until it links to the Evaluation
(the page reloads itself: no script), reads the Evaluation, then compares it with the run before it.
Screenshots at laptop and phone widths (``make browser-test``); the world and the browser are in
browser_world.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_world import NEEDS_BROWSER, Browser

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]

# How long the run started from the page may take in all (a static scan of examples/ops-agent).
RUN_SECONDS = 120


def _fits_a_phone(browser: Browser) -> None:
    """At 390 px the page does not scroll sideways."""
    wide = browser.driver.execute_script(
        "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
    )
    assert wide[1] <= wide[0] + 1, wide


def _phone_shot(browser: Browser, name: str) -> None:
    browser.driver.set_window_size(390, 844)
    _fits_a_phone(browser)
    browser.shot(name)
    browser.driver.set_window_size(1280, 900)


def test_start_a_run_watch_it_read_the_evaluation_and_compare_two(served: dict[str, str], browser: Browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    driver = browser.driver
    workspace = f"/dashboard/systems/{served['system']}"
    browser.sign_in(served["email"], workspace)
    browser.present(By.ID, "start-run")
    assert driver.find_element(By.ID, "engine-static").is_selected()
    assert "examples/ops-agent" in driver.find_element(By.ID, "source").text
    browser.shot("40-workspace-start-run")
    _phone_shot(browser, "41-workspace-phone")

    driver.find_element(By.XPATH, "//button[normalize-space()='Start the run']").click()
    WebDriverWait(driver, 30).until(lambda d: "/dashboard/runs/run_" in d.current_url)
    run_url = driver.current_url
    browser.present(By.TAG_NAME, "h1")
    assert "executionMode ui, started from the dashboard" in driver.page_source
    browser.shot("42-run-page")

    # The page reloads itself every 2 s while the run is queued or running; wait, bounded, for the link.
    def evaluation_link(d: Any) -> Any:
        links = d.find_elements(By.PARTIAL_LINK_TEXT, "Read the evaluation")
        return links[0] if links else False

    WebDriverWait(driver, RUN_SECONDS, poll_frequency=0.5).until(evaluation_link)
    assert driver.current_url == run_url
    assert "COMPLETED" in driver.find_element(By.TAG_NAME, "h1").text
    assert not driver.find_elements(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]')
    assert browser.severe_console_errors() == []
    browser.shot("43-run-completed")
    _phone_shot(browser, "44-run-completed-phone")

    evaluation_link(driver).click()
    browser.present(By.ID, "verdict")
    assert driver.find_element(By.ID, "verdict").text == "BLOCK"
    assert "ops_agent/tools.py:37" in driver.page_source
    new_evaluation = driver.current_url.rsplit("/", 1)[1]
    browser.shot("45-new-evaluation")

    # Back to the workspace: two evaluations now; the form compares the newest with the one before.
    driver.find_element(By.LINK_TEXT, "System workspace").click()
    browser.present(By.ID, "head")
    driver.find_element(By.XPATH, "//button[normalize-space()='Compare']").click()
    WebDriverWait(driver, 30).until(lambda d: "/compare?" in d.current_url)
    assert f"head={new_evaluation}" in driver.current_url
    assert f"base={served['evaluation'].rsplit('/', 1)[1]}" in driver.current_url
    heading = driver.find_element(By.ID, "unchanged").text
    found = re.fullmatch(r"Unchanged reasons \((\d+)\)", heading)
    assert found is not None and int(found.group(1)) > 0, heading
    # The same example scanned twice: nothing new, nothing fixed, no tool or action added or removed.
    assert driver.find_element(By.ID, "new").text == "New reasons (0)"
    assert driver.find_element(By.ID, "fixed").text == "Fixed reasons (0)"
    assert "No tool was added." in driver.page_source and "No action was removed." in driver.page_source
    browser.shot("46-compare")
    _phone_shot(browser, "47-compare-phone")
