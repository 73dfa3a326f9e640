"""``assay assess`` as a user runs it: the real CLI as a subprocess on a database of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def _assay(env: dict[str, str], *args: str) -> tuple[int, Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "assay.server.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )
    out = json.loads(done.stdout) if "--json" in args else done.stdout
    return done.returncode, out, done.stderr


def test_create_answer_attach_show(tmp_path: Path) -> None:
    env = {**os.environ, "ASSAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'assay.db'}"}
    org = _assay(env, "admin", "--json", "org", "create", "Acme")[1]["organizationId"]
    system = _assay(env, "admin", "--json", "system", "create", "--org", org, "--name", "screener")[1]["aiSystemId"]
    code, created, _ = _assay(
        env, "assess", "create", "--json", "--org", org, "--system", system, "--framework", "nyc_ll144"
    )
    assert code == 0 and created["assessmentId"].startswith("asm_")
    assessment = created["assessmentId"]

    code, refused, _err = _assay(env, "assess", "answer", "--json", assessment, "audit_date", "2026-01-01")
    assert code == 1 and refused["error"]["code"] == "INVALID" and "uses_aedt" in refused["error"]["message"]
    assert _assay(env, "assess", "answer", "--json", assessment, "uses_aedt", "yes")[1]["changed"] is True
    assert _assay(env, "assess", "answer", "--json", assessment, "uses_aedt", "yes")[1]["changed"] is False

    bad = tmp_path / "bad.csv"
    bad.write_bytes("sex,race_ethnicity,selected\nMale,Blanc,1\n".encode("latin-1"))
    code, refused, _ = _assay(env, "assess", "attach", "--json", assessment, "--data", str(bad))
    assert code == 1 and "data row 1" in refused["error"]["message"]
    good = tmp_path / "outcomes.csv"
    good.write_text("sex,race_ethnicity,score\nMale,White,70\nFemale,White,60\nFemale,Asian,80\nMale,Asian,50\n")
    code, attached, _ = _assay(env, "assess", "attach", "--json", assessment, "--data", str(good), "--kind", "test")
    assert code == 0 and attached["attached"]["rowCount"] == 4
    assert attached["figures"]["ll144"]["method"] == "scoring_rate"

    code, shown, _ = _assay(env, "assess", "show", assessment)
    assert code == 0
    assert "open questions (next first):\n  decision_type (ask: person)" in shown
    assert "LL144 scoring rates (4 rows" in shown
    assert "EVIDENCE_NEEDED  NYC-LL144-BIAS-AUDIT" in shown
    code, missing, _ = _assay(env, "assess", "show", "--json", "asm_nope")
    assert code == 1 and missing["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("framework", "role", "second", "value", "next_id"),
    [
        ("eu_ai_act", "provider", "prohibited_practice", "none", "annex_i_product"),
        ("colorado_ai", "deployer", "consequential_decision", "yes", "decision_area"),
    ],
)
def test_create_answer_show_for_the_other_frameworks(
    tmp_path: Path, framework: str, role: str, second: str, value: str, next_id: str
) -> None:
    env = {**os.environ, "ASSAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'assay.db'}"}
    org = _assay(env, "admin", "--json", "org", "create", "Acme")[1]["organizationId"]
    system = _assay(env, "admin", "--json", "system", "create", "--org", org, "--name", "screener")[1]["aiSystemId"]
    code, created, _ = _assay(
        env, "assess", "create", "--json", "--org", org, "--system", system, "--framework", framework
    )
    assert code == 0 and created["framework"] == framework
    assessment = created["assessmentId"]
    assert created["nextQuestion"]["id"] == "role"

    code, refused, _ = _assay(env, "assess", "answer", "--json", assessment, "role", "nobody")
    assert code == 1 and refused["error"]["code"] == "INVALID"
    code, answered, _ = _assay(env, "assess", "answer", "--json", assessment, "role", role)
    assert code == 0 and answered["changed"] is True and answered["nextQuestion"]["id"] == second
    assert _assay(env, "assess", "answer", "--json", assessment, second, value)[0] == 0

    code, shown, _ = _assay(env, "assess", "show", "--json", assessment)
    assert code == 0 and shown["assessmentId"] == assessment and shown["framework"] == framework
    assert {a["questionId"]: a["value"] for a in shown["answers"]} == {
        "role": role,
        second: value if value != "yes" else True,
    }
    assert shown["nextQuestion"]["id"] == next_id and shown["complete"] is False
    assert shown["pack"]["framework"] == framework
    # The answered questions no longer hold any control open.
    subjects = {
        r["subject"] for c in shown["controls"] for r in c["requirements"] if r["detail"].startswith("unanswered")
    }
    assert subjects and second not in subjects and "role" not in subjects
