"""A real browser (Debian's Chromium through its chromedriver, driven by Selenium) against ``assay serve``:
sign in, open a finished run's evaluation page and the pages it links to, sign out. Screenshots of every
page (laptop and phone widths) go to $ASSAY_SCREENSHOT_DIR when set (``make browser-test``). The world and
the browser are in browser_world.py."""

from __future__ import annotations

import pytest
from browser_world import NEEDS_BROWSER, PASSWORD, Browser

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]


def test_sign_in_read_the_evaluation_and_its_pages_then_sign_out(served: dict[str, str], browser: Browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions

    base = served["base"]
    wait = browser.wait
    shot = browser.shot
    driver = browser.driver

    # A link of the run, opened without a session: the sign-in page, coming back afterwards.
    driver.get(base + served["evaluation"])
    wait.until(expected_conditions.presence_of_element_located((By.ID, "email")))
    assert "/dashboard/login" in driver.current_url
    shot("01-sign-in")
    # Keyboard only: type, Tab to the password, Enter to submit.
    driver.find_element(By.ID, "email").send_keys(served["email"], Keys.TAB)
    driver.switch_to.active_element.send_keys(PASSWORD, Keys.ENTER)
    wait.until(expected_conditions.presence_of_element_located((By.ID, "verdict")))
    assert driver.current_url == base + served["evaluation"]
    assert driver.find_element(By.ID, "verdict").text == "BLOCK"
    assert "BLOCK-001" in driver.page_source and "ops_agent/tools.py:37" in driver.page_source
    # No console errors: the Content-Security-Policy refused nothing the page needs.
    assert browser.severe_console_errors() == []
    shot("02-evaluation")
    driver.set_window_size(390, 844)
    wide = driver.execute_script(
        "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
    )
    assert wide[1] <= wide[0] + 1, wide
    shot("03-evaluation-phone")
    driver.set_window_size(1280, 900)

    for link_text, name in (
        ("Assurance", "04-assurance"),
        ("Reports", "05-reports"),
        ("Decision receipt", "06-receipt"),
        ("System workspace", "07-workspace"),
    ):
        driver.find_element(By.LINK_TEXT, link_text).click()
        wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1")))
        assert "Something went wrong" not in driver.page_source
        shot(name)
    driver.get(base + served["evaluation"])
    driver.find_element(By.LINK_TEXT, "Master Report").click()
    wait.until(expected_conditions.url_contains("/master-report/document"))
    assert "Disposition: BLOCK" in driver.page_source
    refused = [e for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
    assert refused == []  # the report's own stylesheet is allowed by its hash
    shot("08-master-report")

    driver.get(base + "/dashboard")
    shot("09-home")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait.until(expected_conditions.url_contains("/dashboard/login"))
    driver.get(base + served["evaluation"])
    assert "/dashboard/login" in driver.current_url
