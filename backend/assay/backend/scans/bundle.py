"""Evidence Bundle v1.0.0: what the static engine produces and what ``POST /api/v1/scans`` accepts.

The bundle carries locations (path, line, column) and digests, never source text or snippets. Every
identifier in it is derived from content, and it holds no timestamps, so scanning the same tree twice
gives byte-identical bundles. ``contentHash`` is ``sha256:<hex>`` over the RFC 8785 canonical JSON of
the bundle without ``contentHash`` itself.

The JSON Schema published under ``docs/evidence-bundle-1.0.0.schema.json`` is generated from these
models (``assay.backend.scans.bundle_schema``); a test keeps the two in step.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from assay.backend.canonical import digest_json

SCHEMA_VERSION: Literal["1.0.0"] = "1.0.0"
BUNDLE_TYPE: Literal["assay.evidence-bundle"] = "assay.evidence-bundle"

ActionClass = Literal[
    "shell.exec",
    "code.exec",
    "file.write",
    "file.delete",
    "network.egress",
    "db.write",
    "message.send",
    "payment",
    "cloud.change",
    "privilege.change",
    "secret.access",
    "sql.exec",
    "file.read",
    "db.read",
    "credential.read",
]
Impact = Literal["critical", "high", "medium", "low"]
GateKind = Literal[
    "human_approval",
    "permission_check",
    "allowlist",
    "rate_limit",
    "spend_limit",
    "sandbox",
    "path_containment",
    "authentication",
    # kept so bundles made before 1.0.0's engine update still validate; the engine no longer emits it:
    # an MCP annotation is a disclosure, not a gate
    "tool_annotation",
]
FrontierKind = Literal[
    "dynamic_dispatch",
    "config_registered_tools",
    "runtime_registered_tools",
    "unresolved_call",
    "parse_error",
    "unsupported_language",
    "skipped_file",
    "invalid_declaration",
]
SkipReason = Literal[
    "binary",
    "too_large",
    "invalid_encoding",
    "symlink_outside_tree",
    "symlink_inside_tree",
    "unreadable",
    "ignored_directory",
    "unsupported_language",
    "excluded",
    "test_code",
]
Severity = Literal["critical", "high", "medium", "low", "info"]
Language = Literal["python", "javascript", "typescript", "tsx"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Location(_Model):
    """A place in the scanned tree. ``path`` is POSIX, relative to the tree root; line and column are 1-based."""

    path: str
    line: int = Field(ge=1)
    column: int = Field(ge=1)
    endLine: int | None = Field(default=None, ge=1)


class RulePackRef(_Model):
    id: str
    version: str
    digest: str


class Producer(_Model):
    id: Literal["ci-cd-scanner"] = "ci-cd-scanner"
    engine: str = "assay-static"
    engineVersion: str
    rulePack: RulePackRef


class SourceIdentity(_Model):
    """The local workspace the bundle was made from (contract 2.7 ``sourceIdentity``)."""

    version: str = "1.0.0"
    sourceKind: Literal["LOCAL_WORKSPACE"] = "LOCAL_WORKSPACE"
    gitRemote: str | None = None
    gitCommit: str | None = None
    branch: str | None = None
    dirty: bool | Literal["unknown"] = "unknown"
    workspaceDigest: str
    pathSetDigest: str


class FileSet(_Model):
    """A set of files: how many, and the digest of their sorted ``[path, contentDigest]`` pairs."""

    count: int = Field(ge=0)
    digest: str


class AnalysedFile(_Model):
    path: str
    language: Language
    digest: str
    lines: int = Field(ge=0)


class SkippedFile(_Model):
    path: str
    reason: SkipReason
    detail: str | None = None


class Coverage(_Model):
    discovered: FileSet
    analysed: FileSet
    skipped: FileSet
    files: list[AnalysedFile]
    skippedFiles: list[SkippedFile]
    languages: dict[str, int]
    parseErrors: int = Field(ge=0)
    complete: bool = Field(description="True when every discovered source file was analysed without error.")
    excluded: list[str] = Field(
        default_factory=list,
        description="The exclude patterns in effect (assay.toml `exclude`, then the scanner's own), gitignore "
        "syntax; each path they left out is a skippedFiles entry with reason `excluded`. Absent when none.",
    )

    @model_serializer(mode="wrap")
    def _without_empty_excluded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A bundle made with no exclude patterns is the bundle it was before they existed, byte for byte.
        data: dict[str, Any] = handler(self)
        if not self.excluded:
            data.pop("excluded", None)
        return data


class ModelUse(_Model):
    """A call to a model provider, by SDK or raw HTTP."""

    id: str
    provider: str
    api: str
    via: Literal["sdk", "http"]
    ruleId: str
    location: Location
    model: str | None = Field(
        default=None, description="The model id behind the call when the code names it (a literal or a default)."
    )


class Tool(_Model):
    """A tool the system gives to models."""

    id: str
    name: str
    description: str | None = None
    framework: str
    ruleId: str
    location: Location
    function: str | None = Field(default=None, description="Id of the function that implements the tool.")
    parameters: list[str] = Field(default_factory=list)
    annotations: dict[str, bool] = Field(default_factory=dict)


class ToolPath(_Model):
    """How an action is reached from a tool: the chain of call sites from the tool's function to the sink."""

    toolId: str
    calls: list[Location]
    gateIds: list[str] = Field(description="Gates that dominate the action on this path.")


