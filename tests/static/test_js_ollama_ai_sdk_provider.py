"""Issue 20, the AI SDK's community Ollama provider (``ollama-ai-provider``, ``ollama-ai-provider-v2``) is a model
provider as the official ``@ai-sdk/*`` ones are: ``ollama("llama3.1")`` chooses an Ollama model, ``createOllama({
baseURL })`` builds the provider a later call chooses from."""

from __future__ import annotations

from pyfix import analyse

CODE = """import { generateText } from 'ai';
import { createOllama, ollama } from 'ollama-ai-provider-v2';
import { ollama as legacy } from 'ollama-ai-provider';

export async function ask(prompt: string, name: string) {
  const provider = process.env.OLLAMA_BASE_URL ? createOllama({ baseURL: process.env.OLLAMA_BASE_URL }) : ollama;
  await generateText({ model: ollama('qwen3:8b'), prompt });
  await generateText({ model: legacy('llama3.1'), prompt });
  return provider(name);
}
"""


def test_the_community_ollama_provider_is_a_model_provider() -> None:
    linked = analyse({"ask.ts": CODE})
    ollama = sorted((m.location.line, m.model) for m in linked.models if m.provider == "ollama")
    assert ollama == [(6, None), (7, "qwen3:8b"), (8, "llama3.1")]
