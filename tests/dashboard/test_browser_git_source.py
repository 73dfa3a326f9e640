"""A real browser connects a git repository: the owner types its URL, branch and a deploy credential (a
password field) on the sources page; a wrong credential is refused on verification with a clear message that
never shows it; the right one verifies (the service fetches the repository from a real git server:
tests/sources/git_server.py). Screenshots ``30-*`` at a laptop's and a phone's width."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_world import EXAMPLE, NEEDS_BROWSER, Browser

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sources"))

from git_server import TOKEN, USER, GitServer, publish, serve_git

pytestmark = [pytest.mark.slow, NEEDS_BROWSER]


@pytest.fixture
def git_server(tmp_path: Path) -> Iterator[GitServer]:
    with serve_git(tmp_path / "git-server") as server:
        yield server


@pytest.fixture
def served_env(git_server: GitServer) -> dict[str, str]:
    return {"ASSAY_GIT_CA_FILE": str(git_server.ca_file), "ASSAY_GIT_TIMEOUT_SECONDS": "60"}


def _connect(browser: Browser, url: str, branch: str, credential: str) -> None:
    from selenium.webdriver.common.by import By

    driver = browser.driver
    driver.find_element(By.ID, "git-url").send_keys(url)
    if branch:
        driver.find_element(By.ID, "git-branch").send_keys(branch)
    driver.find_element(By.ID, "git-credential").send_keys(credential)
    driver.find_element(By.XPATH, "//button[normalize-space()='Connect git repository']").click()


def test_an_owner_connects_a_git_repository_and_verifies_it(
    served: dict[str, str], browser: Browser, git_server: GitServer, tmp_path: Path
) -> None:
    import shutil

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions

    work = tmp_path / "ops-agent"
    shutil.copytree(EXAMPLE, work)
    sha = publish(git_server, "ops-agent", work)
    url = git_server.url("ops-agent")
    driver, wait = browser.driver, browser.wait
    browser.sign_in(served["owner_email"], f"/dashboard/systems/{served['system']}/sources")
    browser.present(By.ID, "git-url")
    assert driver.find_element(By.ID, "git-credential").get_attribute("type") == "password"
    browser.shot("60-sources-git-form")

    _connect(browser, url, "main", "deploy:a-wrong-token")
    wait.until(expected_conditions.presence_of_element_located((By.XPATH, "//button[normalize-space()='Verify']")))
    assert "credential: HTTPS token (sealed)" in driver.page_source and "a-wrong-token" not in driver.page_source
    driver.find_element(By.XPATH, "//button[normalize-space()='Verify']").click()
    error = browser.present(By.ID, "form-error")
    assert "refused the credential" in error.text and "a-wrong-token" not in driver.page_source
    browser.shot("61-git-source-refused")
    # The refusal is a 400 page, which the browser logs as a failed load; nothing else is logged.
    assert all("status of 400" in e["message"] for e in browser.severe_console_errors())

    _connect(browser, url, "", f"{USER}:{TOKEN}")
    wait.until(lambda d: len(d.find_elements(By.XPATH, "//button[normalize-space()='Verify']")) == 2)
    driver.find_elements(By.XPATH, "//button[normalize-space()='Verify']")[-1].click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".badge.VERIFIED")) == 2)
    assert f"fetched at {sha[:12]}" in driver.find_element(By.TAG_NAME, "main").text
    assert TOKEN not in driver.page_source and browser.severe_console_errors() == []
    browser.shot("62-git-source-verified")
    driver.set_window_size(390, 844)
    width = driver.execute_script("return [window.innerWidth, document.documentElement.scrollWidth]")
    assert width[1] <= width[0] + 1, width
    browser.shot("63-git-sources-phone")
