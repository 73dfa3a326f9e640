"""The HTML renderer on its own: one self-contained page, every text escaped, omissions announced."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from assay.backend.reports.document import (
    Block,
    Bullets,
    Callout,
    Document,
    Heading,
    KeyValues,
    PageBreak,
    Paragraph,
    Table,
)
from assay.backend.reports.html import render_html

HOSTILE = "</td></table><script>alert(1)</script><img src=x onerror=\"alert('x')\"><a href='//evil'>"


class _Tags(HTMLParser):
    """The tags and attributes a browser would see."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]


def _parsed(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    return parser


def _every_block(text: str) -> list[Block]:
    return [
        Heading(text, 1),
        Heading(text, 3),
        Paragraph(text),
        Paragraph(text, "mono"),
        KeyValues([(text, text)], mono=True),
        Table([text, text], [[text, text]], omitted=2),
        Bullets([text], omitted=5),
        Callout("BLOCK", text, text),
        PageBreak(),
    ]


def test_hostile_text_in_every_block_stays_text() -> None:
    page = render_html(Document(title=HOSTILE, subtitle=HOSTILE, footer=HOSTILE, blocks=_every_block(HOSTILE)))
    tags = _parsed(page)
    assert not {"script", "img", "a", "iframe"} & set(tags.tags)
    assert "onerror" not in tags.attributes and "href" not in tags.attributes
    assert (
        page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 17
    )  # <title> and <h1>, subtitle, footer, 13 texts in blocks


def test_the_page_is_self_contained() -> None:
    page = render_html(Document(title="T", subtitle="S", footer="F", blocks=_every_block("text")))
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    tags = set(_parsed(page).tags)
    assert not {"script", "link", "img", "iframe", "object"} & tags
    assert not re.search(r"https?://|url\(|@import", page)


def test_omitted_counts_are_announced() -> None:
    page = render_html(Document(title="T", subtitle="S", footer="F", blocks=_every_block("text")))
    assert '<p class="omitted">… and 2 more rows not shown (omitted: 2).</p>' in page
    assert '<p class="omitted">… and 5 more entries not shown (omitted: 5).</p>' in page
    quiet = render_html(Document(title="T", subtitle="S", footer="F", blocks=[Table(["a"], [["b"]]), Bullets(["c"])]))
    assert "omitted" not in quiet.split("</style>")[1]


@pytest.mark.parametrize(("kind", "colour"), [("ALLOW", "#1f8a4c"), ("REVIEW", "#b7791f"), ("BLOCK", "#c53030")])
def test_dispositions_have_their_badge_colour(kind: str, colour: str) -> None:
    callout = Callout(kind, f"Disposition: {kind}", "")  # type: ignore[arg-type]
    page = render_html(Document(title="T", subtitle="S", footer="F", blocks=[callout]))
    assert f'<div class="callout {kind}"><div class="t">Disposition: {kind}</div>' in page
    assert re.search(rf"\.{kind}\{{border-color:{colour}", page)


def test_the_page_prints() -> None:
    page = render_html(Document(title="T", subtitle="S", footer="F", blocks=[]))
    assert "@media print" in page and "thead{display:table-header-group}" in page
