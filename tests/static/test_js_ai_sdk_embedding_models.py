"""AI SDK embedding models are model uses (issue 20 providers; rule pack 1.139.0): ``embed({ model:
openai.embedding("text-embedding-3-small"), value })`` names the OpenAI model it embeds with, as ``openai("gpt-4o")``
names a chat model; ``textEmbeddingModel`` and ``embeddingModel`` are the same."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

EMBED = """
import { openai } from "@ai-sdk/openai";
import { google } from "@ai-sdk/google";
import { embed, embedMany } from "ai";
export async function vector(text: string) {
  const { embedding } = await embed({ model: openai.embedding("text-embedding-3-small"), value: text });
  return embedding;
}
export async function vectors(texts: string[]) {
  return embedMany({ model: google.textEmbeddingModel("text-embedding-004"), values: texts });
}
"""


def test_embedding_models_of_the_ai_sdk_are_model_uses(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"embed.ts": EMBED})
    models = sorted((m["location"]["line"], m["provider"], m["model"]) for m in bundle["models"])
    assert models == [(6, "openai", "text-embedding-3-small"), (10, "google", "text-embedding-004")]
