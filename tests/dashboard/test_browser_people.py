"""A real browser (Debian's Chromium through its chromedriver, driven by Selenium) against ``assay serve``:
the owner creates an API key and sees it once, revokes it (the API refuses it from then on), issues an
invitation link, and the invited person opens it in a fresh browser, sets a password and lands signed in.
Screenshots at laptop and phone widths go to $ASSAY_SCREENSHOT_DIR when set (``make browser-test``)."""

from __future__ import annotations

import httpx
import pytest
from browser_world import NEEDS_BROWSER, Browser

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]

NEW_PASSWORD = "the invited person's passphrase"


def _fits_a_phone(browser: Browser) -> None:
    wide = browser.driver.execute_script(
        "const w = window.innerWidth; return [w, document.documentElement.scrollWidth, "
        "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 60))]"
    )
    assert wide[1] <= wide[0] + 1, wide


def test_owner_creates_and_revokes_a_key_and_invites_someone_who_signs_in(
    served: dict[str, str], browser: Browser
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    base = served["base"]
    driver = browser.driver
    keys_path = f"/dashboard/organizations/{served['organization']}/keys"
    people_path = f"/dashboard/organizations/{served['organization']}/people"

    browser.sign_in(served["owner_email"], keys_path)
    assert driver.current_url == base + keys_path
    browser.present(By.XPATH, "//h1[starts-with(., 'API keys of')]")
    browser.shot("30-keys")

    driver.find_element(By.XPATH, "//input[@name='purpose'][@value='assurance-agent']").click()
    Select(driver.find_element(By.ID, "expiry")).select_by_value("30d")
    driver.find_element(By.XPATH, "//button[.='Create key']").click()
    secret = browser.present(By.ID, "api-key").get_attribute("value")
    assert secret.startswith("svc_live_")
    assert browser.severe_console_errors() == []
    browser.shot("31-key-created")
    auth = {"Authorization": f"Bearer {secret}"}
    assert httpx.get(f"{base}/api/v1/systems", headers=auth, timeout=30).status_code == 200

    # Opened again, the page lists the key by its first characters only.
    driver.get(base + keys_path)
    browser.present(By.XPATH, "//h1[starts-with(., 'API keys of')]")
    assert secret not in driver.page_source and secret[:13] in driver.page_source
    rows = driver.find_elements(By.XPATH, "//tr[.//a[.='Revoke…']]")
    key_row = next(r for r in rows if secret[:13] in r.text)
    key_id = key_row.get_attribute("id").removeprefix("key-")
    driver.set_window_size(390, 844)
    _fits_a_phone(browser)
    browser.shot("32-keys-phone")
    driver.set_window_size(1280, 900)

    key_row.find_element(By.LINK_TEXT, "Revoke…").click()
    browser.present(By.XPATH, "//button[.='Revoke this key']")
    browser.shot("33-key-revoke-confirm")
    driver.find_element(By.XPATH, "//button[.='Revoke this key']").click()
    notice = browser.present(By.CSS_SELECTOR, "p.notice")
    assert f"{key_id} is revoked" in notice.text
    assert "revoked" in driver.find_element(By.ID, f"key-{key_id}").text
    browser.shot("34-key-revoked")
    assert httpx.get(f"{base}/api/v1/systems", headers=auth, timeout=30).status_code == 401

    driver.get(base + people_path)
    browser.present(By.XPATH, "//h1[starts-with(., 'People of')]")
    assert served["email"] in driver.page_source and served["owner_email"] in driver.page_source
    browser.shot("35-people")
    driver.find_element(By.ID, "invite-email").send_keys("nia@acme.example")
    Select(driver.find_element(By.ID, "invite-role")).select_by_value("viewer")
    driver.find_element(By.XPATH, "//button[.='Create invitation link']").click()
    link = browser.present(By.ID, "invitation-link").get_attribute("value")
    assert link.startswith(base + "/dashboard/invitations/")
    browser.shot("36-invitation-issued")
    driver.set_window_size(390, 844)
    _fits_a_phone(browser)
    browser.shot("37-invitation-issued-phone")

    # The invited person: a browser of their own, no cookies.
    invited = Browser(base, browser.shots)
    try:
        invited.driver.get(link)
        invited.present(By.ID, "password").send_keys(NEW_PASSWORD, Keys.TAB)
        invited.driver.switch_to.active_element.send_keys(NEW_PASSWORD)
        invited.shot("38-join")
        invited.driver.set_window_size(390, 844)
        _fits_a_phone(invited)
        invited.shot("39-join-phone")
        invited.driver.find_element(By.ID, "password_again").send_keys(Keys.ENTER)
        invited.wait.until(lambda d: d.current_url == base + "/dashboard")
        header = invited.present(By.CSS_SELECTOR, "header.top .who")
        assert "nia@acme.example" in header.text
        assert "Acme" in invited.driver.page_source and "(viewer)" in invited.driver.page_source
        invited.driver.set_window_size(1280, 900)
        invited.shot("40-joined-home")
        # The link worked once.
        invited.driver.get(link)
        invited.present(By.XPATH, "//h1[.='Invitation not valid']")
        invited.shot("41-invitation-used")
    finally:
        invited.driver.quit()