class Action(_Model):
    """A code-capable action: a sink of a class from the documented taxonomy."""

    id: str
    actionClass: ActionClass
    impact: Impact
    ruleId: str
    target: str = Field(description="The API reached, such as subprocess.run or stripe.Refund.create.")
    location: Location
    function: str | None = None
    reachedFrom: list[ToolPath] = Field(default_factory=list)
    gateIds: list[str] = Field(
        default_factory=list, description="Gates that dominate the action on every path that reaches it."
    )


class Gate(_Model):
    id: str
    kind: GateKind
    ruleId: str
    location: Location
    function: str | None = None
    detail: str | None = None


class TaintFlow(_Model):
    """Model-chosen data (a model's output or a tool argument) reaching an action's sink."""

    id: str
    ruleId: str
    sourceKind: Literal["model_output", "tool_argument"]
    source: Location
    sink: Location
    actionId: str
    actionClass: ActionClass
    path: list[Location]


class DeclaredAction(_Model):
    actionClass: ActionClass
    tools: list[str] = Field(default_factory=list)
    description: str | None = None
    requiresApproval: bool = False
    conditions: list[str] = Field(default_factory=list)


class DeclaredScenario(_Model):
    id: str
    states: list[str]
    description: str | None = None


class Declaration(_Model):
    """The declared reach, from the repository's declaration file (see docs/declaration.md)."""

    path: str
    digest: str
    version: str
    system: str | None = None
    purpose: str | None = None
    jurisdictions: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    actions: list[DeclaredAction] = Field(default_factory=list)
    scenarios: list[DeclaredScenario] = Field(default_factory=list)


class FrontierItem(_Model):
    """Something analysis could not resolve. Never silently dropped."""

    id: str
    kind: FrontierKind
    detail: str
    location: Location | None = None
    path: str | None = None
    ruleId: str | None = None


class Finding(_Model):
    """A rule-level observation of the static engine, with the places it rests on."""

    id: str
    ruleId: str
    category: Literal[
        "model_output_to_execution",
        "ungated_high_impact_action",
        "undeclared_action",
        "declared_not_found",
        "undeclared_tool",
        "approval_declared_not_enforced",
        "unresolved_reach",
        "annotation_contradicted",
    ]
    severity: Severity
    message: str
    locations: list[Location]
    relatedIds: list[str] = Field(default_factory=list)


class EvidenceBundle(_Model):
    schemaVersion: Literal["1.0.0"] = SCHEMA_VERSION
    bundleType: Literal["assay.evidence-bundle"] = BUNDLE_TYPE
    producer: Producer
    sourceIdentity: SourceIdentity
    coverage: Coverage
    models: list[ModelUse]
    tools: list[Tool]
    actions: list[Action]
    gates: list[Gate]
    taintFlows: list[TaintFlow]
    declaration: Declaration | None
    frontier: list[FrontierItem]
    findings: list[Finding]
    limitations: list[str]
    contentHash: str

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def content_hash(bundle_without_hash: dict[str, Any]) -> str:
    """The contentHash of a bundle given as a JSON dict (any ``contentHash`` member is ignored)."""
    body = {k: v for k, v in bundle_without_hash.items() if k != "contentHash"}
    return digest_json(body)
