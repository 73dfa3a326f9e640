"""A small document model that both renderers (HTML and PDF) draw from, so the two never drift.

Omitted counts are first-class: a table or list cut for presentation carries ``omitted`` and both
renderers announce it on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

CalloutKind = Literal["ALLOW", "REVIEW", "BLOCK", "info", "warning"]


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


@dataclass(frozen=True, slots=True)
class Bullets:
    items: list[str]
    omitted: int = 0


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


def omitted_note(count: int) -> str:
    return f"… and {count} more not shown (omitted: {count})"


def cut(rows: list[list[str]], limit: int) -> tuple[list[list[str]], int]:
    """At most ``limit`` rows, and how many were left out."""
    return rows[:limit], max(0, len(rows) - limit)
