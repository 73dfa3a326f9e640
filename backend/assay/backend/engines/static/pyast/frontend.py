"""The Python front-end's entry point: one file's source -> ``FileFacts``, with the standard library's ``ast`` only.

The code is parsed, never imported or executed. One walk per function body resolves call names
through imports and simple variable types (``client = OpenAI()`` makes ``client.chat.completions.create``
the OpenAI API), matches them against the rule pack, tracks which gates dominate each point
(structured dominance over statements: straight-line order, ``if``/``else``, early ``return``/``raise``,
loops and ``try``), and which values carry model-chosen data (model outputs and parameters).

The pieces live beside it in ``pyast/``: ``literals`` (what syntax spells out), ``syntax`` (fast traversal), ``names`` (modules, builtins),
``rules`` (the pack's Python rules, memoised), ``scope`` (per-function state), ``base`` (name
resolution), ``gates`` (conditions and dominance), ``sites`` (models, actions, frontier), ``tools``
(tool frameworks and dispatch), ``taint`` (expressions and the taint they carry), ``statements``
(the walk over blocks) and ``analyzer`` (the file, its classes and functions).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import FileFacts, FrontierSite
from assay.backend.engines.static.pyast.analyzer import FileAnalyzer
from assay.backend.engines.static.pyast.literals import mend_surrogates
from assay.backend.engines.static.pyast.names import module_name
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.scans.bundle import Location

__all__ = ["analyze_python", "module_name"]


def analyze_python(path: str, source: bytes, digest: str, rules: RulePack) -> FileFacts:
    """Analyse one Python file. Never raises for bad code: a parse failure is recorded in the facts."""
    text = source.decode("utf-8", errors="replace")
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    module = module_name(path)
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None) or 1
        message = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}"
        return FileFacts(
            path=path,
            language="python",
            digest=digest,
            lines=lines,
            module=module,
            parseError=message,
            frontier=[
                FrontierSite(
                    id=short_id("fr", "parse_error", path),
                    kind="parse_error",
                    detail=f"not parsed ({message}); nothing in this file was analysed",
                    location=Location(path=path, line=max(int(line), 1), column=1),
                )
            ],
        )
    mend_surrogates(tree, source)
    analyzer = FileAnalyzer(path, tree, rules)
    try:
        analyzer.run()
    except RecursionError:
        return FileFacts(
            path=path,
            language="python",
            digest=digest,
            lines=lines,
            module=module,
            parseError="RecursionError: nesting too deep to analyse",
            frontier=[
                FrontierSite(
                    id=short_id("fr", "parse_error", path),
                    kind="parse_error",
                    detail="nesting too deep to analyse; nothing in this file was analysed",
                    location=Location(path=path, line=1, column=1),
                )
            ],
        )

    def loc_key(item: Any) -> tuple[int, int, str]:
        return (item.location.line, item.location.column, item.id)

    return FileFacts(
        path=path,
        language="python",
        digest=digest,
        lines=lines,
        module=module,
        functions=sorted(analyzer.functions, key=lambda f: (f.location.line, f.location.column, f.qualname)),
        models=sorted(_unique(analyzer.models), key=loc_key),
        tools=sorted(_unique(analyzer.tools), key=loc_key),
        frontier=sorted(_unique(analyzer.frontier), key=lambda f: (f.location.line if f.location else 0, f.id)),
        bindings={f"{module}.{name}": kind for name, kind in sorted(analyzer.module_types.items())},
        lists=analyzer.lists,
        partialLists=sorted(key for key in analyzer.unnamed_returns if key in analyzer.lists),
        records=analyzer.records,
        tables=analyzer.tables,
    )


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())
