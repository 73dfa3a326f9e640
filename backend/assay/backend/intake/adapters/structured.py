"""The ``structured`` adapter: events the system (or a gateway, an approval tool) records itself, sent as a
JSON array, JSON Lines or CSV with a header row. Each event becomes ``{"kind": "event", "eventId",
"fields"}`` (``fields``: the event object as sent); its ``eventId`` member, when present, identifies it
(docs/intake.md)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import IO, Any, Literal

import ijson

from assay.backend.errors import ApiError
from assay.backend.intake.adapters.json_stream import check_json_file
from assay.backend.intake.adapters.spec import AdapterSpec
from assay.backend.web.http_io import parse_json

Format = Literal["json", "jsonl", "csv"]
FORMATS: tuple[Format, ...] = ("json", "jsonl", "csv")
Normalized = tuple[str | None, dict[str, Any]]

SPEC = AdapterSpec(
    id="structured",
    version="1.0.0",
    producer_id="structured-ingress",
    routes={"structured": "structured"},
    evidence_classes=("runtime.event", "approval.record", "policy.decision"),
    can_establish=("OBSERVED",),
    cannot_establish=("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "ABSENCE"),
    coverage_semantics={
        "unit": "one event as recorded by the source system",
        "observes": "what the source system chose to record, with the fields it gave",
        "absence": "not evidence: an event missing from a batch may have happened unrecorded",
        "ordering": "the order of the events in the batch; timestamps are kept but never ordered on",
    },
    limitations=({"code": "self-reported", "detail": "Events are recorded by the source system itself."},),
)

EVENT_ID = "eventId"


def invalid(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


def event_record(event: Any, where: str) -> Normalized:
    """One event (a JSON object) as its normalized record, with its event id."""
    if not isinstance(event, dict):
        raise invalid(f"{where} must be a JSON object.")
    event_id = event.get(EVENT_ID)
    if event_id is not None and (isinstance(event_id, bool) or not isinstance(event_id, str | int) or event_id == ""):
        raise invalid(f"{where}: eventId must be a non-empty string or an integer.")
    identifier = None if event_id is None else str(event_id)
    if identifier is not None and "\x00" in identifier:
        raise invalid(f"{where}: eventId must not hold U+0000.")
    return identifier, {"kind": "event", "eventId": identifier, "fields": event}


def envelope_members(file: IO[bytes]) -> dict[str, Any]:
    """The top-level string members (``binderId``, ``format``) of a JSON object body; {} for an array.
    The body is first held to the rules of every JSON body (``json_stream.check_json_file``)."""
    members = check_json_file(file)
    return {name: members[name] for name in ("binderId", "format") if name in members}


def json_events(file: IO[bytes]) -> Iterator[Normalized]:
    """Events of a JSON body: an array of events, or an object whose ``events`` member is one."""
    file.seek(0)
    index = 0
    shape: str | None = None
    try:
        items = ijson.parse(file, use_float=True)
        for prefix, event, _ in items:
            if prefix == "" and shape is None:
                shape = event
                if event not in ("start_array", "start_map"):
                    raise invalid("A JSON body must be an array of events or an object with an 'events' array.")
                break
        file.seek(0)
        path = "item" if shape == "start_array" else "events.item"
        for value in ijson.items(file, path, use_float=True):
            yield event_record(value, f"events[{index}]")
            index += 1
    except ijson.JSONError as exc:
        raise invalid("The body is not valid JSON.") from exc


def lines(file: IO[bytes], max_line_bytes: int) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-empty line, each at most ``max_line_bytes``, strict UTF-8."""
    file.seek(0)
    number = 0
    while True:
        raw = file.readline(max_line_bytes + 1)
        if not raw:
            return
        number += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            raise ApiError(
                "INVALID_REQUEST",
                f"Line {number} is longer than the record limit of {max_line_bytes} bytes.",
                status=413,
            )
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as exc:
            raise invalid(f"Line {number} is not valid UTF-8.") from exc
        if text.strip():
            yield number, text


def jsonl_events(file: IO[bytes], max_line_bytes: int) -> Iterator[Normalized]:
    """Events of a JSON Lines body: one JSON object per line (blank lines skipped)."""
    for number, text in lines(file, max_line_bytes):
        try:
            value = parse_json(text.encode("utf-8"))
        except ApiError as exc:
            raise invalid(f"Line {number}: {exc.message}") from exc
        yield event_record(value, f"Line {number}")


def csv_events(file: IO[bytes]) -> Iterator[Normalized]:
    """Events of a CSV body: the first row names the columns; every value is a string."""
    file.seek(0)
    text = io.TextIOWrapper(file, encoding="utf-8", newline="")
    try:
        reader = csv.reader(text, strict=True)
        header = next(reader, None)
        if header is None or not any(header):
            raise invalid("A CSV body needs a header row naming its columns.")
        if len(set(header)) != len(header) or "" in header:
            raise invalid("The CSV header names must be unique and non-empty.")
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise invalid(f"CSV row {reader.line_num} has {len(row)} values for {len(header)} columns.")
            yield event_record(dict(zip(header, row, strict=True)), f"CSV row {reader.line_num}")
    except (csv.Error, UnicodeDecodeError) as exc:
        raise invalid("The body is not valid UTF-8 CSV.") from exc
    finally:
        text.detach()


# Media types of each format, for the Content-Type header.
MEDIA_TYPES: dict[str, Format] = {
    "application/json": "json",
    "application/x-ndjson": "jsonl",
    "application/jsonl": "jsonl",
    "application/x-jsonlines": "jsonl",
    "application/jsonlines": "jsonl",
    "text/csv": "csv",
}
