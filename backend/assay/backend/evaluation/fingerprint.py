"""A reason's stable fingerprint: its rule and its message with ``path:line`` reduced to ``path``, and its
rank among equal ones, so moving code does not make a reason new. ``assay check`` baselines, SARIF
``partialFingerprints``, the dashboard's comparisons and risk acceptances (evaluation/acceptance.py) all
name a reason by it."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

# "ops_agent/tools.py:37" -> "ops_agent/tools.py": a location's line is not part of what a reason is.
_LINE = re.compile(r"(\S):\d+(?::\d+)?\b")


def line_free(text: str) -> str:
    """``text`` with the ``:LINE`` (and ``:COLUMN``) after every path-like token removed."""
    return _LINE.sub(r"\1", text)


def fingerprints(items: Sequence[tuple[str, str]]) -> list[str]:
    """Stable ids for ``(ruleId, message)`` pairs, in order; equal pairs are told apart by their rank."""
    seen: Counter[str] = Counter()
    out: list[str] = []
    for rule_id, message in items:
        base = f"{rule_id}\n{line_free(message)}"
        seen[base] += 1
        digest = hashlib.sha256(f"{base}\n{seen[base]}".encode()).hexdigest()
        out.append(f"{digest[:32]}:{seen[base]}")
    return out
