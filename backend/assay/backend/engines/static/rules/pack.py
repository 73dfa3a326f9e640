"""The versioned rule pack: rules are data with stable ids, loaded from ``rules/*.json``.

A rule names what it recognises (``kind``), for which language, and how (``match``, whose keys each
language analyzer documents). A finding or fact always names the rule id it came from, and the bundle
names the pack id, version and digest, so that a result can be traced to the exact rules that made it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.backend.canonical import digest_json
from assay.backend.scans.bundle import ActionClass, GateKind, Impact, RulePackRef

RuleKind = Literal["model", "tool", "action", "gate", "taint_source", "frontier"]


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
    kind: RuleKind
    language: Literal["python", "javascript"]
    description: str
    match: dict[str, Any]
    provider: str | None = None
    framework: str | None = None
    actionClass: ActionClass | None = None
    impact: Impact | None = None
    gateKind: GateKind | None = None


class RuleFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    language: Literal["python", "javascript"]
    rules: list[Rule]


class RulePack(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    version: str
    description: str
    rules: list[Rule]
    digest: str

    def ref(self) -> RulePackRef:
        return RulePackRef(id=self.id, version=self.version, digest=self.digest)

    def for_language(self, language: Literal["python", "javascript"], kind: RuleKind) -> list[Rule]:
        return [r for r in self.rules if r.language == language and r.kind == kind]

    def get(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)


@cache
def load_rule_pack() -> RulePack:
    """Load and validate the bundled rule pack; its digest covers every rule file's canonical JSON."""
    root = resources.files("assay.backend.engines.static.rules")
    header = json.loads((root / "pack.json").read_text(encoding="utf-8"))
    rules: list[Rule] = []
    raw_files: list[Any] = []
    for name in header["files"]:
        raw = json.loads((root / name).read_text(encoding="utf-8"))
        raw_files.append(raw)
        rules.extend(RuleFile.model_validate(raw).rules)
    ids = [r.id for r in rules]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"rule pack has duplicate rule ids: {', '.join(duplicates)}")
    # Data the analyzers read beside the rules (the JavaScript globals) is part of what made a result.
    data = [json.loads((root / name).read_text(encoding="utf-8")) for name in header.get("data", [])]
    digest = digest_json({"header": header, "files": raw_files, **({"data": data} if data else {})})
    return RulePack(
        id=header["id"],
        version=header["version"],
        description=header["description"],
        rules=rules,
        digest=digest,
    )
