"""A package a rule names only for its token fetches is still a service's client for its other awaited calls
(issue 20, TypeScript round): ``googleapis`` is named by the credential rule for
``google.auth.GoogleAuth.getAccessToken``, which says nothing of ``calendar.events.insert`` or
``gmail.users.messages.list``: those requests leave the process (network.egress by the general client rule),
as they would for a package no rule names. A package a rule models for its effects keeps its other calls
as plumbing; the OAuth client's construction and ``setCredentials`` are no request."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

CALENDAR = """
import { tool } from "@openai/agents";
import { z } from "zod";
import { google } from "googleapis";

export const scheduleEvent = tool({
  name: "schedule_event",
  description: "Create an event",
  parameters: z.object({ title: z.string() }),
  async execute({ title }) {
    const auth = new google.auth.OAuth2(process.env.GOOGLE_CLIENT_ID, process.env.GOOGLE_CLIENT_SECRET);
    auth.setCredentials({ refresh_token: process.env.GOOGLE_REFRESH_TOKEN });
    const calendar = google.calendar({ version: "v3", auth });
    const res = await calendar.events.insert({ calendarId: "primary", requestBody: { summary: title } });
    return res.data.htmlLink;
  },
});
"""


def test_an_awaited_call_of_a_package_named_only_for_its_tokens_leaves_the_process(tmp_path: Path) -> None:
    reached = actions_reached(scan_files(tmp_path, {"cal.ts": CALENDAR}), "schedule_event")
    assert ("network.egress", "cal.ts", 14) in reached
    assert {line for c, _, line in reached if c == "network.egress"} == {14}
