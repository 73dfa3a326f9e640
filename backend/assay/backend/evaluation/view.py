"""One merged, read-only view of the evidence in a membership (static bundles merged, runtime records read), each element tagged with the
evidence item it came from (``evidenceRefs`` are ``<evidenceId>#<element id>``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from assay.backend.evaluation.membership import EvidenceMembership
from assay.backend.evaluation.runtime import RuntimeEvidence, read_runtime
from assay.backend.scans.bundle import (
    Action,
    Coverage,
    Declaration,
    DeclaredAction,
    EvidenceBundle,
    Finding,
    FrontierItem,
    Gate,
    ModelUse,
    TaintFlow,
    Tool,
)

HIGH_IMPACT = frozenset({"shell.exec", "code.exec", "payment", "file.delete", "message.send", "privilege.change"})
EXECUTION = frozenset({"shell.exec", "code.exec"})


@dataclass
class EvidenceView:
    evidence_ids: list[str] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)  # element id -> evidence id
    models: dict[str, ModelUse] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    gates: dict[str, Gate] = field(default_factory=dict)
    flows: dict[str, TaintFlow] = field(default_factory=dict)
    frontier: dict[str, FrontierItem] = field(default_factory=dict)
    findings: dict[str, Finding] = field(default_factory=dict)
    coverages: list[Coverage] = field(default_factory=list)
    runtime: RuntimeEvidence = field(default_factory=RuntimeEvidence)
    sarif: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (evidenceId, SARIF log)
    declaration: Declaration | None = None
    declaration_conflict: bool = False
    limitations: set[str] = field(default_factory=set)
    # What the questions, the items and the reasons each ask of every action, computed once per action
    # (by action id). The lists are shared, never mutated.
    _tool_names: dict[str, list[str]] = field(default_factory=dict)
    _gate_kinds: dict[str, list[str]] = field(default_factory=dict)
    _covering: dict[str, list[DeclaredAction]] = field(default_factory=dict)
    planes_by_action: dict[str, dict[str, str]] = field(default_factory=dict)  # filled by questions.planes
    _locations: dict[str, dict[str, Any]] = field(default_factory=dict)
    observed_cache: list[Any] | None = None  # the observed tools, filled by observed.observed_tools
    imported: list[Any] = field(default_factory=list)  # imported (SARIF) findings, set by the methodology
    # The runtime engine's recordings and the catalogue pins, as (evidenceId, payload); their reading is
    # cached by evaluation.probes.
    probes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    pins: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    probe_cache: list[Any] | None = None

    def ref(self, element_id: str) -> str:
        return f"{self.origin[element_id]}#{element_id}"

    def location(self, action: Action) -> dict[str, Any]:
        """The action's location as JSON values."""
        location = self._locations.get(action.id)
        if location is None:
            location = self._locations[action.id] = action.location.model_dump(mode="json")
        return location

    def tool_names(self, action: Action) -> list[str]:
        """The names of the tools that reach ``action``, sorted."""
        names = self._tool_names.get(action.id)
        if names is None:
            names = sorted({self.tools[p.toolId].name for p in action.reachedFrom if p.toolId in self.tools})
            self._tool_names[action.id] = names
        return names

    def gate_kinds(self, action: Action) -> list[str]:
        """The kinds of the gates that dominate ``action``, sorted."""
        kinds = self._gate_kinds.get(action.id)
        if kinds is None:
            kinds = self._gate_kinds[action.id] = sorted(
                {self.gates[g].kind for g in action.gateIds if g in self.gates}
            )
        return kinds

    def covering_declarations(self, action: Action) -> list[DeclaredAction]:
        """Declared actions of the same class given to a tool that reaches the action (or to any tool)."""
        if self.declaration is None:
            return []
        covering = self._covering.get(action.id)
        if covering is None:
            names = set(self.tool_names(action))
            covering = [
                d
                for d in self.declaration.actions
                if d.actionClass == action.actionClass and (not d.tools or not names or set(d.tools) & names)
            ]
            self._covering[action.id] = covering
        return covering


def build_view(membership: EvidenceMembership, known: Mapping[str, EvidenceBundle] | None = None) -> EvidenceView:
    """The merged view; ``known`` are bundles already validated as models, by evidence id."""
    view = EvidenceView()
    for item, bundle in membership.bundles(known):
        view.evidence_ids.append(item.evidenceId)
        _merge(view, item.evidenceId, view.models, bundle.models)
        _merge(view, item.evidenceId, view.tools, bundle.tools)
        _merge(view, item.evidenceId, view.actions, bundle.actions)
        _merge(view, item.evidenceId, view.gates, bundle.gates)
        _merge(view, item.evidenceId, view.flows, bundle.taintFlows)
        _merge(view, item.evidenceId, view.frontier, bundle.frontier)
        _merge(view, item.evidenceId, view.findings, bundle.findings)
        view.coverages.append(bundle.coverage)
        view.limitations.update(bundle.limitations)
        if bundle.declaration is not None:
            if view.declaration is None:
                view.declaration = bundle.declaration
                view.origin[f"declaration:{bundle.declaration.digest}"] = item.evidenceId
            elif view.declaration.digest != bundle.declaration.digest:
                view.declaration_conflict = True
    states = frozenset(
        s for scenario in (view.declaration.scenarios if view.declaration else []) for s in scenario.states
    )
    view.runtime = read_runtime(membership.runtime_batches(), states)
    view.sarif = list(membership.sarif_logs())
    view.probes = list(membership.of_kind("runtime_probe"))
    view.pins = list(membership.of_kind("catalogue_pin"))
    return view


_E = TypeVar("_E", ModelUse, Tool, Action, Gate, TaintFlow, FrontierItem, Finding)


def _merge(view: EvidenceView, evidence_id: str, collection: dict[str, _E], elements: Sequence[_E]) -> None:
    """Add elements not seen in an earlier item (identical ids name identical content)."""
    for element in elements:
        if element.id not in collection:
            collection[element.id] = element
            view.origin[element.id] = evidence_id
