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
from assay.backend.engines.static.pyast.newer_syntax import MAX_REPAIRS, blank_fstring
from assay.backend.engines.static.pyast.role_rules import compile_roles
from assay.backend.engines.static.pyast.rules import compile_rules
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.scans.bundle import Location

__all__ = ["analyze_python", "module_name", "prepare_python"]


def prepare_python(rules: RulePack) -> None:
    """Compile the rule pack's Python rules now, as the first file analysed would."""
    compile_rules(rules)
    compile_roles(rules)


def analyze_python(path: str, source: bytes, digest: str, rules: RulePack) -> FileFacts:
    """Analyse one Python file. Never raises for bad code: a parse failure is recorded in the facts."""
    # A byte-order mark opening the file is no character of the program (Python's own reader drops it; ``ast.parse``
    # of the text would refuse it as "invalid non-printable character U+FEFF" and leave the file unread).
    text = source.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    module = module_name(path)
    unread = _not_for_analysis(text, lines)
    if unread is not None:
        return _unanalysed(
            path,
            digest,
            lines,
            module,
            unread,
            "skipped_file",
            f"not analysed ({unread}); what this file does is not visible",
        )
    blanked: list[int] = []  # lines whose f-string of Python 3.12 syntax was read as an empty string
    while True:
        try:
            tree = ast.parse(text, filename=path)
            break
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None) or 1
            repaired = blank_fstring(text, int(line)) if isinstance(exc, SyntaxError) else None
            if repaired is not None and len(blanked) < MAX_REPAIRS:
                text, at = repaired
                blanked.append(at)
                continue
            message = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}"
            detail = f"not parsed ({message}); nothing in this file was analysed"
            return _unanalysed(path, digest, lines, module, message, "parse_error", detail, max(int(line), 1))
    mend_surrogates(tree, source)
    analyzer = FileAnalyzer(path, tree, rules, text)
    for at in blanked:
        analyzer.frontier.append(
            FrontierSite(
                id=short_id("fr", "parse_error", path, at),
                kind="parse_error",
                detail=(
                    f"line {at} holds an f-string of Python 3.12 syntax the engine's parser does not read; it was "
                    "read as an empty string (what it carries is not seen), the rest of the file was analysed"
                ),
                location=Location(path=path, line=at, column=1),
            )
        )
    try:
        analyzer.run()
    except RecursionError:
        return _unanalysed(
            path,
            digest,
            lines,
            module,
            "RecursionError: nesting too deep to analyse",
            "parse_error",
            "nesting too deep to analyse; nothing in this file was analysed",
        )

    def loc_key(item: Any) -> tuple[int, int, str]:
        return (item.location.line, item.location.column, item.id)

    results = analyzer.function_results()
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
        bindings={
            **{f"{module}.{name}": kind for name, kind in sorted(analyzer.module_types.items())},
            **dict(sorted(analyzer.class_fields()[1].items())),
            **dict(sorted(analyzer.param_bindings.items())),
            **dict(sorted(analyzer.held_generics.items())),
            **dict(sorted(results[1].items())),
        },
        serverGates=dict(sorted(analyzer.server_gates.items())),
        constants={**dict(sorted(analyzer.class_fields()[0].items())), **dict(sorted(results[0].items()))},
        lists=analyzer.lists,
        alternatives=dict(sorted(analyzer.alternatives.items())),
        partialLists=sorted(key for key in analyzer.unnamed_returns if key in analyzer.lists),
        records=analyzer.records,
        tables=analyzer.tables,
        reexports=dict(sorted(analyzer.reexports.items())),
        classBases=analyzer.tree_bases(),
        describers=sorted(analyzer.describers),
        schemaMembers=sorted(analyzer.schema_members),
        routeServings=analyzer.route_servings,
    )


def _unanalysed(
    path: str, digest: str, lines: int, module: str, error: str, kind: str, detail: str, line: int = 1
) -> FileFacts:
    """The facts of a file left unanalysed: its error and one frontier item saying so, so it never passes."""
    return FileFacts(
        path=path,
        language="python",
        digest=digest,
        lines=lines,
        module=module,
        parseError=error,
        frontier=[
            FrontierSite(
                id=short_id("fr", kind, path),
                kind=kind,
                detail=detail,
                location=Location(path=path, line=line, column=1),
            )
        ],
    )


# Minified code: a line this long is not written by a person, and parsing it costs more than it shows.
MAX_LINE_CHARS = 20_000
# Generated code (a "DO NOT EDIT" header) this large is a data or stub module, not the system's logic.
MAX_GENERATED_CHARS = 256 * 1024
_GENERATED_MARKERS = ("do not edit", "@generated", "generated by", "auto-generated", "autogenerated")
# A large file that is almost all one literal (a data table): parsing it costs seconds and hundreds of MB
# and shows nothing a tool could do. Fewer statements than one per this many lines marks it.
MAX_LITERAL_CHARS = 512 * 1024
LINES_PER_STATEMENT = 1000
_STATEMENT_STARTS = (
    "def ",
    "async ",
    "class ",
    "import ",
    "from ",
    "@",
    "if ",
    "for ",
    "while ",
    "with ",
    "try:",
    "return",
)


def _not_for_analysis(text: str, lines: int) -> str | None:
    """Why a file is left out of the analysis (minified, or large generated code), or None."""
    # A text no longer than the limit has no line longer than it (most files): not split to find out.
    longest = max((len(line) for line in text.splitlines()), default=0) if len(text) > MAX_LINE_CHARS else 0
    if longest > MAX_LINE_CHARS:
        return f"minified or machine-written: a line of {longest} characters"
    if len(text) > MAX_GENERATED_CHARS:
        head = "\n".join(text.splitlines()[:5]).lower()
        if any(marker in head for marker in _GENERATED_MARKERS):
            return f"generated code of {len(text)} characters ({lines} lines)"
    if len(text) > MAX_LITERAL_CHARS:
        statements = sum(1 for line in text.splitlines() if line.lstrip().startswith(_STATEMENT_STARTS))
        if statements * LINES_PER_STATEMENT < lines:
            return f"an enormous literal: {lines} lines, {statements} of them statements"
    return None


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())
