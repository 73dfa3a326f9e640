"""Canonical JSON (RFC 8785, JCS) and the SHA-256 digests every party can recompute.

All digests in Assay are written ``sha256:<64 lowercase hex>`` and computed over the JCS bytes of a
JSON value, so that key order, whitespace and number formatting never change a digest.

``rfc8785`` is the reference implementation. It is pure Python and costs about a microsecond per
value, which dominates digesting a large bundle or Evaluation, so values in the subset where orjson
(with sorted keys) already writes JCS bytes take that fast path (see ``fast_path_applies``); everything
else goes to ``rfc8785``. ``tests/static/test_canonical_fast_path.py`` holds the two byte for byte
equal on real bundles, on adversarial strings and on random values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import orjson
import rfc8785

DIGEST_PREFIX = "sha256:"

# JCS numbers are IEEE 754 doubles: integers outside this range are refused by rfc8785.
_SAFE_INT = 2**53 - 1

# With sorted keys orjson writes exactly the JCS form of strings, integers, true/false/null, arrays and
# objects whose keys are ASCII: no whitespace; ``"`` and ``\\`` escaped; \\b \\f \\n \\r \\t as short
# escapes and the other controls below U+0020 as ``\\u00xx`` in lowercase hex; everything else (DEL,
# non-ASCII, U+2028/U+2029, astral characters) written as itself in UTF-8. Keys sorted by code point
# equal the JCS order (UTF-16 code units) when every key is ASCII. It refuses lone surrogates and
# nesting deeper than 254 levels; those values go to the reference encoder.
_SORTED = orjson.OPT_SORT_KEYS
# The same with a two-space indent: for those values, ``json.dumps(indent=2, sort_keys=True,
# ensure_ascii=False)`` text (``readable_json``).
_READABLE = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2


def fast_path_applies(value: Any) -> bool:
    """True when ``value`` holds only exact ``str``, ``bool``, ``None``, safe ``int``, ``list``,
    ``tuple`` and ``dict`` with ASCII ``str`` keys: the values both encoders write identically.

    Floats (JCS has its own number format), subclasses (``str``/``int`` enums serialise differently),
    non-ASCII keys (the sort orders can differ) and anything else go to the reference encoder. A
    cyclic value ends in RecursionError here, as it does in the reference encoder.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-_SAFE_INT <= value <= _SAFE_INT)
    if kind is dict:
        for key in value:
            if type(key) is not str or not key.isascii():
                return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    for item in items:
        # Scalars inline: they are most of a bundle, and a call per value would double the cost.
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -_SAFE_INT <= item <= _SAFE_INT:
                continue
            return False
        if not fast_path_applies(item):
            return False
    return True


def canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON-compatible value."""
    try:
        if fast_path_applies(value):
            return orjson.dumps(value, option=_SORTED)
    except (orjson.JSONEncodeError, RecursionError):
        pass
    return bytes(rfc8785.dumps(value))


def readable_json(value: Any) -> str:
    """``json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)``: stable JSON for people and
    diffs. For the values ``fast_path_applies`` admits, orjson writes the same text (two-space indent,
    ``": "`` and ``,`` at line ends, keys sorted by code point, the same escapes, characters as
    themselves), several times faster than the standard encoder, which writes indented JSON in pure
    Python; everything else goes to the standard encoder."""
    try:
        if fast_path_applies(value):
            return orjson.dumps(value, option=_READABLE).decode("utf-8")
    except (orjson.JSONEncodeError, RecursionError):
        pass
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def canonical_bytes_of_plain(value: Any) -> bytes:
    """``canonical_bytes`` of a value its builder keeps plain: only exact ``str``, ``bool``, ``None``,
    ``int``, ``list`` and ``dict`` with ASCII keys, never a float or a subclass (the Evaluation payload,
    built from validated models' JSON values under literal keys). For those orjson writes the RFC 8785
    bytes without the check ``canonical_bytes`` makes first; an integer beyond the JCS range (a
    submitted bundle may carry one) is refused by orjson and goes to the checked path."""
    try:
        return orjson.dumps(value, option=_SORTED | orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return canonical_bytes(value)


def readable_json_of_plain(value: Any) -> str:
    """``readable_json`` of a value its builder keeps plain: only exact ``str``, ``bool``, ``None``,
    ``int``, ``list`` and ``dict`` with ``str`` keys, never a float or a subclass (a model's
    ``model_dump(mode="json")`` when no field is a float, as a bundle's). For those orjson writes the
    standard encoder's text without the walk ``readable_json`` makes first: keys in code-point order
    whatever they hold; an integer beyond 64 bits or a lone surrogate, which orjson refuses, goes to
    the standard encoder."""
    try:
        return orjson.dumps(value, option=_READABLE).decode("utf-8")
    except orjson.JSONEncodeError:
        return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def canonical_bytes_of_json(text: str | bytes) -> bytes:
    """The RFC 8785 bytes of the JSON value written in ``text`` (such as pydantic's JSON output): the
    bytes of ``rfc8785.dumps(json.loads(text))``, parsed by orjson where it can (it refuses NaN,
    Infinity, lone surrogate escapes and integers beyond 64 bits, which the standard parser reads)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = json.loads(text)
    return canonical_bytes(value)


def canonical_bytes_of_schema_json(text: bytes) -> bytes:
    """``canonical_bytes_of_json`` of JSON that pydantic wrote for models without a float field (the
    Evidence Bundle's: ``tests/static/test_canonical_fast_path.py`` holds its schema to that). When the
    text is ASCII, every key is, so orjson's sorted order is the JCS order, and orjson re-encodes the
    parsed value as JCS without the walk ``fast_path_applies`` makes: strings, safe integers, booleans,
    null, arrays and objects are all it can hold. An integer beyond the JCS range or a lone surrogate
    escape, which orjson refuses, and any text with non-ASCII characters go the checked way."""
    if text.isascii():
        try:
            return orjson.dumps(orjson.loads(text), option=_SORTED | orjson.OPT_STRICT_INTEGER)
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            pass
    return canonical_bytes_of_json(text)


def canonical_object(members: Mapping[str, bytes]) -> bytes:
    """The RFC 8785 bytes of an object whose member values are given as their own RFC 8785 bytes.

    Lets a caller that needs the canonical bytes of several overlapping objects (an Evaluation payload
    and its core truth) encode each member once. Keys must be ASCII, whose JCS order is byte order."""
    for key in members:
        if not key.isascii():
            raise ValueError(f"canonical_object takes ASCII keys only, not {key!r}")
    return b"{" + b",".join(canonical_bytes(key) + b":" + members[key] for key in sorted(members)) + b"}"


def reference_canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 bytes from the reference implementation only (tests compare the fast path to it)."""
    return bytes(rfc8785.dumps(value))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes (file contents, PDFs)."""
    return DIGEST_PREFIX + sha256_hex(data)


def digest_json(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of a value."""
    return digest_bytes(canonical_bytes(value))


def short_id(prefix: str, *parts: object) -> str:
    """A stable, content-derived identifier such as ``act-3f2a9c01b7d4``.

    Identifiers inside evidence are derived from what they name, never random, so that the same tree
    gives the same ids and the same digests.
    """
    joined = "\x1f".join(str(p) for p in parts)
    return f"{prefix}-{sha256_hex(joined.encode('utf-8'))[:12]}"
