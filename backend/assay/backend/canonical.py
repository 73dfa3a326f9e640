"""Canonical JSON (RFC 8785, JCS) and the SHA-256 digests every party can recompute.

All digests in Assay are written ``sha256:<64 lowercase hex>`` and computed over the JCS bytes of a
JSON value, so that key order, whitespace and number formatting never change a digest.

``rfc8785`` is the reference implementation. It is pure Python and costs about a microsecond per
value, which dominates digesting a large bundle, so values in the subset where the standard library's
C JSON encoder already writes JCS bytes take that fast path (see ``fast_path_applies``); everything
else goes to ``rfc8785``. ``tests/static/test_canonical_fast_path.py`` holds the two byte for byte
equal on real bundles and on adversarial strings.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NoReturn

import rfc8785

DIGEST_PREFIX = "sha256:"

# JCS numbers are IEEE 754 doubles: integers outside this range are refused by rfc8785.
_SAFE_INT = 2**53 - 1

# With these options the C encoder writes exactly the JCS form of strings, integers, true/false/null,
# arrays and objects whose keys are ASCII: no whitespace; ``"`` and ``\\`` escaped; \\b \\f \\n \\r \\t
# as short escapes and the other controls below U+0020 as ``\\u00xx`` in lowercase hex; everything
# else (DEL, non-ASCII, U+2028/U+2029, astral characters) written as itself. Keys sorted by code
# point equal the JCS order (UTF-16 code units) when every key is ASCII.
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


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
            # Strict UTF-8 refuses lone surrogates, as rfc8785 does; it then raises its own error.
            return _ENCODER.encode(value).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        pass
    return bytes(rfc8785.dumps(value))


class _NotPlainError(Exception):
    pass


def _refuse(_text: str) -> NoReturn:
    raise _NotPlainError


def _safe_int(text: str) -> int:
    # 15 digits or fewer is always within the JCS range; longer ones are checked.
    value = int(text)
    if len(text) > 15 and not -_SAFE_INT <= value <= _SAFE_INT:
        raise _NotPlainError
    return value


# Parses plain JSON with the C scanner; refuses what JCS writes differently from the C encoder.
_PLAIN = json.JSONDecoder(parse_float=_refuse, parse_constant=_refuse, parse_int=_safe_int)


def canonical_bytes_of_json(text: str | bytes) -> bytes:
    """The RFC 8785 bytes of the JSON value written in ``text`` (such as pydantic's JSON output).

    Text that is ASCII with no ``\\u`` escape (so every key is ASCII), no float, no NaN/Infinity and
    no integer outside the JCS range is parsed and re-encoded by the C JSON codec alone; other text
    goes through ``canonical_bytes``. Either way the bytes are those of ``rfc8785.dumps(json.loads(text))``."""
    plain = text.decode("ascii") if isinstance(text, bytes) and text.isascii() else text
    if isinstance(plain, str) and plain.isascii() and "\\u" not in plain:
        try:
            value = _PLAIN.decode(plain)
        except _NotPlainError:
            pass
        else:
            return _ENCODER.encode(value).encode("ascii")
    return canonical_bytes(json.loads(text))


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
