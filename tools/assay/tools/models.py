"""Output schemas of the tools: the contract's shapes (Assurance Service API, part 2) as TypedDicts.

Every shape allows members the contract does not list ("not shown" there), so a tool passes the
service's answer through verbatim; only members the contract names are declared. ``nextStep`` is the one
member the tools add to run results: a hint to the next call.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

Disposition = Literal["ALLOW", "REVIEW", "BLOCK"]
OPEN = ConfigDict(extra="allow")


@with_config(OPEN)
class RunFailure(TypedDict):
    code: str
    engine: str | None
    message: str
    retryable: bool


@with_config(OPEN)
class RunEvaluation(TypedDict):
    evaluationId: str
    status: str
    disposition: Disposition | None
    methodologyVersion: NotRequired[str | None]
    createdAt: NotRequired[str]


@with_config(OPEN)
class RunEnvelope(TypedDict):
    """Contract 2.2, plus ``nextStep``."""

    runId: str
    status: str
    stage: NotRequired[str | None]
    createdAt: NotRequired[str]
    startedAt: NotRequired[str | None]
    completedAt: NotRequired[str | None]
    aiSystemId: NotRequired[str | None]
    failure: NotRequired[RunFailure | None]
    evaluation: NotRequired[RunEvaluation | None]
    links: NotRequired[dict[str, str | None]]
    nextStep: NotRequired[str]


@with_config(OPEN)
class RunListItem(TypedDict):
    runId: str
    status: str
    aiSystemId: NotRequired[str | None]
    stage: NotRequired[str | None]
    staticExecutionMode: NotRequired[str | None]
    jurisdiction: NotRequired[str | None]
    createdAt: NotRequired[str]
    startedAt: NotRequired[str | None]
    completedAt: NotRequired[str | None]
    links: NotRequired[dict[str, str | None]]


@with_config(OPEN)
class RunList(TypedDict):
    runs: list[RunListItem]
    page: int
    limit: int
    total: int
    nextStep: NotRequired[str]


@with_config(OPEN)
class AiSystem(TypedDict):
    aiSystemId: str
    name: str
    systemType: NotRequired[str | None]
    criticality: NotRequired[str | None]
    lifecycleStatus: NotRequired[str | None]
    createdAt: NotRequired[str]


@with_config(OPEN)
class SystemList(TypedDict):
    systems: list[AiSystem]


@with_config(OPEN)
class EvaluationSources(TypedDict):
    """The eligibility preflight (contract: fields not shown; this service adds ``sources``)."""


@with_config(OPEN)
class EvidenceBinder(TypedDict):
    binderId: str
    sourceSystem: NotRequired[str]
    aiSystemId: NotRequired[str | None]
    active: NotRequired[bool]


@with_config(OPEN)
class BinderList(TypedDict):
    binders: list[EvidenceBinder]
    intake: NotRequired[dict[str, object]]


@with_config(OPEN)
class Summary(TypedDict):
    """The compact summary (contract: fields not shown; this service adds digests, counts, topReasons)."""

    evaluationId: str
    disposition: NotRequired[Disposition | None]
    methodologyVersion: NotRequired[str | None]


@with_config(OPEN)
class VerificationItem(TypedDict):
    verificationNeeded: str


@with_config(OPEN)
class AgentAudit(TypedDict):
    sections: NotRequired[list[object]]
    narrative: NotRequired[dict[str, object]]
    authoritySummary: NotRequired[object]
    verificationItems: list[VerificationItem]


@with_config(OPEN)
class AgentAuditResponse(TypedDict):
    evaluationId: str
    agentAudit: AgentAudit


class AuditPaging(TypedDict):
    page: int
    pages: int
    items: str
    totalItems: int
    nextPage: int | None


class AgentAuditPage(TypedDict):
    """What ``assay_get_agent_audit`` returns for a page: whole verification items, as many as fit."""

    evaluationId: str
    disposition: Disposition | None
    methodologyVersion: str | None
    verificationItems: list[VerificationItem]
    paging: AuditPaging
    nextStep: str


class DocumentPart(TypedDict):
    """One part (or all) of a large document, with what was left out to fit one answer and how to read it."""

    evaluationId: str
    section: str | None
    value: object
    omitted: dict[str, dict[str, object]]
    nextStep: str


@with_config(OPEN)
class MasterReport(TypedDict):
    evaluationId: str
    disposition: Disposition
    schemaVersion: NotRequired[str]
    timeBasis: NotRequired[str]
    aiSystemId: NotRequired[str | None]
    methodologyVersion: NotRequired[str | None]
    coreTruthDigest: NotRequired[str]
    evidenceBundleDigest: NotRequired[str | None]
    fourQuestions: NotRequired[dict[str, object]]
    evaluationScenarioSnapshot: NotRequired[dict[str, object]]
    links: NotRequired[dict[str, str | None]]
    limitations: NotRequired[list[str]]


@with_config(OPEN)
class MasterReportResponse(TypedDict):
    evaluationId: str
    masterReport: MasterReport


@with_config(OPEN)
class Passport(TypedDict):
    """The portable artifact bound to the Evaluation (contract: fields not shown; here a DSSE envelope)."""


class PassportNote(TypedDict):
    """Where an Evaluation's passport is and what it is signed with (the envelope itself is a resource)."""

    evaluationId: str
    payloadType: str
    keyIds: list[str]
    bytes: int
    resource: str
    route: str
    nextStep: str


@with_config(OPEN)
class EvidenceReceipt(TypedDict):
    """One local evidence file sent to intake: what it was, the binder, and the ids that attach it."""

    file: str
    kind: Literal["otlp-traces", "otlp-logs", "sarif"]
    binderId: str
    producerId: Literal["structured-ingress", "sarif-import"]
    producerRunId: str


class EvidenceAttachment(TypedDict):
    producerId: str
    producerRunId: str


class IngestedEvidence(TypedDict):
    """What ``assay_ingest_evidence`` returns."""

    receipts: list[EvidenceReceipt]
    externalEvidenceAttachments: list[EvidenceAttachment]
    nextStep: str


class WorkspaceAssessment(TypedDict):
    """What ``assay_assess_workspace`` returns: the ids for the next reads and the summary."""

    status: str
    runId: str
    scanId: str
    aiSystemId: str
    evaluationId: NotRequired[str]
    disposition: NotRequired[Disposition | None]
    summary: NotRequired[Summary]
    scanLimitations: NotRequired[list[str]]
    evidenceReceipts: NotRequired[list[EvidenceReceipt]]
    nextStep: str


class ProbeResult(TypedDict):
    """What ``assay_probe_mcp_server`` returns: the run, the disposition, and what the probe found."""

    status: str
    runId: str
    aiSystemId: str
    targetId: str
    evaluationId: NotRequired[str]
    disposition: NotRequired[Disposition | None]
    runtime: NotRequired[dict[str, Any]]
    topReasons: NotRequired[list[dict[str, Any]]]
    nextStep: str
