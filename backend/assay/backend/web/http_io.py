"""Reading request bodies safely and writing pydantic models as JSON responses.

Bodies are read with a hard cap while streaming (Content-Length is checked first but never trusted
alone), decoded as strict UTF-8 JSON without NaN/Infinity or duplicate member names, then validated
against a pydantic model. Every failure is an :class:`ApiError` with code INVALID_REQUEST.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from assay.backend.errors import ApiError

ModelT = TypeVar("ModelT", bound=BaseModel)

JSON_MEDIA_TYPE = "application/json"
_MAX_REPORTED_ERRORS = 5
MIB = 1024 * 1024


def json_response(model: BaseModel, status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response of ``model`` (pydantic serialises straight to bytes)."""
    return Response(model.model_dump_json(), status_code=status_code, media_type=JSON_MEDIA_TYPE, headers=headers)


def invalid(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


def check_json_content_type(request: Request) -> None:
    """400 INVALID_REQUEST unless the body is declared as UTF-8 JSON."""
    content_type = request.headers.get("content-type", "")
    media_type, _, params = content_type.partition(";")
    if media_type.strip().lower() != JSON_MEDIA_TYPE:
        raise invalid("The body must be JSON, sent with 'Content-Type: application/json'.")
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise invalid("JSON bodies must be UTF-8.")


def _size(limit: int) -> str:
    return f"{limit} bytes ({limit / MIB:.0f} MiB)" if limit >= MIB else f"{limit} bytes"


def too_large_error(limit: int, status: int, setting: str | None = None, decompressed: bool = False) -> ApiError:
    """The refusal of a body over ``limit``: it names the limit, and the setting that changes it."""
    what = "The body, decompressed," if decompressed else "The body"
    message = f"{what} is larger than the limit of {_size(limit)}."
    if setting is not None:
        message = f"{message[:-1]}; the service's operator can raise it with {setting}."
    return ApiError("INVALID_REQUEST", message, status=status)


def content_encoding(request: Request, accepted: tuple[str, ...] = ("identity",)) -> str:
    """The body's ``Content-Encoding`` (lowercase; ``identity`` when absent); 400 unless in ``accepted``."""
    value = request.headers.get("content-encoding", "identity").strip().lower() or "identity"
    if value not in accepted:
        raise invalid(f"Content-Encoding must be one of: {', '.join(accepted)}.")
    return value


def gunzip_bounded(data: bytes, limit: int, status: int, setting: str | None = None) -> bytes:
    """``data`` (one or more gzip members) decompressed, refusing more than ``limit`` bytes of output as
    it goes: a small body that inflates without bound (a "zip bomb") costs at most ``limit`` bytes."""
    parts: list[bytes] = []
    total = 0
    remaining = data
    while remaining:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        pending = remaining
        try:
            while pending and not inflater.eof:
                out = inflater.decompress(pending, limit - total + 1)
                total += len(out)
                if total > limit:
                    raise too_large_error(limit, status, setting, decompressed=True)
                parts.append(out)
                pending = inflater.unconsumed_tail
            if not inflater.eof:
                raise invalid("The gzip body is truncated.")
        except zlib.error as exc:
            raise invalid("The body is not valid gzip.") from exc
        remaining = inflater.unused_data
    return b"".join(parts)


async def read_body(request: Request, limit: int, too_large_status: int = 400, setting: str | None = None) -> bytes:
    """The raw body, at most ``limit`` bytes; larger bodies get INVALID_REQUEST with ``too_large_status``."""

    def too_large() -> NoReturn:
        raise too_large_error(limit, too_large_status, setting)

    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                too_large()
        except ValueError as exc:
            raise invalid("The Content-Length header is not a number.") from exc
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            too_large()
        chunks.append(chunk)
    return b"".join(chunks)


# Nesting beyond this many levels of arrays and objects is refused (docs/api.md): no body the service
# takes comes near it, and deeper values would exhaust the recursion of the code that reads them.
MAX_JSON_DEPTH = 64
# The interoperable integer range of RFC 7493 (I-JSON) and RFC 8785: digests are computed over values
# in it, and beyond it a number means different things to different parsers.
MAX_SAFE_INTEGER = 2**53 - 1
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _safe_int(digits: str) -> int:
    # Checked on the text first: converting thousands of digits is itself costly (and limited by Python).
    if len(digits.lstrip("-")) > 16 or abs(value := int(digits)) > MAX_SAFE_INTEGER:
        raise _OutOfRangeError
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _OutOfRangeError
    return value


class _OutOfRangeError(ValueError):
    """A number outside the interoperable range."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError("a member name is repeated in one object")
        result[key] = value
    return result


def bad_string(text: str, *, nul: bool) -> str | None:
    """Why ``text`` cannot be kept (a lone surrogate; with ``nul``, a U+0000), else None."""
    if nul and "\x00" in text:
        return "a string holds U+0000, which no value the service stores may contain"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a string holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape)"
    return None


def too_deep(limit: int = MAX_JSON_DEPTH) -> ApiError:
    return invalid(f"The JSON body is nested deeper than {limit} levels of arrays and objects.")


def _check_tree(value: Any, max_depth: int, strings: bool, nul: bool) -> None:
    """Depth of ``value`` within ``max_depth``; with ``strings``, every string and member name kept."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        kind = type(node)
        if kind is dict:
            if depth > max_depth:
                raise too_deep(max_depth)
            if strings:
                for key in node:
                    _check_string(key, nul)
            children = node.values()
        elif kind is list:
            if depth > max_depth:
                raise too_deep(max_depth)
            children = node
        else:
            if strings and kind is str:
                _check_string(node, nul)
            continue
        for child in children:
            if strings or type(child) in (dict, list):
                stack.append((child, depth + 1))


def _check_string(text: str, nul: bool) -> None:
    reason = bad_string(text, nul=nul)
    if reason is not None:
        raise invalid(f"The body is not accepted: {reason}.")


def parse_json(body: bytes, *, max_depth: int = MAX_JSON_DEPTH, allow_nul: bool = True) -> Any:
    """Strict JSON: UTF-8, no NaN or Infinity, no duplicate member names, integers within +-(2^53 - 1),
    at most ``max_depth`` levels of nesting, no lone surrogate escapes (and no U+0000 unless
    ``allow_nul``); anything else is 400 INVALID_REQUEST."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise invalid("The body is not valid UTF-8.") from exc
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=_safe_int,
            parse_float=_finite_float,
            object_pairs_hook=_no_duplicates,
        )
    except RecursionError as exc:
        raise too_deep(max_depth) from exc
    except _OutOfRangeError as exc:
        raise invalid(
            f"The body holds a number outside the interoperable JSON range (integers within +-{MAX_SAFE_INTEGER})."
        ) from exc
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise invalid(f"The body is not valid JSON: {exc}.") from exc
    # The string checks walk every value, so they run only when an escape that needs them is present
    # (raw UTF-8 cannot hold a surrogate, and strict decoding refused any).
    nul = not allow_nul and "\\u0000" in text
    _check_tree(value, max_depth, strings=nul or _SURROGATE_ESCAPE.search(text) is not None, nul=nul)
    return value


async def read_json_object(request: Request, limit: int, too_large_status: int = 400) -> dict[str, Any]:
    """The body as a JSON object, after the content-type, size and syntax checks (no string may hold
    U+0000: these bodies carry ids and names the database stores as text)."""
    check_json_content_type(request)
    value = parse_json(await read_body(request, limit, too_large_status), allow_nul=False)
    if not isinstance(value, dict):
        raise invalid("The JSON body must be an object.")
    return value


_WHOLE_NUMBER = re.compile(r"[0-9]{1,12}")


def int_query(request: Request, name: str, default: int, low: int, high: int) -> int:
    """The query parameter ``name`` as an integer from ``low`` to ``high`` (``default`` when absent); 400
    INVALID_REQUEST for anything else, whatever its length or digits (never a 500)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    # Longer than 12 digits is out of range whatever it says; int() of thousands of digits is refused.
    if _WHOLE_NUMBER.fullmatch(raw) is None:
        if raw.isascii() and raw.isdigit():
            raise invalid(f"{name} must be between {low} and {high}.")
        raise invalid(f"{name} must be a whole number written in ASCII digits.")
    value = int(raw)
    if value < low or value > high:
        raise invalid(f"{name} must be between {low} and {high}.")
    return value


def describe_validation_error(exc: ValidationError) -> str:
    """A short, stable description of what is wrong, naming fields but never echoing input values."""
    parts = []
    for error in exc.errors(include_input=False, include_url=False)[:_MAX_REPORTED_ERRORS]:
        where = ".".join(str(p) for p in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    more = len(exc.errors()) - _MAX_REPORTED_ERRORS
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def validate_model(model: type[ModelT], value: dict[str, Any]) -> ModelT:
    """``value`` as ``model``; 400 INVALID_REQUEST naming the offending fields otherwise."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise invalid(f"The request is not valid: {describe_validation_error(exc)}.") from exc
