"""The pages behind a finished run's links (filled in by the evaluation pages)."""

from __future__ import annotations

from assay.backend.dashboard.access import Endpoint

PAGES: list[tuple[str, Endpoint]] = []
