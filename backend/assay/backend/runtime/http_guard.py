"""The HTTP client of a probe session: it reaches the registered host only, at the one address checked
against the network rule, and reads bounded answers.

- **Pinned address** (DNS rebinding): the target's host is resolved once, before the session, every
  address checked against the SSRF rule (network.py); the session then connects to that address only.
  Each request's URL is rewritten to the address while the ``Host`` header and the TLS server name (SNI
  and certificate check) stay the registered host's, so a name that resolves elsewhere a second later is
  never asked again. A request for any other host or port is refused before anything is sent.
- **Bounded answers**: a JSON body may not exceed one message's bound (4 MiB) and is checked whole
  before the MCP client parses it: UTF-8, JSON, nesting within ``MAX_JSON_DEPTH``; any other body (an SSE
  stream) may not exceed the session's bytes. Crossing a bound fails the session at once with its reason,
  whether the answer is large, never ends, or is nested deep; time is only the last bound.
- Proxies from the environment are ignored: a proxy would resolve the name itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import orjson

from assay.backend.runtime.network import url_host
from assay.backend.runtime.transport import MAX_JSON_DEPTH, Limits, ProbeError, Recorder, json_too_deep


class BodyRefusedError(httpx2.StreamError):
    """An answer crossed a bound; the reason is on the session's recorder (the MCP client sees a stream
    error for that request, and the session ends with the recorded reason)."""


class _BoundedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, json_body: bool, recorder: Recorder) -> None:
        self.inner, self.limit, self.json_body, self.recorder = inner, limit, json_body, recorder

    def _refuse(self, message: str) -> BodyRefusedError:
        self.recorder.fail(ProbeError(message, retryable=False))
        return BodyRefusedError(message)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        body = bytearray()
        async for chunk in self.inner:
            size += len(chunk)
            if size > self.limit:
                what = "a JSON answer" if self.json_body else "an answer"
                raise self._refuse(f"{what} of the target exceeds {self.limit} bytes")
            if self.json_body:
                body += chunk
            else:
                yield chunk
        if self.json_body and body:
            # Checked whole before the client parses it: the client's parser would fail too, but without
            # saying why. (An empty body, as answers to notifications and session ends have, is no message.)
            try:
                value = orjson.loads(body)
            except orjson.JSONDecodeError as exc:
                raise self._refuse(f"the target answered with invalid UTF-8 or JSON ({exc.msg})") from exc
            if json_too_deep(value, MAX_JSON_DEPTH):
                raise self._refuse(f"the target answered with JSON nested deeper than {MAX_JSON_DEPTH} levels")
            yield bytes(body)

    async def aclose(self) -> None:
        await self.inner.aclose()


class GuardedTransport(httpx2.AsyncBaseTransport):
    """Only ``url``'s host and port, connected at ``address`` (or by name when None), answers bounded."""

    def __init__(self, url: str, address: str | None, limits: Limits, recorder: Recorder) -> None:
        self.host, self.port = url_host(url)
        self.address = address
        self.limits, self.recorder = limits, recorder
        self.inner = httpx2.AsyncHTTPTransport(
            trust_env=False, limits=httpx2.Limits(max_connections=2, max_keepalive_connections=1)
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.host != self.host or (request.url.port or _default_port(request.url)) != self.port:
            raise httpx2.ConnectError(f"only the registered host {self.host} is contacted", request=request)
        if self.address is not None:
            request.url = request.url.copy_with(host=self.address)
            request.extensions = {**request.extensions, "sni_hostname": self.host}
        response = await self.inner.handle_async_request(request)
        json_body = response.headers.get("content-type", "").lower().startswith("application/json")
        limit = self.limits.max_message_bytes if json_body else self.limits.max_bytes
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        response.stream = _BoundedStream(response.stream, limit, json_body, self.recorder)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _default_port(url: httpx2.URL) -> int:
    return 443 if url.scheme == "https" else 80


def guarded_client(
    url: str, address: str | None, headers: dict[str, str], limits: Limits, recorder: Recorder, **options: Any
) -> httpx2.AsyncClient:
    """An HTTP client for one probe session of ``url`` (see the module docstring)."""
    return httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(limits.timeout_seconds),
        follow_redirects=False,
        trust_env=False,
        transport=GuardedTransport(url, address, limits, recorder),
        **options,
    )
