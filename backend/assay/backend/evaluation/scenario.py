"""The Evaluation-bound scenario snapshot: declared scenarios compared with transitions seen in the
frozen evidence, in declared order only (never timestamps)."""

from __future__ import annotations

from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.evaluation.view import EvidenceView


def scenario_snapshot(view: EvidenceView) -> dict[str, Any]:
    decl = view.declaration
    scenarios = []
    limitations: list[str] = []
    for scenario in decl.scenarios if decl else []:
        scenarios.append(
            {
                "scenarioId": scenario.id,
                "status": "EVIDENCE_NEEDED",
                "states": list(scenario.states),
                "declaredOrder": [[a, b] for a, b in zip(scenario.states, scenario.states[1:], strict=False)],
                "transitions": [],
                "earliestDivergence": None,
            }
        )
    if decl is None:
        status = "NOT_ASSESSED"
        limitations.append("No declaration: no scenario is declared, so none can be compared.")
    elif not scenarios:
        status = "NOT_ASSESSED"
        limitations.append("The declaration declares no scenario.")
    else:
        status = "EVIDENCE_NEEDED"
        limitations.append(
            "No runtime evidence in the membership: no transition was observed, so no divergence can be established."
        )
    body = {"status": status, "scenarios": scenarios, "limitations": limitations}
    return {**body, "snapshotDigest": digest_json(body)}
