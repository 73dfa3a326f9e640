"""The intake adapters, as data: what each reads, what its records can and cannot establish, and what its
coverage means. One small module per adapter holds its :class:`AdapterSpec` and its record normalizer.

A binder names one adapter; ``assay admin binder create`` copies the adapter's statements into the binder,
and ``GET /api/v1/evidence/binders`` returns them (contract 2.9).
"""

from __future__ import annotations

from collections.abc import Mapping

from assay.backend.intake.adapters import log, otlp, sarif, structured
from assay.backend.intake.adapters.spec import AdapterSpec

ADAPTERS: Mapping[str, AdapterSpec] = {spec.id: spec for spec in (otlp.SPEC, structured.SPEC, log.SPEC, sarif.SPEC)}


def adapter(adapter_id: str) -> AdapterSpec | None:
    """The adapter with this id, or None."""
    return ADAPTERS.get(adapter_id)
