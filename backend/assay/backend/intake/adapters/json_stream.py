"""The rules of every JSON body (``assay.backend.web.http_io.parse_json``, docs/api.md) held on a JSON body
in a file, streamed, before the intake adapters build anything from it.

The check reads ijson's basic events, which carry no path: its path-carrying events (``ijson.parse``,
``ijson.items``) build each event's dotted path, and for a body nested thousands deep those paths alone
take hundreds of megabytes. The adapters' parsers run only after the body passed, when no path is longer
than ``MAX_JSON_DEPTH`` steps.
"""

from __future__ import annotations

import math
import re
from typing import IO, Any

import ijson

from assay.backend.errors import ApiError
from assay.backend.web.http_io import MAX_JSON_DEPTH, MAX_SAFE_INTEGER, invalid, too_deep

# A \uD800-\uDFFF escape (after an even run of backslashes), with the low-surrogate escape that may follow.
_SURROGATE_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u([dD][89a-fA-F][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?")
_BLOCK = 1024 * 1024
_CARRY = 64
LONE_SURROGATE = "a string holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape)"


def _has_lone_surrogate(file: IO[bytes]) -> bool:
    """Whether the JSON text in ``file`` escapes a lone surrogate. ijson's parser replaces one with "?"
    without a word, which would store a value other than the one sent; so it is found on the raw bytes,
    a block at a time."""
    file.seek(0)
    tail = b""
    while True:
        block = file.read(_BLOCK)
        data = tail + block
        # A match ending near the block's end may lack its pair's second half: seen again with the next.
        end = len(data) if not block else max(0, len(data) - _CARRY // 2)
        for match in _SURROGATE_ESCAPE.finditer(data):
            if match.end() > end:
                break
            if int(match.group(1), 16) >= 0xDC00 or match.group(2) is None:
                return True
        if not block:
            return False
        tail = data[max(0, len(data) - _CARRY) :]


def check_json_file(file: IO[bytes]) -> dict[str, Any]:
    """Hold the JSON body in ``file`` to the rules of every JSON body: nesting within MAX_JSON_DEPTH,
    numbers within the interoperable range, no lone surrogate escape (400 INVALID_REQUEST otherwise).
    Returns the top-level members whose values are strings, when the body is an object."""
    if _has_lone_surrogate(file):
        raise invalid(f"The body is not accepted: {LONE_SURROGATE}.")
    members: dict[str, Any] = {}
    depth = 0
    key: str | None = None
    file.seek(0)
    try:
        for event, value in ijson.basic_parse(file, use_float=True):
            if event in ("start_map", "start_array"):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise too_deep()
            elif event in ("end_map", "end_array"):
                depth -= 1
            elif event == "map_key":
                key = value if depth == 1 else None
                continue
            elif event == "string" and depth == 1 and key is not None:
                members[key] = value
            elif event == "number" and (
                abs(value) > MAX_SAFE_INTEGER if isinstance(value, int) else not math.isfinite(value)
            ):
                raise invalid(
                    f"The body holds a number outside the interoperable JSON range (integers within +-{MAX_SAFE_INTEGER})."
                )
            key = None
    except ijson.JSONError as exc:
        raise ApiError("INVALID_REQUEST", "The body is not valid JSON.") from exc
    return members
