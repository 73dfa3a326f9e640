"""Per-file facts: what a language analyzer extracts from one file, before files are linked.

Each analyzer (Python through ``ast``, JavaScript/TypeScript through tree-sitter) turns one file into
a ``FileFacts``. Facts depend only on the file's bytes, its path and the rule pack, so they are cached
by content digest. The linker (``link.py``) then joins the files of a tree: it resolves calls across
files, finds which actions each tool reaches, which gates dominate them, and which model-chosen data
reaches a sink.

Naming: a function's ``qualname`` is the name other files use to call it. For Python it is the dotted
module path plus the nested name (``pkg.helpers.run_cmd``, ``pkg.agent.Agent.step``); for JS/TS it is
the module path without extension, ``#``, and the exported or local name (``src/helpers#runCmd``).
A ``CallFact.callee`` is the analyzer's best resolution of the called name in that same scheme; for
library calls it is the library's dotted name (``subprocess.run``, ``child_process.exec``).
Top-level statements of a file form a pseudo-function named ``<module>`` (qualname ``<module path>.<module>``
for Python, ``<module path>#<module>`` for JS/TS).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.backend.scans.bundle import (
    ActionClass,
    FrontierKind,
    GateKind,
    Impact,
    Language,
    Location,
)

FACTS_VERSION = "1"

# A function's gates that hold whenever it returns normally are recorded as a call to ``EXIT`` whose
# ``dominatingGates`` they are; a gate id ``AFTER + <callee>`` in a caller stands for the gates that
# hold after a call to ``<callee>`` returned (the linker replaces it by the callee's ``EXIT`` gates).
EXIT = "<exit>"
AFTER = "after:"


class _Facts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaintOrigin(_Facts):
    """Where a value may come from, as far as taint is concerned.

    - ``model_output``: the result of a model call at ``location``;
    - ``param``: the enclosing function's parameter ``param`` (a name; positional index in ``index``);
    - ``call_return``: whatever the function ``callee`` returns (resolved by the linker).
    """

    kind: Literal["model_output", "param", "call_return"]
    location: Location | None = None
    param: str | None = None
    index: int | None = None
    callee: str | None = None


class ArgTaint(_Facts):
    """A call argument that may carry taint: position ``index`` or keyword ``keyword``."""

    index: int | None = None
    keyword: str | None = None
    origins: list[TaintOrigin]


class CallFact(_Facts):
    location: Location
    callee: str
    resolved: bool = Field(description="False when the callee is a guess (e.g. a method on an unknown object).")
    dominatingGates: list[str] = Field(default_factory=list, description="GateSite ids in the same function.")
    args: list[ArgTaint] = Field(default_factory=list)


class GateSite(_Facts):
    id: str
    kind: GateKind
    ruleId: str
    location: Location
    detail: str | None = None


class ActionSite(_Facts):
    id: str
    actionClass: ActionClass
    impact: Impact
    ruleId: str
    target: str
    location: Location
    dominatingGates: list[str] = Field(default_factory=list)
    taint: list[TaintOrigin] = Field(default_factory=list, description="Origins of data reaching the sink.")


class FunctionFacts(_Facts):
    id: str
    qualname: str
    name: str
    location: Location
    params: list[str] = Field(default_factory=list)
    calls: list[CallFact] = Field(default_factory=list)
    actions: list[ActionSite] = Field(default_factory=list)
    gates: list[GateSite] = Field(default_factory=list)
    returns: list[TaintOrigin] = Field(default_factory=list, description="Origins of returned values.")


class ModelSite(_Facts):
    id: str
    provider: str
    api: str
    via: Literal["sdk", "http"]
    ruleId: str
    location: Location
    model: str | None = Field(default=None, description="The model id the call names, when the code names it.")


class ToolDef(_Facts):
    id: str
    name: str
    description: str | None = None
    framework: str
    ruleId: str
    location: Location
    function: str | None = Field(default=None, description="qualname of the implementing function.")
    parameters: list[str] = Field(default_factory=list)
    annotations: dict[str, bool] = Field(default_factory=dict)


class FrontierSite(_Facts):
    id: str
    kind: FrontierKind
    detail: str
    location: Location | None = None
    ruleId: str | None = None


class FileFacts(_Facts):
    path: str
    language: Language
    digest: str
    lines: int
    module: str
    parseError: str | None = None
    functions: list[FunctionFacts] = Field(default_factory=list)
    models: list[ModelSite] = Field(default_factory=list)
    tools: list[ToolDef] = Field(default_factory=list)
    frontier: list[FrontierSite] = Field(default_factory=list)
