"""Tools of the research assistant: read-only search and note keeping."""

from pathlib import Path

import httpx
from langchain_core.tools import tool

ARXIV_API = "https://export.arxiv.org/api/query"
NOTES_DIR = Path(__file__).resolve().parent.parent / "notes"


@tool
def search_papers(query: str, max_results: int = 5) -> str:
    """Search arXiv for papers matching the query and return titles and abstracts."""
    response = httpx.get(ARXIV_API, params={"search_query": query, "max_results": max_results}, timeout=20)
    response.raise_for_status()
    return response.text


@tool
def save_summary(slug: str, summary: str) -> str:
    """Save a markdown summary of a paper to the notes folder."""
    safe = "".join(ch for ch in slug if ch.isalnum() or ch in "-_")[:80] or "note"
    target = NOTES_DIR / f"{safe}.md"
    target.write_text(summary, encoding="utf-8")
    return f"saved {target.name}"
