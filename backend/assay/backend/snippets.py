"""Code quoted in a message: one line, cut at a token boundary.

Reports quote code in tables and text, and the static engine quotes it in its frontier and reason
messages; both show a snippet the same way, so a reader never sees a token cut mid-word.
"""

from __future__ import annotations

import re

# A code snippet quoted in a message (a `code span`) is shown on one line and at most this long.
SNIPPET_CHARS = 80
LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*|\t+")
# Spaces a line break left inside brackets: "f( a, b )" reads "f(a, b)".
_INNER_SPACE = re.compile(r"(?<=[(\[{]) | (?=[)\]}])")
# Where a snippet may be cut: after a space or a punctuation mark that ends a token.
_TOKEN_END = re.compile(r"[\s.,;:()\[\]{}=+*/|&<>!?-]")


def snippet(code: str, limit: int = SNIPPET_CHARS) -> str:
    """``code`` on one line, cut at the last token boundary within ``limit`` characters ("…" marks a cut)."""
    flat = _INNER_SPACE.sub("", LINE_BREAKS.sub(" ", code).strip())
    if len(flat) <= limit:
        return flat
    ends = [m.end() for m in _TOKEN_END.finditer(flat, 0, limit)]
    cut = ends[-1] if ends and ends[-1] > limit // 2 else limit
    return flat[:cut].rstrip() + "…"
