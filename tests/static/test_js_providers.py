"""Providers and the model behind each call (issue 13): Vercel AI SDK provider functions where an agent
chooses its model (one model use per generation call, not two), AI Gateway model strings, OpenAI client
calls with a constant, Agents SDK agents (a named model or the SDK default), LangChain chat models and
``initChatModel("vendor:model")``."""

from __future__ import annotations

from jsfix import fixture


def test_every_model_use_names_its_provider_and_model() -> None:
    facts = fixture("model_ids.ts")
    assert [(m.location.line, m.provider, m.model) for m in facts.models] == [
        (12, "openai", "gpt-5-mini"),
        (13, "openai", "gpt-5.6"),
        (16, "anthropic", "claude-sonnet-4-5"),
        (17, "vercel-ai", "openai/gpt-5"),
        (18, "openai", "gpt-4o-mini"),
        (19, "openai", None),
        (20, "openai", "gpt-5.4"),
        (21, "openai", "gpt-4o"),
        (22, "anthropic", "claude-3-5-haiku-latest"),
    ]
