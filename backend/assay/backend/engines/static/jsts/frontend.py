"""The JavaScript / TypeScript front-end's entry point: one file's source -> ``FileFacts``, parsed with tree-sitter.

The same facts as the Python analyzer, from the maintained tree-sitter grammars (never regexes over
text, never executed): names resolved through ``import``/``require`` and simple variable types
(``const client = new OpenAI()``, ``client: OpenAI``, ``this.client = new OpenAI()``), rules matched on
those names, gates with structured dominance over statements, and taint from model outputs and tool
handler parameters. The pieces live beside it in ``jsts/``: ``syntax`` (grammars, node helpers), ``names`` (modules
and imports), ``rules`` (the pack's JavaScript rules, memoised), ``scope`` (per-function state), ``base``
(name resolution), ``gates`` (conditions and dominance), ``sites`` (models, actions, frontier),
``tools`` (tool frameworks) and ``analyzer`` (the walk over statements and expressions).

Names: library calls are ``<package>.<member...>`` (``child_process.exec``; ``openai.chat.completions.create``
for a default-imported client, ``openai.OpenAI.chat.completions.create`` for a named import); functions
in the tree are ``<module>#<name>`` (``src/tools/shell#runCommand``, ``src/agent#Agent.step``, an inline
tool handler ``src/agent#tool:searchDocs``, a default export ``src/x#default``), where ``<module>`` is
the path without extension and without a trailing ``/index``.

Syntax errors: tree-sitter recovers, so a file with errors still yields facts from the parts that
parsed, plus one ``parse_error`` frontier item naming the first error's line. ``parseError`` is set
(and the file counts as not parsed) only when more than half of the file's non-blank bytes sit inside
ERROR nodes: then what little parsed is not a fair picture of the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import FileFacts, FrontierSite
from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
from assay.backend.engines.static.jsts.name_lookups import name_lookups
from assay.backend.engines.static.jsts.names import canonical_module, collect_imports
from assay.backend.engines.static.jsts.records import collect_records
from assay.backend.engines.static.jsts.rules import compile_rules
from assay.backend.engines.static.jsts.syntax import (
    Code,
    JsLanguage,
    blank,
    error_bytes,
    field_ids,
    first_error,
    generic_tag_arguments,
    kind_names,
    parser,
)
from assay.backend.engines.static.jsts.workspace import Workspace
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.scans.bundle import Location

__all__ = ["JsLanguage", "analyze_javascript", "module_path", "prepare_javascript"]


def module_path(path: str) -> str:
    """The module name of a file: ``src/tools/shell.ts`` -> ``src/tools/shell``, ``src/lib/index.ts`` -> ``src/lib``."""
    return canonical_module(path)


def prepare_javascript(languages: Iterable[JsLanguage], rules: RulePack) -> None:
    """Build the grammars and parsers of ``languages`` and compile the rule pack's JavaScript rules now,
    as the first file of each language analysed would."""
    compile_rules(rules)
    for language in languages:
        parser(language)
        field_ids(language)
        kind_names(language)


# Minified or generated code: a file this large whose lines are this long on average is not written by
# a person (a bundle, a .min.js); a person's longest lines are a few hundred characters.
_MINIFIED_MIN_BYTES = 32 * 1024
_MINIFIED_AVG_LINE = 1000


def _minified(source: bytes, lines: int) -> str | None:
    """Why a file is skipped as minified or generated code, or None."""
    if len(source) < _MINIFIED_MIN_BYTES:
        return None
    average = len(source) // max(lines, 1)
    if average >= _MINIFIED_AVG_LINE:
        return f"minified or generated code ({len(source)} bytes in {lines} lines, {average} characters a line)"
    return None


def analyze_javascript(
    path: str, source: bytes, digest: str, language: JsLanguage, rules: RulePack, workspace: Workspace | None = None
) -> FileFacts:
    """Analyse one JS/TS file (``path`` is POSIX, relative to the tree root), with the tree's own packages
    (``workspace``). Deterministic: the same bytes, path, rules and workspace always give the same facts."""
    lines = source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    minified = _minified(source, lines)
    if minified is not None:
        # A bundle or minified build: what it holds is someone else's code, written for machines; its
        # walk would cost more than the rest of the tree. Skipped, and said so (never a silent pass).
        return FileFacts(
            path=path,
            language=language,
            digest=digest,
            lines=lines,
            module=canonical_module(path),
            parseError=minified,
            frontier=[
                FrontierSite(
                    id=short_id("fr", "skipped_file", path),
                    kind="skipped_file",
                    detail=f"{minified}; not analysed, what it calls and does is not visible",
                    location=Location(path=path, line=1, column=1),
                )
            ],
        )
    root = parser(language).parse(source).root_node
    if language != "javascript":
        generic = generic_tag_arguments(root, source)
        if generic:  # ``prisma.$queryRaw<Row[]>`SELECT ...```: read again as the call it is
            source = blank(source, generic)
            root = parser(language).parse(source).root_node
    module = canonical_module(path)
    code = Code(source, field_ids(language), kind_names(language))
    analyzer = FileAnalyzer(
        path, code, root, compile_rules(rules), collect_imports(root, path, module, code, workspace)
    )
    parse_error: str | None = None
    error = first_error(root) if root.has_error else None
    if error is not None:
        line = error.start_point[0] + 1
        if error_bytes(root) * 2 > max(len(source.strip()), 1):
            parse_error = f"syntax error at line {line}; most of the file could not be parsed"
        analyzer.frontier.append(
            FrontierSite(
                id=short_id("fr", "parse_error", path),
                kind="parse_error",
                detail=parse_error or f"syntax error at line {line}; the rest of the file was analysed",
                location=Location(path=path, line=line, column=1),
            )
        )
    analyzer.run()
    analyzer.tool_recognizer.resolve_literal_tools()
    analyzer.tool_recognizer.hooked_tools()
    _json_tool_imports(analyzer)

    def key(item: Any) -> tuple[int, int, str]:
        return (item.location.line, item.location.column, item.id)

    return FileFacts(
        path=path,
        language=language,
        digest=digest,
        lines=lines,
        module=module,
        parseError=parse_error,
        functions=sorted(analyzer.functions, key=lambda f: (f.location.line, f.location.column, f.qualname)),
        models=sorted({m.id: m for m in analyzer.models}.values(), key=key),
        tools=sorted({t.id: t for t in (*analyzer.tools, *analyzer.tool_recognizer.made)}.values(), key=key),
        frontier=sorted(
            {f.id: f for f in analyzer.frontier}.values(),
            key=lambda f: (f.location.line if f.location else 0, f.location.column if f.location else 0, f.id),
        ),
        imports=sorted({name for name in analyzer.imports.aliases.values() if "#" in name}),
        reexports={k: sorted(v) for k, v in sorted(analyzer.imports.reexports.items())},
        constants=_constants(analyzer),
        bindings={**_bindings(analyzer, module), **_member_types(analyzer), **_field_types(analyzer)},
        classBases={cls: [base] for cls, base in sorted(analyzer.class_bases.items())},
        boundClasses={t: sorted(c) for t, c in sorted(analyzer.bound_classes.items())},
        caseRefs=dict(sorted(analyzer.case_refs.items())),
        records=collect_records(code, root, module),
        tables=_tables(analyzer),
        nameLookups=name_lookups(code, root),
        toolClassUses=analyzer.tool_recognizer.class_uses(),
    )


def _tables(analyzer: FileAnalyzer) -> dict[str, str]:
    """What each name a dispatch maps to runs: ``case "create_invoice": return createInvoice(...)`` on any
    string, ``{ get_weather: getWeather }``; read for tools built from records (``link/sources.py``)."""
    return {label: target for label, target in sorted(analyzer.named_impls.items()) if "#" in target}


def _bindings(analyzer: FileAnalyzer, module: str) -> dict[str, str]:
    """What each top-level name holds when analysis knows its type (``export const pg = postgres(url)``:
    ``<module>#pg`` -> ``postgres``; ``new Redis(url)`` -> ``ioredis.Redis``), for the calls other files
    make on it once they import it (``link/returned.py``)."""
    return {f"{module}#{name}": typed for name, typed in sorted(analyzer.module_types.items())}


def _constants(analyzer: FileAnalyzer) -> dict[str, str]:
    """The strings the top level names, for other files' dispatch labels (short ones: names, not prompts)."""
    found = {**analyzer.module_consts, **analyzer.imports.consts}
    return {name: text for name, text in sorted(found.items()) if len(text) <= _CONSTANT_CHARS}


_CONSTANT_CHARS = 200


def _member_types(analyzer: FileAnalyzer) -> dict[str, str]:
    """The typed members of the file's interfaces and object types (``interface ToolContext { docker: Docker }``
    -> ``src/types#ToolContext.docker``: ``dockerode``), for a value another file types by one of them; a member
    holding a collection of a type of the tree also by its elements (``ToolGroup.tools[]`` -> ``Tool``)."""
    out: dict[str, str] = {}
    fields = analyzer.fields
    for name, shape in analyzer.imports.shapes.items():
        for member in shape.named_children:
            if member.type != "property_signature":
                continue
            annotation = member.child_by_field_id(fields.type)
            key = f"{analyzer.module}#{name}.{analyzer.code.text(member.child_by_field_id(fields.name))}"
            found = analyzer.type_name(annotation)
            if found:
                out[key] = found
            elements = analyzer.element_type(annotation)
            if elements:  # ``tools: Tool[]``: ``ToolGroup.tools[]`` -> ``Tool``, what a loop over it holds
                out[f"{key}[]"] = elements
    return dict(sorted(out.items()))


def _field_types(analyzer: FileAnalyzer) -> dict[str, str]:
    """The typed fields of the file's classes (``protected _apiClient: ZodiosInstance<T>``, ``this.db = new
    Pool()``, ``constructor(private api: Api)``), for the calls a subclass in another file makes on them."""
    own = f"{analyzer.module}#"
    return {name: typed for name, typed in sorted(analyzer.field_types.items()) if name.startswith(own)}


def _json_tool_imports(analyzer: FileAnalyzer) -> None:
    """``import tools from "./tools.json"``: tool definitions that live in configuration."""
    rule = analyzer.rules.config_rule
    if rule is None or not rule.match.get("json_tool_imports"):
        return
    for name, line in sorted(analyzer.imports.json_imports.items()):
        if "tool" not in name.lower() or line < 1:
            continue
        analyzer.frontier.append(
            FrontierSite(
                id=short_id("fr", "config_registered_tools", analyzer.path, line, name),
                kind="config_registered_tools",
                detail=f"{name} is loaded from a JSON file; tools defined there are chosen at run time",
                location=Location(path=analyzer.path, line=line, column=1),
                ruleId=rule.id,
            )
        )
