"""The passport's AI-BOM: a CycloneDX 1.6 document of the AI System, its models, tools and actions.

The AI System is the main component (``metadata.component``). Models are named by the model id the code
names (``ModelUse.model``: a literal or a default), else by the API called. Tools are components and
actions are services (what the system calls out to), and ``dependencies`` draws the chain a reviewer
reads: the system depends on its models, each model on the tools it is given, each tool on the actions
it reaches. The serial number and timestamp come from the Evaluation, so the document is deterministic.
"""

from __future__ import annotations

import uuid
from typing import Any

from assay.backend.evaluation.membership import EvidenceMembership

SPEC_VERSION = "1.6"
# A fixed namespace for the serial numbers: uuid5 of it and the Evaluation's identity.
_SERIAL_NAMESPACE = uuid.UUID("0f6d1c3e-9a57-5b8e-8f3c-5a55a7a55a7a")


def serial_number(evaluation_id: str, core_truth_digest: str) -> str:
    """``urn:uuid:`` derived from the Evaluation: the same Evaluation always gets the same serial number."""
    return f"urn:uuid:{uuid.uuid5(_SERIAL_NAMESPACE, f'{evaluation_id}|{core_truth_digest}')}"


def build_ai_bom(
    membership: EvidenceMembership,
    *,
    evaluation_id: str,
    core_truth_digest: str,
    ai_system_id: str,
    system_name: str | None = None,
    evaluated_at: str | None = None,
) -> dict[str, Any]:
    system_ref = f"ai-system:{ai_system_id}"
    models: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    actions: dict[str, dict[str, Any]] = {}
    reaches: dict[str, set[str]] = {}
    engines: dict[str, str] = {}
    for _, bundle in membership.bundles():
        engines[bundle.producer.engine] = bundle.producer.engineVersion
        tool_refs = {tool.id: f"tool:{tool.name}" for tool in bundle.tools}
        for model in bundle.models:
            name = model.model or model.api
            ref = f"model:{model.provider}:{name}"
            entry = models.setdefault(
                ref,
                {
                    "type": "machine-learning-model",
                    "bom-ref": ref,
                    "name": name,
                    "group": model.provider,
                    "properties": [
                        {"name": "assay:provider", "value": model.provider},
                        {"name": "assay:modelIdKnown", "value": "true" if model.model else "false"},
                    ],
                },
            )
            api = {"name": "assay:api", "value": model.api}
            if api not in entry["properties"]:
                entry["properties"].append(api)
        for tool in bundle.tools:
            ref = tool_refs[tool.id]
            tools[ref] = {
                "type": "application",
                "bom-ref": ref,
                "name": tool.name,
                "description": tool.description or "",
                "properties": [{"name": "assay:framework", "value": tool.framework}],
            }
            reaches.setdefault(ref, set())
        for action in bundle.actions:
            ref = f"action:{action.actionClass}:{action.target}"
            actions.setdefault(
                ref,
                {
                    "bom-ref": ref,
                    "name": action.target,
                    "group": action.actionClass,
                    "properties": [
                        {"name": "assay:actionClass", "value": action.actionClass},
                        {"name": "assay:impact", "value": action.impact},
                    ],
                },
            )
            for path in action.reachedFrom:
                if path.toolId in tool_refs:
                    reaches.setdefault(tool_refs[path.toolId], set()).add(ref)
    for entry in models.values():
        entry["properties"].sort(key=lambda p: (p["name"], p["value"]))
    tool_list = sorted(tools)
    dependencies = [{"ref": system_ref, "dependsOn": sorted(models) or tool_list}]
    dependencies += [{"ref": ref, "dependsOn": tool_list} for ref in sorted(models)]
    dependencies += [{"ref": ref, "dependsOn": sorted(reaches[ref])} for ref in tool_list]
    dependencies += [{"ref": ref, "dependsOn": []} for ref in sorted(actions)]
    metadata: dict[str, Any] = {
        "tools": {
            "components": [
                {"type": "application", "bom-ref": f"assay-engine:{name}", "name": name, "version": version}
                for name, version in sorted(engines.items())
            ]
        },
        "component": {"type": "application", "bom-ref": system_ref, "name": system_name or ai_system_id},
    }
    if evaluated_at is not None:
        metadata = {"timestamp": evaluated_at, **metadata}
    return {
        "bomFormat": "CycloneDX",
        "specVersion": SPEC_VERSION,
        "serialNumber": serial_number(evaluation_id, core_truth_digest),
        "version": 1,
        "metadata": metadata,
        "components": [models[k] for k in sorted(models)] + [tools[k] for k in tool_list],
        "services": [actions[k] for k in sorted(actions)],
        "dependencies": dependencies,
    }
