"""The ``log`` adapter: raw log lines. Grammar: the body is UTF-8 text; each line ends with LF (a CR
before it is dropped); blank lines are skipped. Each line becomes ``{"kind": "logLine", "lineNumber",
"line", "fields"}``. A binder may carry a line regex (``--line-regex``, Python ``re`` syntax with named
groups): ``fields`` then holds the named groups of a line that matches it in full, and null for a line
that does not; a group named ``eventId`` identifies the line. Without a regex ``fields`` is null."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any

from assay.backend.intake.adapters.spec import AdapterSpec
from assay.backend.intake.adapters.structured import lines

Normalized = tuple[str | None, dict[str, Any]]

SPEC = AdapterSpec(
    id="log",
    version="1.0.0",
    producer_id="structured-ingress",
    routes={"log": "log"},
    evidence_classes=("runtime.log",),
    can_establish=("OBSERVED",),
    cannot_establish=("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "ABSENCE"),
    coverage_semantics={
        "unit": "one log line",
        "observes": "what the line says, read through the binder's line regex when it has one",
        "absence": "not evidence: log levels, rotation and sampling drop lines",
        "ordering": "line order in the batch; timestamps in the text are kept but never ordered on",
    },
    limitations=(
        {"code": "unstructured", "detail": "Lines are free text; only a binder's line regex gives them fields."},
    ),
)

MAX_PATTERN = 2000


def compile_line_regex(pattern: str) -> re.Pattern[str]:
    """The binder's line regex, checked: valid, bounded, with at least one named group."""
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"the line regex is longer than {MAX_PATTERN} characters")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"the line regex is not valid: {exc}") from exc
    if not compiled.groupindex:
        raise ValueError("the line regex needs named groups, such as (?P<level>\\w+)")
    return compiled


def log_records(file: IO[bytes], max_line_bytes: int, pattern: str | None) -> Iterator[Normalized]:
    """The normalized records of a raw log body."""
    regex = compile_line_regex(pattern) if pattern is not None else None
    for number, text in lines(file, max_line_bytes):
        fields: dict[str, str | None] | None = None
        if regex is not None:
            match = regex.fullmatch(text)
            fields = match.groupdict() if match is not None else None
        event_id = fields.get("eventId") if fields else None
        yield event_id or None, {"kind": "logLine", "lineNumber": number, "line": text, "fields": fields}
