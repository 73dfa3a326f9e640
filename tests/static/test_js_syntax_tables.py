"""The JS/TS front-end's syntax helpers read nodes the fast way and answer exactly as the plain way
would (issue 20 speed): the look for a generic tagged template (``prisma.$queryRaw<Row[]>`...```), which
skips an arrow's ``=>`` before a template."""

from __future__ import annotations

from assay.backend.engines.static.jsts.syntax import JsLanguage, generic_tag_arguments, parser


def _spans(src: bytes, language: JsLanguage = "typescript") -> list[tuple[int, int]]:
    return generic_tag_arguments(parser(language).parse(src).root_node, src)


def test_a_generic_tag_after_an_arrow_template_is_found() -> None:
    src = b"const f = (x: string) => `a ${x}`;\nconst rows = await db.$queryRaw<Row[]>`SELECT 1`;\n"
    spans = _spans(src)
    assert [src[start:end] for start, end in spans] == [b"<Row[]>"]


def test_an_arrow_returning_a_template_is_no_generic_tag() -> None:
    src = b"const f = (x: string) =>   `SELECT ${x}`;\nconst g = () =>\n  `b`;\n"
    assert _spans(src) == []
