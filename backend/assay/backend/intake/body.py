"""Intake bodies: streamed into a spooled temporary file (memory for the first MiB, disk after), gunzipped
on the way with a bound on the decompressed size, so neither a large batch nor a gzip bomb holds more
than a chunk in memory. The content type is parsed once here.
"""

from __future__ import annotations

import tempfile
import zlib
from dataclasses import dataclass
from typing import IO, NoReturn

from starlette.requests import Request

from assay.backend.errors import ApiError

SPOOL_IN_MEMORY = 1024 * 1024
# Output of one decompression step: a bomb expands a few KiB to this at most before the size check.
_INFLATE_STEP = 256 * 1024


@dataclass(frozen=True, slots=True)
class MediaType:
    """A Content-Type: the lowercased media type and its charset parameter (None when absent)."""

    media_type: str
    charset: str | None


def media_type(request: Request) -> MediaType:
    """The request's declared media type; 415 INVALID_REQUEST when it is missing."""
    raw = request.headers.get("content-type")
    if not raw or not raw.strip():
        raise unsupported_media_type("A Content-Type header is required.")
    kind, _, params = raw.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return MediaType(kind.strip().lower(), charset)


def unsupported_media_type(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message, status=415)


# A gzip body may inflate to this many times its size on the wire (beyond the first MAX_INFLATED_FREE
# bytes): real payloads (JSON, protobuf, logs) inflate 5 to 50 times; a "zip bomb" a thousand times.
MAX_INFLATE_RATIO = 200
MAX_INFLATED_FREE = 8 * 1024 * 1024


def too_large(limit: int, setting: str | None = None, *, decompressed: bool = False) -> NoReturn:
    what = "The body, decompressed," if decompressed else "The body"
    message = f"{what} is larger than the limit of {limit} bytes."
    if setting is not None:
        message = f"{message[:-1]}; the service's operator can raise it with {setting}."
    raise ApiError("INVALID_REQUEST", message, status=413)


@dataclass(slots=True)
class Body:
    """A spooled request body (decompressed) and its size. Close it when done."""

    file: IO[bytes]
    size: int

    def close(self) -> None:
        self.file.close()


async def spool_body(request: Request, limit: int, setting: str | None = None) -> Body:
    """The body, decompressed when ``Content-Encoding: gzip``, at most ``limit`` bytes on the wire and
    after decompression, and inflated at most MAX_INFLATE_RATIO times (413 beyond, naming ``setting``
    where the limit has one); a body that is not valid gzip is 400."""
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip", ""):
        raise unsupported_media_type(f"Content-Encoding {encoding!r} is not supported; use gzip or none.")
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                too_large(limit, setting)
        except ValueError as exc:
            raise ApiError("INVALID_REQUEST", "The Content-Length header is not a number.") from exc
    file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115 (closed by Body)
    try:
        size = await _copy(request, file, limit, gzip=encoding == "gzip", setting=setting)
    except BaseException:
        file.close()
        raise
    file.seek(0)
    return Body(file=file, size=size)


def _inflated_too_far(received: int, written: int) -> NoReturn:
    raise ApiError(
        "INVALID_REQUEST",
        f"The gzip body inflates more than {MAX_INFLATE_RATIO} times its size ({received} bytes received, "
        f"{written} inflated so far); send it uncompressed or less compressed.",
        status=413,
    )


async def _copy(request: Request, file: IO[bytes], limit: int, *, gzip: bool, setting: str | None) -> int:
    received = written = 0
    inflater = zlib.decompressobj(wbits=31) if gzip else None
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            too_large(limit, setting)
        if inflater is None:
            file.write(chunk)
            written += len(chunk)
            continue
        data = chunk
        while data:
            try:
                out = inflater.decompress(data, _INFLATE_STEP)
            except zlib.error as exc:
                raise ApiError("INVALID_REQUEST", "The body is not valid gzip.") from exc
            written += len(out)
            if written > limit:
                too_large(limit, setting, decompressed=True)
            if written > MAX_INFLATED_FREE and written > MAX_INFLATE_RATIO * received:
                _inflated_too_far(received, written)
            file.write(out)
            data = inflater.unconsumed_tail
            if inflater.eof and inflater.unused_data:
                # Another gzip member follows (RFC 1952 allows several); anything else fails to inflate.
                data = inflater.unused_data + data
                inflater = zlib.decompressobj(wbits=31)
    if inflater is not None and not inflater.eof:
        raise ApiError("INVALID_REQUEST", "The gzip body is truncated.")
    return written
