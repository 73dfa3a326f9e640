"""A password held in the environment under the short suffix ``_PASS`` (``SMTP_PASS``, ``DB_PASS``) is a
credential in Python as in JS/TS (issue 20): a tool reading one reads a credential. A name only holding the
letters (``PASSAGE_LIMIT``, ``BYPASS_CACHE``) is not one."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

MAIL = """
import os
import smtplib
from agents import function_tool


@function_tool
def send_email(to: str, body: str) -> str:
    limit = os.getenv("PASSAGE_LIMIT")
    bypass = os.environ.get("BYPASS_CACHE")
    with smtplib.SMTP_SSL("smtp.example.com") as server:
        server.login(os.environ["SMTP_USER"], os.getenv("SMTP_PASS"))
        server.sendmail("bot@example.com", to, f"{body} {limit} {bypass}")
    return "sent"
"""


def test_an_environment_name_ending_in_pass_is_a_credential(tmp_path: Path) -> None:
    reached = actions_reached(scan_files(tmp_path, {"mail.py": MAIL}), "send_email")
    assert ("credential.read", "mail.py", 12) in reached
    assert not {line for c, _, line in reached if c == "credential.read"} - {12}
