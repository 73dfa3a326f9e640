"""The precision figures the probe pack carries for each poisoning rule are the ones its labelled set
gives today (bench/runtime/precision.py): a rule change that moves them must update them."""

from __future__ import annotations

import json

from bench.runtime.precision import LABELLED, figures

from assay.backend.runtime.pack import PACK_FILE


def test_the_pack_carries_the_measured_precision_of_every_rule() -> None:
    measured = figures()
    pack = json.loads(PACK_FILE.read_text(encoding="utf-8"))
    for rule in [*pack["poisoningRules"], pack["shadowingRule"], pack["exfiltrationRule"]]:
        assert rule["precision"] == {s: measured[s]["rules"][rule["id"]] for s in ("dev", "heldout")}, rule["id"]


def test_the_labelled_set_holds_out_a_fifth_and_both_labels() -> None:
    entries = json.loads(LABELLED.read_text(encoding="utf-8"))["entries"]
    held = [e for e in entries if e["split"] == "heldout"]
    assert len(held) == len(entries) // 5
    for split in ("dev", "heldout"):
        labels = {e["label"] for e in entries if e["split"] == split}
        assert labels == {"benign", "malicious"}
    # Every malicious entry names the rules it should raise, every benign one none.
    assert all(bool(e["rules"]) == (e["label"] == "malicious") for e in entries)
