"""Precision and recall of the runtime engine's poisoning rules on the labelled set
(``bench/runtime/poisoning-labelled.json``), per rule and split (dev, held-out).

    .venv/bin/python -m bench.runtime.precision          # the figures, as JSON
    .venv/bin/python -m bench.runtime.precision --write  # store them in the probe pack

Each entry is read as the runtime engine reads a catalogue: a description becomes a tool's description, a
parameter text a parameter's description, and every rule of the pack runs over it. A rule's precision is
the share of its hits that land on entries labelled malicious; its recall the share of the entries
labelled with it that it hits. Figures are fractions with four decimals (None when there is nothing to
divide).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from assay.backend.runtime.catalogue import Catalogue, entity
from assay.backend.runtime.pack import PACK_FILE, load_pack
from assay.backend.runtime.rules import text_findings

LABELLED = Path(__file__).resolve().parent / "poisoning-labelled.json"


def _catalogue(entry: dict[str, Any]) -> Catalogue:
    if entry["where"] == "parameter":
        data = {
            "name": "probe_target",
            "inputSchema": {
                "type": "object",
                "properties": {"value": {"type": "string", "description": entry["text"]}},
            },
        }
    else:
        data = {"name": "probe_target", "description": entry["text"], "inputSchema": {"type": "object"}}
    # A second tool, so shadowing rules have another name to point at.
    other = {"name": "other_tool", "description": "", "inputSchema": {"type": "object"}}
    return Catalogue(entities=[entity("tool", data), entity("tool", other)])


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def figures() -> dict[str, Any]:
    pack = load_pack()
    entries = json.loads(LABELLED.read_text(encoding="utf-8"))["entries"]
    rule_ids = [r.id for r in pack.poisoning] + [pack.shadowing.id, pack.exfiltration.id]
    out: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        chosen = [e for e in entries if e["split"] == split]
        hits = {e["id"]: {h["ruleId"] for h in text_findings(_catalogue(e), pack)} for e in chosen}
        malicious = [e for e in chosen if e["label"] == "malicious"]
        per_rule = {}
        for rule in rule_ids:
            fired = [e for e in chosen if rule in hits[e["id"]]]
            labelled = [e for e in chosen if rule in e["rules"]]
            per_rule[rule] = {
                "hits": len(fired),
                "falsePositives": sum(1 for e in fired if e["label"] == "benign"),
                "precision": _ratio(sum(1 for e in fired if e["label"] == "malicious"), len(fired)),
                "recall": _ratio(sum(1 for e in labelled if rule in hits[e["id"]]), len(labelled)),
            }
        flagged = [e for e in chosen if hits[e["id"]]]
        out[split] = {
            "entries": len(chosen),
            "malicious": len(malicious),
            "precision": _ratio(sum(1 for e in flagged if e["label"] == "malicious"), len(flagged)),
            "recall": _ratio(sum(1 for e in malicious if hits[e["id"]]), len(malicious)),
            "rules": per_rule,
        }
    return out


def write() -> None:
    """Store each rule's figures (dev and held-out) in the probe pack beside the rule."""
    measured = figures()
    data = json.loads(PACK_FILE.read_text(encoding="utf-8"))
    rules = [*data["poisoningRules"], data["shadowingRule"], data["exfiltrationRule"]]
    for rule in rules:
        rule["precision"] = {split: measured[split]["rules"][rule["id"]] for split in ("dev", "heldout")}
    PACK_FILE.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    print(json.dumps(figures(), indent=1))
