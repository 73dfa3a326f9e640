"""A real browser provisions an organization: the owner signs in, creates an AI System, connects a local
source (examples/ops-agent) and verifies it; a member then reads the same pages and finds no form.
Screenshots at a laptop's and a phone's width (``20-…`` to ``29-…``); at 390 px nothing spills sideways."""

from __future__ import annotations

from typing import Any

import pytest
from browser_world import EXAMPLE, NEEDS_BROWSER, Browser

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]


def _fits_a_phone(browser: Browser, name: str) -> None:
    """At 390 px the page scrolls only down, never sideways; screenshot it there."""
    driver = browser.driver
    driver.set_window_size(390, 844)
    wide: list[Any] = driver.execute_script(
        "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
    )
    assert wide[1] <= wide[0] + 1, wide
    browser.shot(name)
    driver.set_window_size(1280, 900)


def _main_forms(browser: Browser) -> int:
    from selenium.webdriver.common.by import By

    return len(browser.driver.find_elements(By.CSS_SELECTOR, "main form"))


def test_an_owner_creates_a_system_and_connects_a_verified_source_a_member_only_reads(
    served: dict[str, str], browser: Browser
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions

    driver = browser.driver
    wait = browser.wait
    browser.sign_in(served["owner_email"])
    driver.find_element(By.PARTIAL_LINK_TEXT, "Manage AI Systems").click()
    browser.present(By.ID, "name")
    assert "New AI System" in driver.page_source
    browser.shot("20-systems")

    # Keyboard only: type the name, Tab through the optional fields, Enter submits.
    driver.find_element(By.ID, "name").send_keys("Ops agent <b>two</b>", Keys.TAB)
    driver.switch_to.active_element.send_keys("agent", Keys.TAB)
    driver.switch_to.active_element.send_keys("high", Keys.ENTER)
    wait.until(expected_conditions.url_contains("/sources"))
    sources_url = driver.current_url
    assert driver.find_element(By.TAG_NAME, "h1").text == "Ops agent <b>two</b>"  # shown as text, escaped
    assert "No source connected yet." in driver.page_source
    browser.shot("21-sources-empty")

    driver.find_element(By.ID, "path").send_keys(str(EXAMPLE), Keys.ENTER)
    wait.until(expected_conditions.presence_of_element_located((By.XPATH, "//button[normalize-space()='Verify']")))
    assert str(EXAMPLE) in driver.page_source and "PENDING" in driver.page_source
    browser.shot("22-source-pending")
    driver.find_element(By.XPATH, "//button[normalize-space()='Verify']").click()
    wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".badge.VERIFIED")))
    assert driver.find_elements(By.XPATH, "//button[normalize-space()='Verify']") == []
    assert browser.severe_console_errors() == []
    browser.shot("23-source-verified")
    _fits_a_phone(browser, "23b-sources-phone")

    driver.find_element(By.LINK_TEXT, "Settings").click()
    browser.present(By.ID, "retire-system")
    assert "Retiring is final" in driver.page_source
    browser.shot("26a-settings")
    _fits_a_phone(browser, "26b-settings-phone")
    driver.find_element(By.LINK_TEXT, "Runtime targets").click()
    browser.present(By.ID, "url")
    assert "No runtime target yet." in driver.page_source
    # A global address literal: checked without DNS, never contacted (nothing probes it in this test).
    driver.find_element(By.ID, "url").send_keys("https://1.1.1.1/mcp", Keys.ENTER)
    verify = (By.XPATH, "//button[normalize-space()='Verify']")
    wait.until(expected_conditions.presence_of_element_located(verify)).click()
    wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".badge.VERIFIED")))
    driver.find_element(By.NAME, "suite_catalogue").click()
    driver.find_element(By.XPATH, "//button[normalize-space()='Save consent']").click()
    wait.until(expected_conditions.presence_of_element_located((By.XPATH, "//td[normalize-space()='catalogue']")))
    browser.shot("24a-targets")
    _fits_a_phone(browser, "24b-targets-phone")
    driver.find_element(By.LINK_TEXT, "Evidence binders").click()
    driver.find_element(By.ID, "source_system").send_keys("ops-agent-prod", Keys.ENTER)
    wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".badge.active")))
    browser.shot("25a-binders")
    _fits_a_phone(browser, "25b-binders-phone")
    driver.find_element(By.LINK_TEXT, "Evaluations").click()
    browser.present(By.TAG_NAME, "h1")
    assert "No evaluation yet" in driver.page_source
    driver.get(served["base"] + "/dashboard")
    _fits_a_phone(browser, "27-home-phone")

    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait.until(expected_conditions.url_contains("/dashboard/login"))

    # The member reads the same pages: status and path, and no form to change them.
    path = sources_url.removeprefix(served["base"])
    browser.sign_in(served["email"], path)
    browser.present(By.CSS_SELECTOR, ".badge.VERIFIED")
    assert str(EXAMPLE) in driver.page_source
    assert _main_forms(browser) == 0
    assert "your role (member) reads them" in driver.page_source
    browser.shot("28-sources-member")
    driver.find_element(By.LINK_TEXT, "Settings").click()
    browser.present(By.TAG_NAME, "h1")
    assert _main_forms(browser) == 0
    driver.find_element(By.PARTIAL_LINK_TEXT, "Acme").click()
    browser.present(By.TAG_NAME, "h1")
    assert _main_forms(browser) == 0 and "Ops agent &lt;b&gt;two&lt;/b&gt;" in driver.page_source
    browser.shot("29a-systems-member")
    _fits_a_phone(browser, "29b-systems-member-phone")
