"""The shape of an adapter's statements (see ``adapters/__init__.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# The route families of docs/intake.md; a binder's adapter says which of them it accepts.
IntakeRoute = Literal["structured", "log", "otlpTraces", "otlpMetrics", "otlpLogs", "sarif"]
ProducerId = Literal["structured-ingress", "sarif-import"]

# The authority planes of the methodology (docs/methodology.md); adapters state which they can speak to.
PLANES = ("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "OBSERVED")


@dataclass(frozen=True, slots=True)
class AdapterSpec:
    """One adapter's statements. ``routes`` maps each accepted route to the kind of batch it makes."""

    id: str
    version: str
    producer_id: ProducerId
    routes: Mapping[IntakeRoute, str]
    evidence_classes: tuple[str, ...]
    can_establish: tuple[str, ...]
    cannot_establish: tuple[str, ...]
    coverage_semantics: Mapping[str, Any]
    limitations: tuple[Mapping[str, str], ...] = field(default=())
    access_method: str = "push"
