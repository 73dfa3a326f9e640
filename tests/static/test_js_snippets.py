"""Code the TypeScript front-end quotes in its messages is one line, cut at a token boundary (issue 21)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from assay.backend.engines.static.scan import scan_tree

AGENT = """import { generateText } from "ai";
import { openai } from "@ai-sdk/openai";
import { registry } from "./registry";

export async function answer(prompt: string) {
  return generateText({
    model: openai("gpt-4o"),
    prompt,
    tools: registry.toolsForTheAgentNamed("the-northwestern-european-islands-support-desk", {
      includeHidden: true,
    }),
  });
}
"""


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, str):
        yield value


def test_tools_that_cannot_be_enumerated_are_quoted_on_one_line_cut_at_a_token_boundary(tmp_path: Path) -> None:
    (tmp_path / "agent.ts").write_text(AGENT)
    bundle = scan_tree(tmp_path).model_dump(mode="json")
    (message, *_) = [t for t in _texts(bundle) if t.startswith("tools given to ai.generateText through ")]
    quoted = message.removeprefix("tools given to ai.generateText through ").split(" cannot be enumerated")[0]
    assert quoted == 'registry.toolsForTheAgentNamed("the-northwestern-european-…'
    assert "\n" not in message
