"""Runtime and scanner evidence an agent produced locally (an OTLP/JSON trace of its tests, a SARIF file
of a linter), sent to the service's intake routes through a binder and attached to a NEW run.

Which binder: the embedded service makes one per adapter for the workspace's AI System on first use
(``AssayBinding.intake``); against a remote service the tool picks an active binder of the right adapter
bound to the system (or to no system) from ``GET /api/v1/evidence/binders``, and the caller's key needs the
``evidence:ingest`` scope. Files are read as they are, never executed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.client import AssayClient, AssayError
from assay.tools.context import AssayBinding, binding, client, system_id
from assay.tools.models import EvidenceReceipt, IngestedEvidence

# Largest evidence file the tool reads (the service applies its own body limits too).
MAX_FILE_BYTES = 64 * 1024 * 1024
BINDERS = "/api/v1/evidence/binders"

Kind = Literal["otlp-traces", "otlp-logs", "sarif"]


@dataclass(frozen=True, slots=True)
class Route:
    adapter: str
    path: str
    content_type: str
    producer: Literal["structured-ingress", "sarif-import"]


ROUTES: dict[Kind, Route] = {
    "otlp-traces": Route("otlp", "/api/otlp/v1/traces", "application/json", "structured-ingress"),
    "otlp-logs": Route("otlp", "/api/otlp/v1/logs", "application/json", "structured-ingress"),
    "sarif": Route("sarif", "/api/ingest/sarif", "application/sarif+json", "sarif-import"),
}


def evidence_kind(data: bytes, name: str) -> Kind:
    """What a file holds, from its JSON members: an OTLP/JSON export (resourceSpans or resourceLogs) or a
    SARIF 2.1.0 log (version and runs)."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AssayError(
            "INVALID_REQUEST",
            f"{name} is not JSON ({exc.__class__.__name__})",
            next_step="pass an OTLP/JSON export (the OpenTelemetry SDK's OTLP JSON exporter, or a collector's file "
            "exporter) or a SARIF 2.1.0 file.",
        ) from exc
    if isinstance(document, dict):
        if "resourceSpans" in document:
            return "otlp-traces"
        if "resourceLogs" in document:
            return "otlp-logs"
        if document.get("version") == "2.1.0" and isinstance(document.get("runs"), list):
            return "sarif"
    raise AssayError(
        "INVALID_REQUEST",
        f"{name} is neither an OTLP/JSON trace or log export (resourceSpans, resourceLogs) nor a SARIF 2.1.0 log",
        next_step="pass an OTLP/JSON export or a SARIF 2.1.0 file.",
    )


async def _remote_binder(api: AssayClient, system: str, adapter: str) -> str:
    listing: dict[str, Any] = await api.get_json(BINDERS)
    candidates = [
        b
        for b in listing.get("binders", [])
        if b.get("active") and b.get("adapterId") == adapter and b.get("aiSystemId") in (system, None)
    ]
    # A binder bound to the system first: its batches carry the binding.
    candidates.sort(key=lambda b: (b.get("aiSystemId") != system, str(b.get("binderId"))))
    if not candidates:
        raise AssayError(
            "NOT_FOUND",
            f"The service has no active '{adapter}' evidence binder for AI System {system}",
            next_step=f"ask the service's operator to run `assay admin binder create --org ORG --source-system "
            f"NAME --adapter {adapter} --system {system}`, then call this tool again.",
        )
    return str(candidates[0]["binderId"])


async def ingest_file(bound: AssayBinding, api: AssayClient, system: str, file: Path) -> EvidenceReceipt:
    """Send one local evidence file to its intake route; the receipt's facts and how to attach it."""
    try:
        size = (await anyio.Path(file).stat()).st_size
        if size > MAX_FILE_BYTES:
            raise AssayError(
                "PAYLOAD_TOO_LARGE",
                f"{file} is {size} bytes; this tool sends files up to {MAX_FILE_BYTES} bytes",
                next_step="split the export into smaller files, or send it to the intake route directly.",
            )
        data = await anyio.Path(file).read_bytes()
    except OSError as exc:
        raise AssayError(
            "INVALID_REQUEST", f"{file} cannot be read ({exc.strerror})", next_step="pass an existing file."
        ) from exc
    kind = evidence_kind(data, file.name)
    route = ROUTES[kind]
    if bound.intake is not None:
        access = await bound.intake(system, route.adapter)
        binder_id, sender = access.binder_id, access.client
    else:
        binder_id, sender = await _remote_binder(api, system, route.adapter), api
    try:
        response = await sender.request(
            "POST", route.path, content=data, headers={"Content-Type": route.content_type, "X-Binder-Id": binder_id}
        )
    except AssayError as exc:
        if exc.code == "INSUFFICIENT_SCOPE":
            raise AssayError(
                exc.code,
                exc.message,
                status=exc.status,
                next_step="this MCP server's key cannot ingest evidence: configure a key with the "
                "evidence:ingest scope as well (`assay admin key create --scopes ...`).",
            ) from exc
        raise
    producer_run_id = response.headers.get("Assay-Producer-Run-Id")
    if producer_run_id is None:
        producer_run_id = str(response.json()["producerRunId"])
    return {
        "file": str(file),
        "kind": kind,
        "binderId": binder_id,
        "producerId": route.producer,
        "producerRunId": producer_run_id,
    }


def evidence_files(bound: AssayBinding, paths: list[str]) -> list[Path]:
    """The files named, relative to the workspace unless absolute (kept inside it when confined)."""
    out = []
    base = bound.workspace
    for given in paths:
        path = Path(given).expanduser()
        resolved = (path if path.is_absolute() or base is None else base / path).resolve()
        if bound.confine_paths and base is not None and base not in resolved.parents:
            raise AssayError(
                "INVALID_REQUEST",
                f"evidence file {given} must be inside the server's workspace {base}",
                next_step="pass files inside the workspace.",
            )
        out.append(resolved)
    return out


async def ingest_evidence(
    ctx: Context[Any, Any],
    files: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=20,
            description="OTLP/JSON trace or log exports (e.g. of your tests) or SARIF 2.1.0 logs (ruff, bandit, "
            "semgrep, CodeQL); relative to the workspace unless absolute.",
        ),
    ],
    ai_system_id: Annotated[
        str | None, Field(description="The AI System the evidence is about; default: this workspace's system.")
    ] = None,
) -> IngestedEvidence:
    """Send local traces or SARIF to intake through a binder of the right adapter: one receipt per file
    (producerId, producerRunId). No Evaluation changes until a NEW run attaches them. Next:
    assay_assess_workspace(evidence_files=[...]), which ingests and attaches in one call."""
    bound = binding(ctx)
    api = client(ctx)
    system = await system_id(bound, ai_system_id, api)
    receipts = [await ingest_file(bound, api, system, f) for f in evidence_files(bound, files)]
    return {
        "receipts": receipts,
        "externalEvidenceAttachments": [
            {"producerId": r["producerId"], "producerRunId": r["producerRunId"]} for r in receipts
        ],
        "nextStep": "assay_assess_workspace(evidence_files=[...]) assesses the workspace with these files attached; "
        "or create a run with the externalEvidenceAttachments above.",
    }
