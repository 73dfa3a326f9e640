"""A password held in the environment under the short suffix ``_PASS`` (``SMTP_PASS``, ``EMAIL_PASS``,
``GMAIL_APP_PASS``, ``DB_PASS``: the names nodemailer and database guides use) is a credential as ``*PASSWORD*``
is (issue 20, TypeScript round): a tool that reads one reads a credential. A name that only holds the letters
(``PASSAGE_LIMIT``, ``BYPASS_CACHE``) is not one."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

MAIL = """
import { tool } from "@openai/agents";
import { z } from "zod";
import nodemailer from "nodemailer";

export const sendEmail = tool({
  name: "send_email",
  description: "Send an email",
  parameters: z.object({ to: z.string(), body: z.string() }),
  async execute({ to, body }) {
    const limit = process.env.PASSAGE_LIMIT;
    const bypass = process.env.BYPASS_CACHE;
    const transporter = nodemailer.createTransport({
      service: "gmail",
      auth: { user: process.env.EMAIL_USER, pass: process.env.EMAIL_PASS },
    });
    await transporter.sendMail({ to, text: body + limit + bypass });
    return "sent";
  },
});
"""


def test_an_environment_name_ending_in_pass_is_a_credential(tmp_path: Path) -> None:
    reached = actions_reached(scan_files(tmp_path, {"mail.ts": MAIL}), "send_email")
    assert ("credential.read", "mail.ts", 15) in reached
    assert ("message.send", "mail.ts", 17) in reached
    assert not {line for c, _, line in reached if c == "credential.read"} - {15}
