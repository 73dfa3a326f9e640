"""Request and response shapes of the API (contract part 2), as pydantic models with camelCase members.

These models are the single source of the wire format: handlers validate requests and serialise
responses with them, and ``openapi.py`` publishes their JSON Schemas. Table rows (``models.py``) are
never returned directly. Request models forbid unknown members and coerce no types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from assay.backend.errors import ErrorCode

SourceStatusName = Literal["PENDING", "VERIFIED", "CONFLICTED", "UNAVAILABLE", "RETIRED"]
ExecutionMode = Literal["ui", "api", "ci-attached", "ci-triggered", "reused"]
IneligibilityCode = Literal["unverified", "conflicted", "unavailable", "retired", "branch_missing"]
# Framework hint of the legacy trigger. The static engine always analyses every framework it knows;
# the value is recorded with the scan for the caller's bookkeeping.
LegacyFramework = Literal[
    "auto",
    "openai",
    "openai-agents",
    "anthropic",
    "langchain",
    "langgraph",
    "crewai",
    "autogen",
    "pydantic-ai",
    "smolagents",
    "llamaindex",
    "mcp",
    "vercel-ai",
]
LEGACY_SCAN_STATUS = "COMPLETED"


class _Response(BaseModel):
    model_config = ConfigDict(frozen=True)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --- errors -------------------------------------------------------------------------------------------


class ErrorDetail(_Response):
    code: ErrorCode
    message: str
    retryable: bool


class ErrorEnvelope(_Response):
    """Every failure (contract part 7)."""

    error: ErrorDetail


# --- health -------------------------------------------------------------------------------------------


class Health(_Response):
    status: Literal["ok"]
    database: Literal["ok"]


# --- discovery ----------------------------------------------------------------------------------------


class AiSystem(_Response):
    """Contract 2.6."""

    aiSystemId: str
    name: str
    systemType: str | None
    criticality: str | None
    lifecycleStatus: str | None
    createdAt: datetime


class SystemList(_Response):
    systems: list[AiSystem]


class IneligibilityReason(_Response):
    code: IneligibilityCode
    message: str


class EvaluationSource(_Response):
    """A source repository bound to the AI System, and whether a fresh scan may use it now."""

    sourceAssetId: str
    kind: Literal["SOURCE_REPOSITORY"]
    repo: str = Field(description="Absolute local path, or the git URL as registered.")
    repoKind: Literal["local", "git"]
    branch: str | None
    status: SourceStatusName
    eligibleForFreshScan: bool
    reasons: list[IneligibilityReason] = Field(description="Why a fresh scan may not use it; empty when eligible.")
    createdAt: datetime
    updatedAt: datetime


class EvaluationSourceList(_Response):
    aiSystemId: str
    sources: list[EvaluationSource]


class EvidenceBinder(_Response):
    """Contract 2.9 ``binders[]``. Credentials, token material and field mappings are never returned."""

    binderId: str
    sourceSystem: str
    domain: str | None
    aiSystemId: str | None
    adapterId: str
    adapterVersion: str
    binderVersion: str
    accessMethod: str
    active: bool
    sourceAuthorityRole: str | None
    supportedEvidenceClasses: list[str]
    canEstablish: list[str]
    cannotEstablish: list[str]
    coverageSemantics: dict[str, Any] | None
    requireEventId: bool
    maxRecordBytes: int | None
    limitations: list[dict[str, Any]]


class EvidenceIntakeRoutes(_Response):
    structured: str
    logs: str
    otlpTraces: str
    otlpMetrics: str
    otlpLogs: str


class EvidenceIntake(_Response):
    authentication: Literal["bearer"]
    requiredScope: Literal["evidence:ingest"]
    routes: EvidenceIntakeRoutes


class EvidenceBinderList(_Response):
    """Contract 2.9."""

    binders: list[EvidenceBinder]
    intake: EvidenceIntake


# --- qualified scans ----------------------------------------------------------------------------------


class ScanSourceIdentity(_Request):
    """Contract 2.7 ``sourceIdentity``: the local workspace a bundle was made from."""

    version: str = Field(min_length=1, max_length=40)
    sourceKind: Literal["LOCAL_WORKSPACE"]
    gitRemote: str | None = Field(default=None, max_length=2048)
    gitCommit: str | None = Field(default=None, max_length=64)
    branch: str | None = Field(default=None, max_length=255)
    dirty: bool | Literal["unknown"]
    workspaceDigest: str = Field(min_length=1, max_length=80)
    pathSetDigest: str = Field(min_length=1, max_length=80)


# Validated as a plain object here (the intake runs the bundle's own schema and model); the OpenAPI
# document replaces this marker with a reference to the EvidenceBundle component.
SCHEMA_REF_MARKER = "x-assay-ref"
EvidenceBundleRef = Annotated[
    dict[str, Any],
    WithJsonSchema({"type": "object", SCHEMA_REF_MARKER: "EvidenceBundle"}),
]


class QualifiedScanSubmission(_Request):
    """Contract 2.7, the body of ``POST /api/v1/scans``."""

    aiSystemId: str = Field(min_length=1, max_length=64)
    producerId: Literal["ci-cd-scanner"]
    origin: Literal["local", "ide", "ci"]
    sourceIdentity: ScanSourceIdentity
    bundle: EvidenceBundleRef = Field(
        description="Evidence Bundle v1.0.0. Raw source files or snippets are not accepted."
    )
    commitSha: str | None = Field(default=None, max_length=64)
    branch: str | None = Field(default=None, max_length=255)


class QualifiedEvidence(_Response):
    schemaVersion: str
    producerId: str
    contentHash: str
    limitations: list[str]


class ScanAttachment(_Response):
    """The pair a later run request uses to bind this scan (``engines.static``)."""

    executionMode: ExecutionMode
    attachedScanId: str


class QualifiedScanAccepted(_Response):
    """Contract 2.8, the 201 answer of ``POST /api/v1/scans``."""

    scanId: str
    status: Literal["COMPLETED"]
    aiSystemId: str
    sourceIdentity: ScanSourceIdentity
    qualifiedEvidence: QualifiedEvidence
    attach: ScanAttachment


class ScanRecord(_Response):
    """``GET /api/v1/scans/{scanId}``: organization-bound provenance and the attachment reference."""

    scanId: str
    kind: Literal["qualified-submission", "legacy-trigger"]
    status: Literal["COMPLETED"]
    aiSystemId: str
    producerId: str
    origin: Literal["local", "ide", "ci", "service"]
    sourceIdentity: ScanSourceIdentity
    commitSha: str | None
    branch: str | None
    sourceAssetId: str | None = Field(description="The verified source a legacy-trigger scan read; null otherwise.")
    repoUrl: str | None
    framework: str | None
    bundleDigest: str = Field(description="sha256 of the canonical JSON of the stored bundle, contentHash included.")
    qualifiedEvidence: QualifiedEvidence
    attach: ScanAttachment
    createdAt: datetime


# --- legacy trigger -----------------------------------------------------------------------------------


class LegacyScanRequest(_Request):
    """Contract 2.10 request."""

    repoUrl: str = Field(min_length=1, max_length=2048)
    branch: str = Field(min_length=1, max_length=255)
    framework: LegacyFramework
    commitSha: str = Field(pattern=r"^[0-9a-fA-F]{7,64}$")


class LegacyScanRecord(_Response):
    """Contract 2.10 response."""

    scanId: str
    status: Literal["COMPLETED"]
    repoUrl: str
    branch: str
    framework: str
    createdAt: datetime
