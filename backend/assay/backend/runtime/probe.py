"""One probe session with an MCP server, recorded: the runtime engine's evidence.

The session opens the MCP handshake (``initialize``), lists what the server advertises (tools,
resources, resource templates, prompts; every page, bounded) and closes. Every message both ways is kept
in order; the recording, with the probe pack's reference and the target's non-secret description, is
the evidence item the Evaluation is computed from (never the live session), so evaluating it again is
byte-identical. Header secrets travel on the HTTP connection only and never enter a recording.
"""

from __future__ import annotations

import contextlib
import ssl
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.client._transport import TransportStreams
from mcp.types import Implementation

from assay.backend.canonical import canonical_bytes, sha256_hex
from assay.backend.evaluation.membership import EvidenceItem
from assay.backend.runtime.active import MAX_TOOLS, ROUNDS, canary_arguments, canary_token, honeypot
from assay.backend.runtime.agent import record_agent
from assay.backend.runtime.pack import load_pack
from assay.backend.runtime.recordings import PRODUCER_ID
from assay.backend.runtime.transport import (
    Limits,
    ProbeError,
    Recorder,
    StdioServer,
    http_transport,
    recorded,
    stdio_transport,
)
from mcp import Client, MCPError

RECORDING_VERSION = "1"
RUNTIME_PRODUCER_ID = PRODUCER_ID
CLIENT_NAME = "assay-runtime-probe"


@dataclass(frozen=True, slots=True)
class ProbeTarget:
    """What to probe: ``kind`` mcp-url or agent-url (``address`` a URL, ``headers`` its secrets,
    ``pinned`` the IP address its host resolved to when it was checked: the only one contacted) or
    mcp-command (``argv``)."""

    kind: str
    address: str
    argv: Sequence[str] = ()
    headers: dict[str, str] | None = None
    pinned: str | None = None


async def _pages(recorder: Recorder, fetch: Callable[[str | None], Awaitable[Any]]) -> list[Any]:
    cursor: str | None = None
    results = []
    for _ in range(recorder.limits.max_pages):
        result = await fetch(cursor)
        results.append(result)
        cursor = getattr(result, "next_cursor", None)
        if not cursor:
            return results
    raise ProbeError(f"a listing did not end within {recorder.limits.max_pages} pages", retryable=False)


async def _catalogue(client: Client, recorder: Recorder) -> list[Any]:
    """List everything the server advertises; its tools."""
    capabilities = client.server_capabilities
    tools: list[Any] = []
    if capabilities.tools is not None:
        pages = await _pages(recorder, lambda c: client.list_tools(cursor=c))
        tools = [t for page in pages for t in page.tools]
    if capabilities.resources is not None:
        await _pages(recorder, lambda c: client.list_resources(cursor=c))
        await _pages(recorder, lambda c: client.list_resource_templates(cursor=c))
    if capabilities.prompts is not None:
        await _pages(recorder, lambda c: client.list_prompts(cursor=c))
    return tools


async def _active(client: Client, recorder: Recorder, tools: list[Any], workdir: Path) -> None:
    """The active suite (runtime/active.py): every tool called with canaries, twice, listed again after."""
    async with honeypot(recorder) as url:
        for _ in range(ROUNDS):
            for tool in tools[:MAX_TOOLS]:
                token = canary_token()
                args = canary_arguments(tool.input_schema or {}, token, url, workdir)
                # An error answer is recorded like any other; the next tool is called all the same.
                with contextlib.suppress(MCPError):
                    await client.call_tool(tool.name, args)
            await _pages(recorder, lambda c: client.list_tools(cursor=c, cache_mode="refresh"))


async def record_session(target: ProbeTarget, suites: Sequence[str], limits: Limits) -> dict[str, Any]:
    """Probe ``target`` and return the recording (JSON values); ProbeError when the session fails."""
    recorder = Recorder(limits)
    server = StdioServer()
    pack = load_pack()
    if target.kind == "agent-url":
        try:
            with anyio.fail_after(limits.timeout_seconds):
                recorder = await record_agent(target.address, target.pinned, dict(target.headers or {}), pack, limits)
        except TimeoutError as exc:
            raise ProbeError(
                f"the agent endpoint did not answer every case within {limits.timeout_seconds:g} s", retryable=True
            ) from exc
        return _recording(target, suites, limits, recorder)
    with tempfile.TemporaryDirectory(prefix="assay-probe-") as scratch:
        try:
            with anyio.fail_after(limits.timeout_seconds):
                inner: AbstractAsyncContextManager[TransportStreams]
                if target.kind == "mcp-command":
                    inner = stdio_transport(target.argv, workdir=Path(scratch), recorder=recorder, server=server)
                else:
                    inner = http_transport(target.address, target.pinned, dict(target.headers or {}), limits, recorder)
                async with Client(
                    recorded(inner, recorder),
                    mode="legacy",
                    cache=None,
                    client_info=Implementation(name=CLIENT_NAME, version=pack.version),
                    read_timeout_seconds=limits.timeout_seconds,
                ) as client:
                    tools = await _catalogue(client, recorder)
                    if "active" in suites and tools:
                        await _active(client, recorder, tools, Path(scratch))
        except ProbeError:
            raise
        except TimeoutError as exc:
            raise recorder.error or ProbeError(
                f"the target did not complete the session within {limits.timeout_seconds:g} s", retryable=True
            ) from exc
        except (MCPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream) as exc:
            raise recorder.error or _ended(server, exc) from exc
        except BaseExceptionGroup as group:
            raise recorder.error or _ended(server, group.exceptions[0]) from group
        if recorder.error is not None:
            raise recorder.error
    return _recording(target, suites, limits, recorder)


def _recording(target: ProbeTarget, suites: Sequence[str], limits: Limits, recorder: Recorder) -> dict[str, Any]:
    pack = load_pack()
    return {
        "recordingVersion": RECORDING_VERSION,
        "probePack": pack.ref(),
        "target": {"kind": target.kind, "address": target.address},
        "suites": list(suites),
        "limits": {
            "maxRequests": limits.max_requests,
            "timeoutSeconds": limits.timeout_seconds,
            "maxBytes": limits.max_bytes,
        },
        "exchanges": recorder.exchanges,
    }


def _tls_error(exc: BaseException | None) -> ssl.SSLError | None:
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, ssl.SSLError):
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _ended(server: StdioServer, exc: BaseException) -> ProbeError:
    tls = _tls_error(exc)
    if tls is not None or "CERTIFICATE_VERIFY_FAILED" in str(exc):
        # A certificate the client does not trust will not become trusted by retrying.
        return ProbeError(f"TLS with the target failed ({tls or exc})", retryable=False)
    process = server.process
    if process is not None and process.returncode is not None:
        return ProbeError(f"the server exited mid-session (exit status {process.returncode})", retryable=True)
    if isinstance(exc, MCPError):
        return ProbeError(f"the server answered with a protocol error ({exc})", retryable=False)
    return ProbeError(f"the session with the target failed ({type(exc).__name__}: {exc})", retryable=True)


def recording_item(recording: dict[str, Any]) -> EvidenceItem:
    """The recording as an evidence item: content addressed, so the same session is the same item."""
    canonical = canonical_bytes(recording)
    digest = f"sha256:{sha256_hex(canonical)}"
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'runtime_probe:{digest}'.encode())[:16]}",
        kind="runtime_probe",
        producerId=RUNTIME_PRODUCER_ID,
        contentDigest=digest,
        payloadJson=canonical.decode("utf-8"),
    )
