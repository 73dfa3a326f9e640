"""Providers and the model behind each call (issue 13): Vercel AI SDK provider functions where an agent
chooses its model (one model use per generation call, not two), AI Gateway model strings, OpenAI client
calls with a constant, Agents SDK agents (a named model or the SDK default), LangChain chat models and
``initChatModel("vendor:model")``."""

from __future__ import annotations

from jsfix import facts_of, fixture


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


def test_an_openai_embedding_is_a_model_call_also_on_a_client_a_helper_returns() -> None:
    """``embeddings.create`` on an OpenAI client is a call to the provider's model, as in Python; on a
    client a lazy getter returns (``getOpenAI(): OpenAI``) too. An object of the tree with the same method
    names calls no model."""
    code = b"""import OpenAI from "openai";
let openai: OpenAI | null = null;
function getOpenAI(): OpenAI {
  if (!openai) openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });
  return openai;
}
export async function embed(text: string) {
  return (await getOpenAI().embeddings.create({ model: "text-embedding-3-small", input: text })).data;
}
export async function direct(text: string) {
  const client = new OpenAI();
  return client.embeddings.create({ model: "text-embedding-3-large", input: text });
}
class Local { embeddings = { create: async (o: unknown) => o }; }
export async function local(text: string) {
  return new Local().embeddings.create({ model: "m", input: text });
}
"""
    facts = facts_of("embed.ts", code)
    assert [(m.location.line, m.provider, m.model) for m in facts.models] == [
        (8, "openai", "text-embedding-3-small"),
        (12, "openai", "text-embedding-3-large"),
    ]
