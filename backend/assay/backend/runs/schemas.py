"""Wire shapes of runs (contract 2.1-2.3): camelCase pydantic models, the single source of the format."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

ExecutionMode = Literal["ui", "api", "ci-attached", "ci-triggered", "reused"]
Jurisdiction = Literal["nyc_ll144", "colorado_ai", "eu_ai_act"]
# assay-runtime: the probe recording of an earlier run (docs/runtime.md), beside the contract's three.
ProducerId = Literal["ci-cd-scanner", "sarif-import", "structured-ingress", "assay-runtime"]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _Response(BaseModel):
    model_config = ConfigDict(frozen=True)


class StaticEngine(_Request):
    enabled: bool | None = None
    executionMode: ExecutionMode | None = None
    sourceAssetId: str | None = None
    repositoryUrl: str | None = None
    branch: str | None = None
    # An extension (docs/runs.md): the full id of the commit of a git remote source to fetch and scan, in
    # place of its branch's tip; for a local path, the commit its work tree must be at.
    commitSha: str | None = Field(default=None, pattern=r"^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$")
    attachedScanId: str | None = None


class WizardEngine(_Request):
    enabled: bool | None = None
    framework: str | None = None
    assessmentId: str | None = None


RuntimeSuite = Literal["catalogue", "poisoning", "annotations", "active", "agent"]


class RuntimeEngine(_Request):
    """The runtime engine's configuration (not shown by the contract; docs/runtime.md decides it)."""

    enabled: bool | None = None
    # A runtime target bound to the AI System; default: the system's single VERIFIED target.
    targetId: str | None = Field(default=None, min_length=1)
    # Default: every built suite (catalogue, poisoning, annotations); each must be consented on the target.
    suites: list[RuntimeSuite] | None = Field(default=None, min_length=1, max_length=5)
    maxRequests: int | None = Field(default=None, ge=1, le=1000)
    timeoutSeconds: float | None = Field(default=None, gt=0, le=600)


def _enabled(name: str) -> JsonDict:
    """JSON Schema: engine ``name`` is given as an object whose ``enabled`` is not false."""
    return {
        "required": [name],
        "properties": {name: {"type": "object", "properties": {"enabled": {"not": {"const": False}}}}},
    }


class Engines(_Request):
    """At least one engine must be enabled: given as an object whose enabled member is not false (a run
    without one is refused: 400 INVALID_REQUEST, No engine is enabled)."""

    model_config = ConfigDict(json_schema_extra={"anyOf": [_enabled(n) for n in ("static", "runtime", "wizard")]})

    static: StaticEngine | None = None
    runtime: RuntimeEngine | None = None
    wizard: WizardEngine | None = None


class ExternalEvidenceAttachment(_Request):
    producerId: ProducerId
    producerRunId: str = Field(min_length=1)


class CreateRunRequest(_Request):
    aiSystemId: str = Field(min_length=1)
    engines: Engines
    jurisdiction: Jurisdiction | None = None
    externalEvidenceAttachments: list[ExternalEvidenceAttachment] = Field(default_factory=list)


class Failure(_Response):
    code: str
    engine: str | None
    message: str
    retryable: bool


class EvaluationRef(_Response):
    evaluationId: str
    status: str
    disposition: Literal["ALLOW", "REVIEW", "BLOCK"] | None
    methodologyVersion: str | None
    createdAt: datetime


class RunLinks(_Response):
    self: str
    summary: str | None = None
    report: str | None = None
    masterReport: str | None = None
    masterReportPdf: str | None = None
    agentAudit: str | None = None
    passport: str | None = None
    pdf: str | None = None
    dashboard: str | None = None
    dashboardEvaluation: str | None = None
    dashboardMasterReport: str | None = None
    dashboardSystemWorkspace: str | None = None
    dashboardAssurance: str | None = None
    dashboardReports: str | None = None


class RunEnvelope(_Response):
    runId: str
    status: str
    stage: str | None
    createdAt: datetime
    startedAt: datetime | None
    completedAt: datetime | None
    aiSystemId: str | None
    failure: Failure | None
    evaluation: EvaluationRef | None
    links: RunLinks


class SelfLink(_Response):
    self: str


class RunListItem(_Response):
    runId: str
    aiSystemId: str | None
    status: str
    stage: str | None
    staticExecutionMode: str | None
    jurisdiction: str | None
    createdAt: datetime
    startedAt: datetime | None
    completedAt: datetime | None
    links: SelfLink


class RunList(_Response):
    runs: list[RunListItem]
    page: int
    limit: int
    total: int
