"""The poisoning, shadowing, exfiltration and annotation rules of the probe pack, applied to a catalogue.

Pure and deterministic. Text rules read every string a model is shown: the server's instructions, and per
entity its description and title, the descriptions and titles anywhere in its schemas, and its
arguments' descriptions. Annotation rules hold a tool's hints against each other and against the static
reach of the tool of the same name (when the run also analysed the system's source).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from assay.backend.runtime.catalogue import Catalogue, Entity
from assay.backend.runtime.pack import ProbePack, TextRule

EXCERPT = 60
# Action classes that contradict each hint (docs/action-taxonomy.md).
WRITES = frozenset(
    {"file.write", "file.delete", "db.write", "sql.exec", "shell.exec", "code.exec", "payment", "message.send",
     "cloud.change", "privilege.change"}
)  # fmt: skip
DESTRUCTIVE = frozenset({"file.delete", "shell.exec", "code.exec", "payment", "cloud.change", "privilege.change"})
OPEN_WORLD = frozenset({"network.egress", "message.send", "payment", "cloud.change"})


def _walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("description", "title") and isinstance(item, str):
                yield f"{path}.{key}", item
            elif isinstance(item, dict | list):
                yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def texts(item: Entity) -> Iterator[tuple[str, str]]:
    """``(field, text)`` of every string of ``item`` a model reads."""
    for key in ("description", "title"):
        if isinstance(item.data.get(key), str):
            yield key, item.data[key]
    for key in ("inputSchema", "outputSchema", "arguments", "annotations"):
        if key in item.data:
            yield from _walk(item.data[key], key)


def _excerpt(text: str, start: int, end: int) -> str:
    """The match with some context, invisible characters written as escapes so a reader sees them."""
    piece = text[max(0, start - EXCERPT // 2) : min(len(text), end + EXCERPT // 2)][: EXCERPT * 2]
    # Line breaks and tabs read as spaces; every other invisible or non-ASCII symbol is shown escaped.
    piece = " ".join(piece.replace("\t", " ").split("\n"))
    return "".join(c if (c.isprintable() and c.isascii()) or c.isalnum() else f"\\u{ord(c):04x}" for c in piece)


def _hit(rule: TextRule, item: Entity | None, field: str, text: str, start: int, end: int) -> dict[str, Any]:
    return {
        "ruleId": rule.id,
        "kind": item.kind if item is not None else "server",
        "name": item.name if item is not None else "instructions",
        "field": field,
        "excerpt": _excerpt(text, start, end),
    }


def _parameter(field: str) -> bool:
    return field.startswith("inputSchema.properties.") or field.startswith("arguments[")


def text_findings(catalogue: Catalogue, pack: ProbePack) -> list[dict[str, Any]]:
    """Every poisoning, shadowing and exfiltration hit, one per (rule, entity, field)."""
    hits: list[dict[str, Any]] = []
    tool_names = {t.name for t in catalogue.tools()}
    sources: list[tuple[Entity | None, str, str]] = []
    if isinstance(catalogue.server.get("instructions"), str):
        sources.append((None, "instructions", catalogue.server["instructions"]))
    for entity in catalogue.entities:
        sources.extend((entity, field, text) for field, text in texts(entity))
    for item, field, text in sources:
        for rule in pack.poisoning:
            match = rule.pattern.search(text)
            if match:
                hits.append(_hit(rule, item, field, text, match.start(), match.end()))
        if item is not None and item.kind == "tool":
            for match in pack.shadowing.pattern.finditer(text):
                named = match.group("named") or match.group("other") or ""
                if named and named != item.name and (named in tool_names or any(c in named for c in "_.")):
                    hits.append({**_hit(pack.shadowing, item, field, text, match.start(), match.end()), "names": named})
                    break
        if item is not None and _parameter(field):
            match = pack.exfiltration.pattern.search(text)
            if match:
                hits.append(_hit(pack.exfiltration, item, field, text, match.start(), match.end()))
    return hits


def result_findings(catalogue: Catalogue, pack: ProbePack) -> list[dict[str, Any]]:
    """Instructions aimed at the model in the text the active suite's tool calls returned: the pack's
    ``resultRules`` applied to each call's text, one hit per (rule, tool) (each tool is called twice)."""
    rules = [r for r in (*pack.poisoning, pack.shadowing) if r.id in pack.result_rules]
    tool_names = {t.name for t in catalogue.tools()}
    hits: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for index, call in enumerate(catalogue.calls):
        text, name = str(call.get("text") or ""), str(call["name"])
        for rule in rules:
            if (rule.id, name) in seen:
                continue
            for match in rule.pattern.finditer(text):
                if rule is pack.shadowing:
                    named = match.group("named") or match.group("other") or ""
                    if not named or named == name or not (named in tool_names or any(c in named for c in "_.")):
                        continue
                seen.add((rule.id, name))
                hits.append(
                    {
                        "ruleId": rule.id,
                        "kind": "tool",
                        "name": name,
                        "field": f"result[{index}]",
                        "excerpt": _excerpt(text, match.start(), match.end()),
                    }
                )
                break
    return hits


def annotation_findings(catalogue: Catalogue, reach: Mapping[str, set[str]] | None) -> list[dict[str, Any]]:
    """Contradicted tool annotations. ``reach``: per tool name the action classes its code reaches (None
    when the run analysed no source)."""
    found: list[dict[str, Any]] = []
    for tool in catalogue.tools():
        hints = tool.data.get("annotations") or {}
        if not isinstance(hints, dict):
            continue
        read_only, destructive, open_world = (
            hints.get(k) for k in ("readOnlyHint", "destructiveHint", "openWorldHint")
        )
        if read_only is True and destructive is True:
            found.append({"ruleId": "RT-ANNOT-001", "name": tool.name, "classes": []})
        classes = (reach or {}).get(tool.name)
        if not classes:
            continue
        checks = (
            ("RT-ANNOT-002", read_only is True, WRITES),
            ("RT-ANNOT-003", destructive is False, DESTRUCTIVE),
            ("RT-ANNOT-004", open_world is False, OPEN_WORLD),
        )
        for rule_id, claimed, contradicting in checks:
            if claimed and classes & contradicting:
                found.append({"ruleId": rule_id, "name": tool.name, "classes": sorted(classes & contradicting)})
    return found
