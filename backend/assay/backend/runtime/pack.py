"""The probe pack: the runtime engine's suites and rules as versioned data (``pack/probe-pack.json``).

Its digest (SHA-256 over its RFC 8785 canonical JSON) enters every recording and the Evaluation, so an
Evaluation names exactly the rules that judged it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from assay.backend.canonical import digest_json

PACK_FILE = Path(__file__).resolve().parent / "pack" / "probe-pack.json"


@dataclass(frozen=True, slots=True)
class TextRule:
    id: str
    title: str
    pattern: re.Pattern[str]
    explanation: str
    precision: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ProbePack:
    id: str
    version: str
    digest: str
    data: dict[str, Any]
    poisoning: tuple[TextRule, ...]
    shadowing: TextRule
    exfiltration: TextRule
    # The ids of the text rules applied to the active suite's tool results too.
    result_rules: tuple[str, ...] = ()

    def ref(self) -> dict[str, str]:
        return {"id": self.id, "version": self.version, "digest": self.digest}

    def explanation(self, rule_id: str) -> str:
        for rule in (*self.poisoning, self.shadowing, self.exfiltration):
            if rule.id == rule_id:
                return rule.explanation
        for item in self.data["annotationRules"]:
            if item["id"] == rule_id:
                return str(item["explanation"])
        raise KeyError(rule_id)


def _rule(data: dict[str, Any]) -> TextRule:
    flags = re.IGNORECASE if "i" in data.get("flags", "") else 0
    return TextRule(
        id=data["id"],
        title=data["title"],
        pattern=re.compile(data["pattern"], flags),
        explanation=data["explanation"],
        precision=data.get("precision"),
    )


@cache
def load_pack(path: Path = PACK_FILE) -> ProbePack:
    data = json.loads(path.read_text(encoding="utf-8"))
    return ProbePack(
        id=data["id"],
        version=data["version"],
        digest=digest_json(data),
        data=data,
        poisoning=tuple(_rule(r) for r in data["poisoningRules"]),
        shadowing=_rule(data["shadowingRule"]),
        exfiltration=_rule(data["exfiltrationRule"]),
        result_rules=tuple(data.get("resultRules", {}).get("apply", ())),
    )
