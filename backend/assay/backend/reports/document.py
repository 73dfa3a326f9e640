"""A small document model that both renderers (HTML and PDF) draw from, so the two never drift.

Omitted counts are first-class: a table or list cut for presentation carries ``omitted`` and both
renderers announce it on the page, naming what was left out and where the rest is.

Table columns have a kind that says how a renderer draws their cells: ``text`` wraps at spaces,
``badge`` is an enum value drawn as a coloured badge that never wraps, ``path`` breaks only after "/",
``mono`` is an identifier. Text may hold Markdown code spans (`like this`): renderers draw them as code,
never with the backticks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from assay.backend.snippets import LINE_BREAKS, SNIPPET_CHARS, snippet

CalloutKind = Literal["ALLOW", "REVIEW", "BLOCK", "info", "warning"]
ColumnKind = Literal["text", "badge", "path", "mono"]

# Badge colours by enum value (text on a tinted background, so the value reads without the colour too).
BADGE_COLOURS = {
    "BLOCK": "#c53030",
    "REVIEW": "#b7791f",
    "ALLOW": "#1f8a4c",
    "critical": "#9b1c1c",
    "high": "#c53030",
    "medium": "#b7791f",
    "low": "#4a5a75",
    "ESTABLISHED": "#1f8a4c",
    "PARTIAL": "#b7791f",
    "MISSING": "#c53030",
    "EVIDENCE_NEEDED": "#6b4fa0",
    "NOT_ASSESSED": "#5b6578",
    "UNKNOWN": "#5b6578",
    "UNGATED": "#c53030",
    "GATED": "#1f8a4c",
    "NO ACTION": "#5b6578",
    "DIRTY": "#c53030",
    "CLEAN": "#1f8a4c",
}
DEFAULT_BADGE = "#4a5a75"


def badge_colour(value: str) -> str:
    return BADGE_COLOURS.get(value, DEFAULT_BADGE)


@dataclass(frozen=True, slots=True)
class Heading:
    text: str
    level: int = 1


@dataclass(frozen=True, slots=True)
class Paragraph:
    text: str
    style: Literal["body", "muted", "mono"] = "body"


@dataclass(frozen=True, slots=True)
class KeyValues:
    rows: list[tuple[str, str]]
    mono: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    omitted: int = 0
    widths: list[float] | None = None  # fractions of the text width
    kinds: list[ColumnKind] | None = None  # per column; text when None
    noun: str = "rows"  # what a row is, for the omitted note ("actions", "reasons")
    rest: str = ""  # where the omitted rows are ("Every one is in Appendix A.")


@dataclass(frozen=True, slots=True)
class Bullets:
    items: list[str]
    omitted: int = 0
    noun: str = "entries"
    rest: str = ""


@dataclass(frozen=True, slots=True)
class Callout:
    kind: CalloutKind
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class PageBreak:
    pass


Block = Heading | Paragraph | KeyValues | Table | Bullets | Callout | PageBreak


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    subtitle: str
    footer: str
    blocks: list[Block] = field(default_factory=list)
    # The Evaluation's time (RFC 3339 UTC), the PDF's creation date; None keeps reportlab's fixed date.
    created: str | None = None
    # Links to the same Evaluation's other artifacts: (label, href), drawn at the top.
    links: list[tuple[str, str]] = field(default_factory=list)


def omitted_note(count: int, noun: str = "rows", rest: str = "") -> str:
    note = f"… and {count} more {noun} not shown (omitted: {count})."
    return f"{note} {rest}" if rest else note


def cut(rows: list[list[str]], limit: int) -> tuple[list[list[str]], int]:
    """At most ``limit`` rows, and how many were left out."""
    return rows[:limit], max(0, len(rows) - limit)


def code_spans(text: str) -> list[tuple[bool, str]]:
    """``text`` split into (is_code, part) at Markdown backticks; an unpaired backtick stays literal."""
    parts = text.split("`")
    if len(parts) < 3:
        return [(False, text)]
    if len(parts) % 2 == 0:  # odd number of backticks: the last one is literal
        parts = [*parts[:-2], parts[-2] + "`" + parts[-1]]
    return [(n % 2 == 1, part) for n, part in enumerate(parts) if part]


def plain(text: str) -> str:
    """``text`` as a reader sees it: code spans without their backticks."""
    return "".join(part for _, part in code_spans(text))


def one_line(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` as one line: line breaks become spaces, and each code span is a :func:`snippet` (one line, cut at
    a token boundary). For messages that quote code in tables and in the text and Markdown views."""
    spans = code_spans(text)
    if not LINE_BREAKS.search(text) and all(len(part) <= limit for code, part in spans if code):
        return text
    parts = [f"`{snippet(part, limit)}`" if code else LINE_BREAKS.sub(" ", part) for code, part in spans]
    return "".join(parts).strip()
