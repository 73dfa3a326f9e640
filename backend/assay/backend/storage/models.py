"""Tables of the assurance service (SQLModel). Never returned from the API: ``schemas.py`` holds those shapes.

Every row that belongs to an organization carries ``organization_id``, and every read filters on it;
the organization always comes from the API key record, never from the caller. Schema changes go through
Alembic migrations (``migrations/versions``); a test checks that the migrated schema matches these models.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import JSON, LargeBinary, Text, UniqueConstraint
from sqlalchemy.engine import Dialect
from sqlalchemy.types import DateTime, TypeDecorator
from sqlmodel import Field, SQLModel

from assay.backend.storage.values import new_id as new_id
from assay.backend.storage.values import utcnow as utcnow

SourceStatus = Literal["PENDING", "VERIFIED", "CONFLICTED", "UNAVAILABLE", "RETIRED"]
SOURCE_STATUSES: tuple[SourceStatus, ...] = ("PENDING", "VERIFIED", "CONFLICTED", "UNAVAILABLE", "RETIRED")
RepoKind = Literal["local", "git"]


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive, PostgreSQL as timestamptz)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; use timezone-aware UTC")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Organization(SQLModel, table=True):
    __tablename__ = "organization"

    id: str = Field(primary_key=True, max_length=64)
    name: str = Field(max_length=200)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class AiSystem(SQLModel, table=True):
    __tablename__ = "ai_system"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    name: str = Field(max_length=200)
    system_type: str | None = Field(default=None, max_length=100)
    criticality: str | None = Field(default=None, max_length=100)
    lifecycle_status: str | None = Field(default=None, max_length=100)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class SourceAsset(SQLModel, table=True):
    """A SOURCE_REPOSITORY bound to an AI System: a local path (absolute) or a git URL (as given)."""

    __tablename__ = "source_asset"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    kind: str = Field(default="SOURCE_REPOSITORY", max_length=40)
    repo: str = Field(max_length=2048)
    repo_kind: str = Field(max_length=10)
    branch: str | None = Field(default=None, max_length=255)
    status: str = Field(default="PENDING", max_length=20)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    # A git remote's deploy credential (``https-token`` or ``ssh-key``), encrypted with the service's secret
    # key (runtime/secrets.py); only its kind is ever read back outside a fetch.
    credential_kind: str | None = Field(default=None, max_length=20)
    sealed_credential: bytes | None = Field(default=None, sa_type=LargeBinary)
    # What the last verification fetched: the commit of the branch's tip, and when.
    verified_commit: str | None = Field(default=None, max_length=64)


TargetStatus = Literal["PENDING", "VERIFIED", "RETIRED"]
TargetKind = Literal["mcp-url", "mcp-command", "agent-url"]


class RuntimeTarget(SQLModel, table=True):
    """A live endpoint of an AI System the runtime engine may probe (docs/runtime.md): an MCP server by URL
    or by command, or an agent endpoint. Probed only when VERIFIED, not retired, and consented per suite.

    ``sealed_headers`` holds the request headers (tokens) encrypted with the service's runtime secret key;
    only their names are ever read back (``header_names``)."""

    __tablename__ = "runtime_target"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    kind: str = Field(max_length=20)
    # The URL as given (http/https) or the command line (``mcp-command``).
    address: str = Field(max_length=4096)
    protocol: str = Field(max_length=20)
    status: str = Field(default="PENDING", max_length=20)
    consented_suites: list[str] = Field(default_factory=list, sa_type=JSON)
    header_names: list[str] = Field(default_factory=list, sa_type=JSON)
    sealed_headers: bytes | None = Field(default=None, sa_type=LargeBinary)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    consented_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class RuntimeProbeSlot(SQLModel, table=True):
    """One of a runtime target's probe-session slots, held by a run while its session contacts the target
    (runtime/slots.py): at most ``runtime_target_sessions`` sessions per target at once, across workers."""

    __tablename__ = "runtime_probe_slot"

    target_id: str = Field(foreign_key="runtime_target.id", primary_key=True, max_length=64)
    slot: int = Field(primary_key=True)
    holder: str = Field(max_length=64)
    # A hold ends by itself then: a worker that died while probing does not block the target for long.
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class ApiKey(SQLModel, table=True):
    """An API key: only its SHA-256 is stored; the key itself is shown once at creation."""

    __tablename__ = "api_key"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    key_hash: str = Field(unique=True, max_length=64)
    # ``svc_live_`` plus the first four characters of the secret: enough to recognise a key in a list.
    display_prefix: str = Field(max_length=20)
    environment: str = Field(max_length=4)
    purpose: str | None = Field(default=None, max_length=40)
    scopes: list[str] = Field(default_factory=list, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class QualifiedScan(SQLModel, table=True):
    """An Evidence Bundle accepted through ``POST /api/v1/scans``, attachable to a later run."""

    __tablename__ = "qualified_scan"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    api_key_id: str = Field(max_length=64)
    status: str = Field(default="COMPLETED", max_length=20)
    producer_id: str = Field(max_length=40)
    origin: str = Field(max_length=10)
    commit_sha: str | None = Field(default=None, max_length=64)
    branch: str | None = Field(default=None, max_length=255)
    source_identity: dict[str, Any] = Field(sa_type=JSON)
    schema_version: str = Field(max_length=20)
    content_hash: str = Field(max_length=80)
    # sha256 of the canonical JSON of the whole bundle as stored (contentHash included).
    bundle_digest: str = Field(max_length=80)
    bundle_json: str = Field(sa_type=Text)
    limitations: list[str] = Field(default_factory=list, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class LegacyScan(SQLModel, table=True):
    """A scan made by ``POST /api/ci/scan``: the static engine run by the service on a verified source."""

    __tablename__ = "legacy_scan"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    source_asset_id: str = Field(foreign_key="source_asset.id", index=True, max_length=64)
    api_key_id: str = Field(max_length=64)
    status: str = Field(default="COMPLETED", max_length=20)
    repo_url: str = Field(max_length=2048)
    branch: str = Field(max_length=255)
    framework: str = Field(max_length=40)
    commit_sha: str = Field(max_length=64)
    source_identity: dict[str, Any] = Field(sa_type=JSON)
    schema_version: str = Field(max_length=20)
    content_hash: str = Field(max_length=80)
    bundle_digest: str = Field(max_length=80)
    bundle_json: str = Field(sa_type=Text)
    limitations: list[str] = Field(default_factory=list, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class EvidenceBinder(SQLModel, table=True):
    """A configured evidence source for the intake routes. Credentials never live in this table."""

    __tablename__ = "evidence_binder"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str | None = Field(default=None, foreign_key="ai_system.id", max_length=64)
    source_system: str = Field(max_length=100)
    domain: str | None = Field(default=None, max_length=100)
    adapter_id: str = Field(max_length=100)
    adapter_version: str = Field(max_length=40)
    binder_version: str = Field(max_length=40)
    access_method: str = Field(max_length=40)
    active: bool = Field(default=True)
    source_authority_role: str | None = Field(default=None, max_length=100)
    supported_evidence_classes: list[str] = Field(default_factory=list, sa_type=JSON)
    can_establish: list[str] = Field(default_factory=list, sa_type=JSON)
    cannot_establish: list[str] = Field(default_factory=list, sa_type=JSON)
    coverage_semantics: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    require_event_id: bool = Field(default=False)
    max_record_bytes: int | None = Field(default=None)
    limitations: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON)
    # How the adapter reads this source's records (the log adapter's line regex): never returned by the API.
    mapping: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class IntakeBatch(SQLModel, table=True):
    """One accepted intake batch (its id is the receipt's ``producerRunId``). Immutable: triggers refuse
    every UPDATE and DELETE, like Evaluations."""

    __tablename__ = "intake_batch"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    binder_id: str = Field(foreign_key="evidence_binder.id", index=True, max_length=64)
    ai_system_id: str | None = Field(default=None, foreign_key="ai_system.id", max_length=64)
    api_key_id: str = Field(max_length=64)
    # structured-ingress or sarif-import: the producerId a run attaches it with.
    producer_id: str = Field(max_length=40)
    # What the records are: otlp-traces, otlp-metrics, otlp-logs, structured, log, sarif.
    producer_kind: str = Field(max_length=40)
    adapter_id: str = Field(max_length=100)
    adapter_version: str = Field(max_length=40)
    record_count: int
    duplicate_count: int
    content_digest: str = Field(max_length=80)
    # How the batch's evidence is stored: ``records`` (normalized records, one ``intake_record`` row each)
    # or ``otlp-protobuf`` (the OTLP ExportTraceServiceRequest itself, in ``intake_content`` chunks).
    content_format: str = Field(default="records", max_length=40, sa_column_kwargs={"server_default": "records"})
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class IntakeContent(SQLModel, table=True):
    """One chunk of a batch's stored content (``content_format`` other than ``records``), in order: the
    content is the concatenation of its chunks, and the batch's ``content_digest`` is SHA-256 over it.
    Immutable like its batch."""

    __tablename__ = "intake_content"

    # No foreign key: written before the batch row, in the same transaction (as records are).
    batch_id: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    data: bytes = Field(sa_type=LargeBinary)


class IntakeEvent(SQLModel, table=True):
    """The event ids a binder has stored (every adapter's), each once: the deduplication index of intake.
    Immutable like the batches."""

    __tablename__ = "intake_event"
    __table_args__ = {"sqlite_with_rowid": False}

    binder_id: str = Field(primary_key=True, max_length=64)
    event_id: str = Field(primary_key=True, max_length=255)
    # The batch that claimed it: a finished one (its ``intake_batch`` row exists) or one in flight.
    batch_id: str = Field(max_length=64, index=True)


class IntakeInflight(SQLModel, table=True):
    """A big intake batch being written in bounded transactions (docs/intake.md, "Big batches"). Each of
    its transactions claims its own event ids and renews ``heartbeat_at``; the last one writes the batch
    row and removes this one. ``state`` is ``writing``, or ``failed`` while an abandoned batch's rows are
    removed (its writer failed, or its heartbeat went stale: a writer that vanished). Until then the
    batch's records, content and event ids may be deleted; a finished batch's never."""

    __tablename__ = "intake_inflight"

    batch_id: str = Field(primary_key=True, max_length=64)
    binder_id: str = Field(max_length=64)
    state: str = Field(max_length=16)
    started_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    heartbeat_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class IntakeRecord(SQLModel, table=True):
    """One normalized record of an intake batch, as RFC 8785 canonical JSON. Immutable like its batch.

    ``event_id`` is unique per binder: a record whose event id the binder has already taken is a duplicate
    and is not stored again."""

    __tablename__ = "intake_record"
    __table_args__ = (UniqueConstraint("binder_id", "event_id", name="uq_intake_record_event"),)

    # No foreign key: the records are written before their batch row, whose counts and digest are known
    # only at the end (and which can never be updated); one transaction holds them together.
    batch_id: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    binder_id: str = Field(max_length=64)
    event_id: str | None = Field(default=None, max_length=255)
    record_json: str = Field(sa_type=Text)


class IdempotencyRecord(SQLModel, table=True):
    """The first successful answer to a request carrying an ``Idempotency-Key``, replayed on retries.

    Scoped to organization + API key + route (contract part 8); ``request_digest`` is the canonical
    digest of the request body, so a retry with a different payload is told apart.
    """

    __tablename__ = "idempotency_record"
    __table_args__ = (
        UniqueConstraint("organization_id", "api_key_id", "route", "idempotency_key", name="uq_idempotency_scope"),
    )

    id: int | None = Field(default=None, primary_key=True)
    organization_id: str = Field(foreign_key="organization.id", max_length=64)
    api_key_id: str = Field(max_length=64)
    route: str = Field(max_length=100)
    idempotency_key: str = Field(max_length=255)
    request_digest: str = Field(max_length=80)
    response_status: int
    response_body: str = Field(sa_type=Text)
    resource_id: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


RunStatus = Literal["QUEUED", "RUNNING", "COMPLETED", "FAILED"]
RUN_STATUSES: tuple[RunStatus, ...] = ("QUEUED", "RUNNING", "COMPLETED", "FAILED")


class Run(SQLModel, table=True):
    """An assurance run: the frozen request, its progress, and the Evaluation it persisted."""

    __tablename__ = "assurance_run"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    api_key_id: str = Field(max_length=64)
    status: str = Field(default="QUEUED", index=True, max_length=20)
    stage: str | None = Field(default=None, max_length=40)
    request_json: str = Field(sa_type=Text)
    plan_json: str = Field(sa_type=Text)
    static_execution_mode: str | None = Field(default=None, max_length=20)
    jurisdiction: str | None = Field(default=None, max_length=40)
    attempts: int = Field(default=0)
    claimed_by: str | None = Field(default=None, max_length=64)
    lease_expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    failure: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    evaluation_id: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    completed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Evaluation(SQLModel, table=True):
    """A persisted Evaluation. Immutable: database triggers refuse every UPDATE and DELETE."""

    __tablename__ = "evaluation"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    run_id: str = Field(unique=True, max_length=64)
    status: str = Field(default="FINAL", max_length=20)
    disposition: str = Field(max_length=10)
    methodology_version: str = Field(max_length=60)
    core_truth_digest: str = Field(max_length=80)
    evidence_bundle_digest: str = Field(max_length=80)
    # The payload as RFC 8785 canonical JSON: reads are byte-identical forever.
    payload_json: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class EvaluationEvidence(SQLModel, table=True):
    """One member of an Evaluation's frozen evidence membership. Immutable like the Evaluation."""

    __tablename__ = "evaluation_evidence"

    evaluation_id: str = Field(foreign_key="evaluation.id", primary_key=True, max_length=64)
    evidence_id: str = Field(primary_key=True, max_length=64)
    kind: str = Field(max_length=40)
    producer_id: str = Field(max_length=60)
    content_digest: str = Field(max_length=80)
    payload_json: str = Field(sa_type=Text)


class Assessment(SQLModel, table=True):
    """A wizard assessment of an AI System under one framework: the answers given so far (by question id)
    and the data sets attached (by dataset id, the id of an immutable ``assessment_data`` row). Runs
    freeze a snapshot of it; later answers never reach an existing Evaluation."""

    __tablename__ = "assessment"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    framework: str = Field(max_length=40)
    # The law pack in force when the assessment was created (a run resolves the pack of its own date).
    pack_version: str = Field(max_length=40)
    answers: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    data: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # Incremented by every change; a write applies only to the revision it read (no lost update).
    revision: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class AssessmentData(SQLModel, table=True):
    """A data file attached to an assessment: its digest and the figures computed from it (RFC 8785 JSON).
    Immutable: triggers refuse every UPDATE and DELETE, so a run that froze it reads what it froze."""

    __tablename__ = "assessment_data"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    assessment_id: str = Field(foreign_key="assessment.id", index=True, max_length=64)
    dataset: str = Field(max_length=60)
    # historical or test (6 RCNY § 5-302: test data only when historical data is insufficient).
    kind: str = Field(max_length=20)
    file_name: str = Field(max_length=200)
    content_digest: str = Field(max_length=80)
    byte_count: int
    row_count: int
    figures_json: str = Field(sa_type=Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class DashboardUser(SQLModel, table=True):
    """A person who signs in to the dashboard. ``email`` is stored trimmed and lowercased (one account per
    address); ``password_hash`` is an Argon2id PHC string. A disabled user cannot sign in, and every session
    of theirs stops working at once."""

    __tablename__ = "dashboard_user"

    id: str = Field(primary_key=True, max_length=64)
    email: str = Field(unique=True, max_length=254)
    password_hash: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    disabled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Membership(SQLModel, table=True):
    """A user's role in one organization: the only way a user sees an organization's pages."""

    __tablename__ = "dashboard_membership"

    user_id: str = Field(foreign_key="dashboard_user.id", primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", primary_key=True, index=True, max_length=64)
    role: str = Field(max_length=10)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    # Set when an owner or admin disables the member in this organization (their account and other
    # organizations are untouched); a disabled membership opens no page of the organization.
    disabled_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DashboardInvitation(SQLModel, table=True):
    """A link to join an organization with a role, issued by an owner or admin (or ``assay admin user
    invite``). Only the SHA-256 of its random token is stored; it works once, until ``expires_at``, unless
    revoked."""

    __tablename__ = "dashboard_invitation"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    email: str = Field(max_length=254)
    role: str = Field(max_length=10)
    token_hash: str = Field(unique=True, max_length=64)
    # Who issued it: a user's email, or "assay admin" for the command line.
    issued_by: str = Field(max_length=254)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class DashboardSession(SQLModel, table=True):
    """A signed-in browser. ``id`` is the SHA-256 of the cookie's token (the token itself is never stored);
    ``csrf_token`` is the synchronizer token every form of this session carries."""

    __tablename__ = "dashboard_session"

    id: str = Field(primary_key=True, max_length=64)
    user_id: str = Field(foreign_key="dashboard_user.id", index=True, max_length=64)
    csrf_token: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    last_seen_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)


class LoginFailure(SQLModel, table=True):
    """One failed sign-in, for throttling: counted per email and per client address over a window, in the
    database so that every replica counts the same failures."""

    __tablename__ = "dashboard_login_failure"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, max_length=254)
    client: str = Field(index=True, max_length=64)
    at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True)


class RiskAcceptance(SQLModel, table=True):
    """A reason of an AI System accepted as a known risk (docs/methodology.md, "Risk acceptances"): by its
    stable fingerprint, with an owner, a justification and the last day it applies. Runs created while it is
    neither revoked nor expired freeze it into their evidence; an existing Evaluation never changes. Rows are
    never deleted: revoking sets ``revoked_at``, so the page keeps the history of decisions."""

    __tablename__ = "risk_acceptance"

    id: str = Field(primary_key=True, max_length=64)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=64)
    ai_system_id: str = Field(foreign_key="ai_system.id", index=True, max_length=64)
    # The Evaluation the reason was accepted from (where the person read it).
    evaluation_id: str = Field(foreign_key="evaluation.id", max_length=64)
    fingerprint: str = Field(max_length=80)
    rule_id: str = Field(max_length=40)
    message: str = Field(sa_type=Text)
    owner: str = Field(max_length=200)
    justification: str = Field(sa_type=Text)
    # The last day (UTC, ISO 8601 YYYY-MM-DD) the acceptance applies to a run created on it.
    expires_on: str = Field(max_length=10)
    recorded_by: str = Field(max_length=254)
    recorded_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    revoked_by: str | None = Field(default=None, max_length=254)
