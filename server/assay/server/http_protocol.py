"""uvicorn's h11 protocol, with requests it refuses before the app sees them answered in the error envelope.

uvicorn answers a request it cannot parse (malformed, a bad chunk size, or a request line and headers
still incomplete beyond ``h11_max_incomplete_event_size``) with a plain-text 400 of its own. Clients of
this service branch on the envelope's ``code``, so the same refusal is written as ``{"error": {...}}``
JSON, with h11's status hint (431 for headers over the limit, else 400), and the connection is closed.

A request carrying both ``Content-Length`` and ``Transfer-Encoding`` is refused the same way (400, then
the connection is closed): RFC 9112 section 6.1 requires closing the connection after such a request,
since the two framings disagree on where the next request starts; h11 alone would answer it, read the
body as chunked, and keep the connection open for whatever was smuggled behind it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from assay.backend.errors import error_body
from assay.backend.web.limits import header_limit_message


def _refusal(status: int, limit: int) -> bytes:
    message = header_limit_message(limit) if status == 431 else "The request is not valid HTTP/1.1."
    return json.dumps(error_body("INVALID_REQUEST", message, False)).encode("utf-8")


class _SingleFramingConnection(h11.Connection):
    """An ``h11.Connection`` that refuses a request declaring two framings (RFC 9112 section 6.1)."""

    def next_event(self) -> Any:
        event = super().next_event()
        if isinstance(event, h11.Request):
            names = {name.lower() for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding", error_status_hint=400)
        return event


class EnvelopeH11Protocol(H11Protocol):
    """``H11Protocol`` whose parse failures answer in the envelope, and close the connection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _SingleFramingConnection(h11.SERVER, self.config.h11_max_incomplete_event_size or 16 * 1024)

    def send_400_response(self, msg: str) -> None:
        # uvicorn calls this inside its ``except h11.RemoteProtocolError`` block: the error says which
        # status fits (h11 sets 431 for a receive buffer over the limit).
        error = sys.exc_info()[1]
        hint = getattr(error, "error_status_hint", 400)
        status = hint if isinstance(hint, int) and 400 <= hint < 500 else 400
        body = _refusal(status, self.config.h11_max_incomplete_event_size or 0)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=status, headers=headers), h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()
