"""The declaration file ``assay.toml``: what the system's owners declare it may do (its declared reach).

Format (documented in docs/declaration.md)::

    version = "1"
    system = "refund-agent"
    purpose = "Answers refund requests; issues refunds up to 100 USD after human approval."
    jurisdictions = ["eu_ai_act"]
    tools = ["lookup_order", "issue_refund"]

    [[actions]]
    class = "payment"
    tools = ["issue_refund"]
    description = "Refunds to the original card"
    requires_approval = true
    conditions = ["amount <= 100 USD"]

    [[scenarios]]
    id = "refund"
    states = ["receive_request", "verify_identity", "approve", "issue_refund"]

An invalid file is never fatal to a scan: it becomes an ``invalid_declaration`` frontier item and a
limitation, and the bundle carries no declaration.
"""

from __future__ import annotations

import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.walk import DECLARATION_FILENAME, ExcludeError, exclude_spec
from assay.backend.scans.bundle import ActionClass, Declaration, DeclaredAction, DeclaredScenario

DECLARATION_VERSION = "1"
_MAX_DECLARATION_BYTES = 1024 * 1024


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _ActionEntry(_File):
    action_class: ActionClass = Field(alias="class")
    tools: list[str] = Field(default_factory=list)
    description: str | None = None
    requires_approval: bool = False
    conditions: list[str] = Field(default_factory=list)


class _ScenarioEntry(_File):
    id: str = Field(min_length=1)
    states: list[str] = Field(min_length=2)
    description: str | None = None


class _RuntimeEntry(_File):
    # How to start the workspace's own MCP server over stdio; read by the MCP workspace assessment
    # (docs/runtime.md), not by the static engine.
    mcp_command: str = Field(min_length=1)


class _DeclarationFile(_File):
    version: str = Field(pattern=r"^1$")
    system: str | None = None
    purpose: str | None = None
    jurisdictions: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    actions: list[_ActionEntry] = Field(default_factory=list)
    scenarios: list[_ScenarioEntry] = Field(default_factory=list)
    runtime: _RuntimeEntry | None = None
    # Paths left out of the scan (gitignore syntax): read before the walk, by declared_exclusions.
    exclude: list[str] = Field(default_factory=list)
    # Whether test code counts as the system's (testcode.py): read before the walk, by declared_include_tests.
    include_tests: StrictBool = False  # "yes" or 1 is an error, never read as true

    @field_validator("exclude")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        exclude_spec(value)  # an ExcludeError is a ValueError: the declaration is invalid, and says why
        return value


@dataclass(frozen=True, slots=True)
class DeclarationResult:
    declaration: Declaration | None
    error: str | None = None


def _raw_declaration(root: Path) -> dict[str, object]:
    """The TOML table of ``root``'s declaration file; empty when the file is missing, not a regular file,
    or not TOML (parse_declaration reports why)."""
    path = root / DECLARATION_FILENAME
    try:
        if not stat.S_ISREG(path.lstat().st_mode) or path.stat().st_size > _MAX_DECLARATION_BYTES:
            return {}
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def declared_include_tests(root: Path) -> bool:
    """Whether ``root``'s declaration file says ``include_tests = true``; false when it does not, or the
    file is missing or unreadable as a declaration."""
    return _raw_declaration(root).get("include_tests") is True


def declared_exclusions(root: Path) -> list[str]:
    """The ``exclude`` patterns of ``root``'s declaration file, as written; none when the file is missing,
    not a regular file, or unreadable as a declaration (parse_declaration reports why)."""
    patterns = _raw_declaration(root).get("exclude")
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        return []
    try:
        exclude_spec(patterns)
    except ExcludeError:
        return []
    return list(patterns)


def parse_declaration(path: str, data: bytes) -> DeclarationResult:
    """Parse ``assay.toml``; on any problem return the error text instead of raising."""
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return DeclarationResult(None, f"{path}: not valid UTF-8")
    except tomllib.TOMLDecodeError as exc:
        return DeclarationResult(None, f"{path}: invalid TOML: {exc}")
    try:
        parsed = _DeclarationFile.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(file)'}: {err['msg']}" for err in exc.errors()
        )
        return DeclarationResult(None, f"{path}: {problems}")
    return DeclarationResult(
        Declaration(
            path=path,
            digest=digest_bytes(data),
            version=parsed.version,
            system=parsed.system,
            purpose=parsed.purpose,
            jurisdictions=sorted(set(parsed.jurisdictions)),
            tools=sorted(set(parsed.tools)),
            actions=sorted(
                (
                    DeclaredAction(
                        actionClass=a.action_class,
                        tools=sorted(set(a.tools)),
                        description=a.description,
                        requiresApproval=a.requires_approval,
                        conditions=list(a.conditions),
                    )
                    for a in parsed.actions
                ),
                key=lambda a: (a.actionClass, a.tools),
            ),
            # Scenario states keep their declared order: that order is what the snapshot compares.
            scenarios=sorted(
                (DeclaredScenario(id=s.id, states=list(s.states), description=s.description) for s in parsed.scenarios),
                key=lambda s: s.id,
            ),
        )
    )
