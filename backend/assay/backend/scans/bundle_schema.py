"""The JSON Schema of Evidence Bundle v1.0.0, generated from the pydantic models in ``bundle.py``.

It is published as ``docs/evidence-bundle-1.0.0.schema.json`` (regenerate with
``python -m assay.backend.scans.bundle_schema > docs/evidence-bundle-1.0.0.schema.json``) and used to
validate scan submissions, so producers that are not Assay get the same rules.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from assay.backend.scans.bundle import SCHEMA_VERSION, EvidenceBundle

SCHEMA_ID = f"https://assay.dev/schemas/evidence-bundle-{SCHEMA_VERSION}.schema.json"


@cache
def _schema_text() -> str:
    schema = EvidenceBundle.model_json_schema(mode="validation")
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"Assay Evidence Bundle v{SCHEMA_VERSION}",
        **schema,
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def bundle_json_schema() -> dict[str, Any]:
    """A fresh copy of the schema as a JSON object."""
    value: dict[str, Any] = json.loads(_schema_text())
    return value


def main() -> None:
    print(_schema_text(), end="")


if __name__ == "__main__":
    main()
