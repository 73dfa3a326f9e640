"""Response models of the evaluation artifacts, for the OpenAPI document (docs/reports.md, docs/passport.md).

They describe what the routes answer; the routes build plain JSON from the persisted Evaluation and do
not pass through these models. Members the contract leaves open (the Four Questions' inner fields, a
full report's projection) stay open objects; everything a client branches on is typed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Disposition = Literal["ALLOW", "REVIEW", "BLOCK"]
Severity = Literal["critical", "high", "medium", "low"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Location(_Open):
    path: str
    line: int | None


class Identity(_Open):
    """What was assessed, and when: the same in every artifact of one Evaluation."""

    evaluationId: str
    aiSystemId: str | None
    systemName: str | None
    evaluatedAt: str | None = Field(description="The Evaluation's creation time, RFC 3339 UTC.")
    methodologyVersion: str | None
    repository: str | None
    commit: str | None
    branch: str | None
    dirty: bool | Literal["unknown"] = Field(description="True: uncommitted changes were assessed, not the commit.")
    workspaceDigest: str | None
    sources: list[dict[str, object]]
    signingKeyId: str | None
    links: dict[str, str | None]


class VerificationItem(_Open):
    """One evidence request. The contract 2.5 members verbatim, structured members beside them."""

    id: str
    kind: str | None
    severity: Severity | None
    location: Location | None
    tool: str | None
    tools: list[str] | None
    toolCount: int | None
    actionClass: str | None
    whatHaiecFound: str
    whatItEstablishes: str
    whatHaiecDidNotEstablish: str
    whyItMatters: str
    verificationNeeded: str = Field(description="The authoritative evidence request; never cut.")
    affectedQuestionIds: list[str]
    affectedPathIds: list[str]
    evidenceRefs: list[str]
    relationIds: list[str]
    boundary: str


class Reason(_Open):
    ruleId: str
    disposition: Disposition
    message: str
    evidenceRefs: list[str]


class SummaryResponse(_Open):
    """Compact summary of the exact persisted Evaluation."""

    evaluationId: str
    aiSystemId: str
    disposition: Disposition
    methodologyVersion: str
    identity: Identity | None
    jurisdiction: str | None
    digests: dict[str, str]
    counts: dict[str, object]
    topReasons: list[Reason]
    omittedReasons: int
    limitations: list[str]
    links: dict[str, str | None]


class Paging(_Open):
    page: int
    pageSize: int
    pages: int
    totalItems: int
    nextPage: int | None


class AgentAudit(_Open):
    disposition: Disposition
    methodologyVersion: str
    identity: Identity | None
    detail: Literal["bounded", "full"]
    sections: list[dict[str, object]]
    narrative: dict[str, list[str]]
    authoritySummary: dict[str, object]
    verificationItems: list[VerificationItem]
    paging: Paging
    omitted: dict[str, int] = Field(description="Each list cut by the bound, with how many entries it left out.")
    rest: str | None = Field(description="Where the omitted entries are (?page=N, ?detail=full).")


class AgentAuditResponse(_Open):
    """Agent audit (contract 2.5): paged by default, whole with detail=full."""

    evaluationId: str
    agentAudit: AgentAudit


class MasterReportLinks(_Open):
    html: str | None
    pdf: str | None
    api: str | None
    apiPdf: str | None
    agentAudit: str | None
    passport: str | None
    assuranceReport: str | None
    assuranceEvidencePdf: str | None
    evaluation: str | None
    decisionReceipt: str | None
    systemWorkspace: str | None
    investigation: str | None


class MasterReport(_Open):
    schemaVersion: str
    timeBasis: Literal["EVALUATED_SNAPSHOT"]
    evaluationId: str
    aiSystemId: str | None
    disposition: Disposition
    methodologyVersion: str | None
    identity: Identity | None
    profile: Literal["BASE", "EXECUTIVE"]
    reportId: str | None
    reportVersion: str
    projectionVersion: str
    coreTruthDigest: str
    evidenceBundleDigest: str | None
    detail: Literal["bounded", "full"]
    reasons: list[Reason]
    fourQuestions: dict[str, object]
    evaluationScenarioSnapshot: dict[str, object]
    verificationItems: list[VerificationItem]
    links: MasterReportLinks
    limitations: list[str]
    semantics: list[str]
    bounds: dict[str, int] | None
    omitted: dict[str, int]


class MasterReportResponse(_Open):
    """Master Assurance Report (contract 2.4)."""

    evaluationId: str
    masterReport: MasterReport


class EvidenceReportResponse(_Open):
    """Assurance Evidence Report (legacy): membership, findings, reasons, limitations."""

    evaluationId: str


class DsseSignature(_Open):
    keyid: str
    sig: str = Field(description="Base64 Ed25519 signature over PAE(payloadType, payload).")


class PassportEnvelope(_Open):
    """DSSE v1 envelope whose payload is an in-toto Statement v1 (docs/passport.md)."""

    payloadType: Literal["application/vnd.in-toto+json"]
    payload: str = Field(description="Base64 of the Statement's RFC 8785 JSON.")
    signatures: list[DsseSignature]


class Jwk(_Open):
    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str
    alg: Literal["EdDSA"]
    use: Literal["sig"]


class Jwks(_Open):
    """Public keys that verify passports, the active key first."""

    keys: list[Jwk]
