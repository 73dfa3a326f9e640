"""The corpus scorer's rules (bench/corpus), on hand-made bundles and labels: CI has no mirrors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bench.corpus.labels import LabelError, Unit, check_label, load_units
from bench.corpus.matching import score_unit, total
from bench.corpus.mirror import NotMaterialisedError, materialise
from bench.corpus.score import as_json, main, run_unit

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def loc(path: str, line: int, end: int | None = None) -> dict[str, Any]:
    return {"path": path, "line": line, "column": 1, "endLine": end}


def label(**lists: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "py-demo",
        "repo": "acme/demo",
        "commit": COMMIT,
        "root": "",
        "language": "python",
        "frameworks": [],
        "notes": "",
    }
    return base | lists


def bundle(**lists: Any) -> dict[str, Any]:
    base: dict[str, list[Any]] = {"tools": [], "actions": [], "gates": [], "taintFlows": [], "models": []}
    return base | lists


def tool(tid: str, name: str, line: int, end: int | None = None, path: str = "srv.py") -> dict[str, Any]:
    return {"id": tid, "name": name, "framework": "mcp", "location": loc(path, line, end)}


def action(aid: str, cls: str, line: int, tools: list[str], gates: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": aid,
        "actionClass": cls,
        "target": "subprocess.run",
        "location": loc("srv.py", line),
        "reachedFrom": [{"toolId": t, "calls": [], "gateIds": gates or []} for t in tools],
        "gateIds": [],
    }


def test_tools_match_by_name_path_and_line_tolerance_or_span_one_to_one() -> None:
    lab = label(
        tools=[
            {"name": "run", "path": "srv.py", "line": 10},
            {"name": "read", "path": "srv.py", "line": 40},
            {"name": "far", "path": "srv.py", "line": 70},
            {"name": "elsewhere", "path": "srv.py", "line": 90},
        ]
    )
    bun = bundle(
        tools=[
            tool("t1", "run", 13),  # 3 lines off: a match
            tool("t2", "run", 13),  # the same tool reported twice: the second counts against precision
            tool("t3", "read", 35, 45),  # label line inside the span
            tool("t4", "far", 74),  # 4 lines off, no span: a miss and an extra tool
            tool("t5", "elsewhere", 90, path="other.py"),  # another file
        ]
    )
    score = score_unit(lab, bun)
    assert (score.tools.found, score.tools.total) == (2, 4)
    assert (score.tool_precision.found, score.tool_precision.total) == (2, 5)
    assert any(m.startswith("tool far ") and "srv.py:74" in m for m in score.misses)
    assert any(m.startswith("extra tool run at srv.py:13") for m in score.misses)


def test_an_action_counts_only_when_reached_from_the_labelled_tool() -> None:
    lab = label(
        tools=[{"name": "run", "path": "srv.py", "line": 10}, {"name": "other", "path": "srv.py", "line": 30}],
        actions=[
            {"tool": "run", "class": "shell.exec", "path": "srv.py", "line": 20},
            {"tool": "run", "class": "file.write", "path": "srv.py", "line": 22},
            {"tool": "other", "class": "shell.exec", "path": "srv.py", "line": 50},
            {"tool": "run", "class": "shell.exec", "path": "srv.py", "line": 60},
        ],
    )
    bun = bundle(
        tools=[tool("t1", "run", 10), tool("t2", "other", 30)],
        actions=[
            action("a1", "shell.exec", 21, ["t1"]),  # within 2 lines, reached from run
            action("a2", "file.delete", 22, ["t1"]),  # wrong class
            action("a3", "shell.exec", 50, ["t1"]),  # right place, reached from the wrong tool
            action("a4", "shell.exec", 63, ["t1"]),  # 3 lines off: outside the action tolerance
        ],
    )
    score = score_unit(lab, bun)
    assert (score.actions.found, score.actions.total) == (1, 4)
    assert any("file.write at srv.py:22" in m and "file.delete" in m for m in score.misses)
    assert any("srv.py:50" in m and "not reached from the tool" in m for m in score.misses)


def test_a_gate_counts_only_where_it_dominates_an_action_of_the_tool() -> None:
    lab = label(
        tools=[{"name": "run", "path": "srv.py", "line": 10}, {"name": "other", "path": "srv.py", "line": 30}],
        gates=[
            {"kind": "allowlist", "path": "srv.py", "line": 15, "tool": "run"},
            {"kind": "allowlist", "path": "srv.py", "line": 15, "tool": "other"},
            {"kind": "human_approval", "path": "srv.py", "line": 16},
        ],
    )
    gates = [
        {"id": "g1", "kind": "allowlist", "location": loc("srv.py", 14)},
        {"id": "g2", "kind": "human_approval", "location": loc("srv.py", 17)},
    ]
    actions = [action("a1", "shell.exec", 20, ["t1"], gates=["g1"]), action("a2", "shell.exec", 40, ["t2"])]
    score = score_unit(
        lab, bundle(tools=[tool("t1", "run", 10), tool("t2", "other", 30)], actions=actions, gates=gates)
    )
    assert (score.gates.found, score.gates.total) == (2, 3)
    assert any("for tool other" in m and "dominates no action" in m for m in score.misses)


def test_gate_precision_counts_the_gates_tied_to_a_tools_action_that_a_gate_label_holds() -> None:
    lab = label(
        tools=[{"name": "run", "path": "srv.py", "line": 10}],
        gates=[
            {"kind": "allowlist", "path": "srv.py", "line": 15, "tool": "run"},
            {"kind": "path_containment", "path": "srv.py", "line": 30, "tool": "run"},
        ],
    )
    gates = [
        {"id": "g1", "kind": "allowlist", "ruleId": "R1", "location": loc("srv.py", 14)},  # at a label
        {"id": "g2", "kind": "human_approval", "ruleId": "R2", "location": loc("srv.py", 15)},  # another kind
        {"id": "g3", "kind": "path_containment", "ruleId": "R3", "location": loc("srv.py", 26, 31)},  # span
        {"id": "g4", "kind": "allowlist", "ruleId": "R4", "location": loc("srv.py", 50), "detail": "x in LIST"},
        {"id": "g5", "kind": "sandbox", "ruleId": "R5", "location": loc("srv.py", 60)},  # tied to nothing
        {"id": "g6", "kind": "allowlist", "ruleId": "R6", "location": loc("srv.py", 70)},  # only on one path
        {"id": "g7", "kind": "allowlist", "ruleId": "R7", "location": loc("srv.py", 80)},  # action of no tool
    ]
    gated = action("a1", "shell.exec", 20, ["t1"], gates=["g6"]) | {"gateIds": ["g1", "g2", "g3", "g4"]}
    unreached = action("a2", "shell.exec", 40, []) | {"gateIds": ["g7"]}
    bun = bundle(tools=[tool("t1", "run", 10)], actions=[gated, unreached], gates=gates)
    score = score_unit(lab, bun)
    assert (score.gate_precision.found, score.gate_precision.total) == (2, 4)
    false = [m for m in score.misses if m.startswith("false gate")]
    assert len(false) == 2
    assert any("human_approval at srv.py:15 (R2)" in m and "shell.exec at srv.py:20 (tools run)" in m for m in false)
    assert any("allowlist at srv.py:50 (R4, x in LIST)" in m for m in false)
    summed = total([score, score])
    assert (summed.gate_precision.found, summed.gate_precision.total) == (4, 8)
    assert score_unit(lab, bundle(tools=[tool("t1", "run", 10)])).gate_precision.ratio is None


def test_taint_providers_model_ids_and_decoys() -> None:
    lab = label(
        taint=[
            {"class": "shell.exec", "path": "srv.py", "line": 20},
            {"class": "sql.exec", "path": "srv.py", "line": 40},
        ],
        providers=[
            {"provider": "anthropic", "model": "claude-sonnet-4-5", "path": "agent.py", "line": 5},
            {"provider": "openai", "model": "gpt-4.1", "path": "agent.py", "line": 9},
            {"provider": "openai", "model": None, "path": "agent.py", "line": 30},
            {"provider": "google", "model": None, "path": "agent.py", "line": 50},
        ],
        decoys=[
            {"class": "file.write", "path": "setup.py", "line": 7},
            {"class": "shell.exec", "path": "setup.py", "line": 20},
        ],
    )
    flows = [
        {"id": "f1", "actionClass": "shell.exec", "sink": loc("srv.py", 22), "source": loc("srv.py", 1)},
        {"id": "f2", "actionClass": "shell.exec", "sink": loc("srv.py", 40), "source": loc("srv.py", 1)},
    ]
    models = [
        {"id": "m1", "provider": "anthropic", "model": "claude-sonnet-4-5", "location": loc("agent.py", 3)},
        {"id": "m2", "provider": "openai", "model": None, "location": loc("agent.py", 8)},
        {"id": "m3", "provider": "openai", "location": loc("agent.py", 33)},
        {"id": "m4", "provider": "openai", "model": None, "location": loc("agent.py", 50)},
    ]
    reached = action("a1", "file.write", 8, ["t1"]) | {"location": loc("setup.py", 8)}
    unreached = action("a2", "shell.exec", 20, []) | {"location": loc("setup.py", 20)}
    bun = bundle(tools=[tool("t1", "run", 1)], taintFlows=flows, models=models, actions=[reached, unreached])
    score = score_unit(lab, bun)
    assert (score.taint.found, score.taint.total) == (1, 2)
    assert any("sql.exec to srv.py:40" in m and "shell.exec flow there" in m for m in score.misses)
    assert (score.providers.found, score.providers.total) == (3, 4)
    assert (score.model_ids.found, score.model_ids.total) == (1, 2)  # only labelled model ids that matched
    assert any("labelled 'gpt-4.1', engine None" in m for m in score.misses)
    assert any("provider google" in m and "the engine says openai" in m for m in score.misses)
    assert (score.decoys.found, score.decoys.total) == (1, 2)
    assert any("decoy file.write at setup.py:7 is attributed to run" in m for m in score.misses)
    summed = total([score, score])
    assert (summed.providers.found, summed.providers.total) == (6, 8)


def test_labels_are_checked_against_the_vocabulary(tmp_path: Path) -> None:
    good = label(
        tools=[{"name": "run", "path": "a/srv.py", "line": 3}],
        actions=[{"tool": "run", "class": "shell.exec", "path": "a/srv.py", "line": 5}],
    )
    assert check_label(good, tmp_path / "py-demo.json").id == "py-demo"
    bad_cases = [
        (label(actions=[{"tool": "run", "class": "shell", "path": "a.py", "line": 1}]), "unknown action class"),
        (label(gates=[{"kind": "tool_annotation", "path": "a.py", "line": 1}]), "unknown gate kind"),
        (label(providers=[{"provider": "acme", "model": None, "path": "a.py", "line": 1}]), "unknown provider"),
        (label(tools=[{"name": "run", "path": "/abs.py", "line": 1}]), "relative"),
        (label(tools=[{"name": "run", "path": "a.py", "line": 0}]), "positive"),
        (label(actions=[{"tool": "ghost", "class": "file.read", "path": "a.py", "line": 1}]), "not among"),
        (label(commit="abc"), "40 lower-case hex"),
    ]
    for data, message in bad_cases:
        with pytest.raises(LabelError, match=message):
            check_label(data, tmp_path / "py-demo.json")
    with pytest.raises(LabelError, match="must be named"):
        check_label(good, tmp_path / "py-other.json")


def test_every_committed_label_is_well_formed() -> None:
    units = load_units()
    assert all(u.label["commit"] and u.language in ("python", "typescript") for u in units)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_unit_is_materialised_from_a_bare_mirror_and_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    (work / "svc" / "tests").mkdir(parents=True)
    (work / "other").mkdir()
    server = (
        "import subprocess\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('demo')\n"
        "@mcp.tool()\n"
        "def run(cmd: str) -> str:\n"
        "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n"
    )
    (work / "svc" / "server.py").write_text(server)
    (work / "svc" / "tests" / "test_server.py").write_text("def test_x():\n    pass\n")
    (work / "other" / "x.py").write_text("x = 1\n")
    (work / "svc" / "bundle.js").write_text("// a large generated file the snapshot lists without content\n")
    (work / "svc" / "link.py").symlink_to("server.py")

    def git(*args: str, cwd: Path = work) -> str:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    commit = git("rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    (mirrors / "acme+demo").mkdir(parents=True)
    # A snapshot's git directory: the work tree's own, whose objects are loose; one blob is then dropped,
    # as a snapshot may list its largest files without their content.
    shutil.copytree(work / ".git", mirrors / "acme+demo" / "repo" / ".git")
    dropped = git("rev-parse", "HEAD:svc/bundle.js")
    (mirrors / "acme+demo" / "repo" / ".git" / "objects" / dropped[:2] / dropped[2:]).unlink()

    units_dir = tmp_path / "units"
    units_dir.mkdir()
    data = label(
        commit=commit,
        root="svc",
        exclude=["tests"],
        tools=[{"name": "run", "path": "server.py", "line": 5}],
    )
    (units_dir / "py-demo.json").write_text(json.dumps(data))
    absent = label(id="py-absent", repo="acme/absent")
    (units_dir / "py-absent.json").write_text(json.dumps(absent))
    unit, missing = sorted(load_units(units_dir), key=lambda u: u.id != "py-demo")

    cache = tmp_path / "cache"
    tree = materialise(unit, mirrors, cache)
    root = tree.root
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    assert files == ["server.py"]  # root prefix stripped, tests excluded, other directories left out
    assert (root / "link.py").is_symlink() and (root / "link.py").readlink() == Path("server.py")
    assert tree.absent == ("bundle.js",)
    assert materialise(unit, mirrors, cache) == tree  # the stamp remembers what was left out
    assert root.name == "py-demo" and not list(cache.glob(".*part*"))  # built aside, renamed in whole
    # A changed label (another work tree's, scoring at the same time) is extracted beside the first
    # tree, which stays whole for whoever reads it.
    wider = load_units_from(units_dir, "py-demo", exclude=[])
    other = materialise(wider, mirrors, cache)
    assert other.root != root and (other.root / "tests" / "test_server.py").is_file()
    assert (root / "server.py").is_file() and not (root / "tests").exists()
    with pytest.raises(NotMaterialisedError, match="no mirror"):
        materialise(missing, mirrors, cache)

    result = run_unit(unit, mirrors, cache)
    assert result.score is not None and result.files == 1 and not result.missing_paths
    assert result.absent_files == ("bundle.js",)
    report = as_json([result, run_unit(missing, mirrors, cache)])
    assert report["size"] == {
        "units": 1,
        "unitsHeldOut": 0,
        "unitsListed": 2,
        "repositories": 1,
        "byLanguage": {"python": 1},
        "repositoriesByLanguage": {"python": 1},
    }
    assert report["units"][1]["notMaterialised"].startswith("no mirror of acme/absent")
    assert (
        main(["--units-dir", str(units_dir), "--mirrors", str(mirrors), "--cache", str(cache), "--unit", "nope"]) == 2
    )
    assert main(["--units-dir", str(units_dir), "--list"]) == 0
    listed = capsys.readouterr().out
    assert f"| acme/demo | {commit[:12]} | `py-demo` |" in listed
    assert "| acme/absent | 0123456789ab | `py-absent` |" in listed


def test_held_out_units_are_totalled_apart_and_their_misses_stay_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.corpus.score import UnitResult, print_table

    dev = check_label(label(tools=[{"name": "run", "path": "srv.py", "line": 10}]), tmp_path / "py-demo.json")
    held_label = label(id="py-held", tools=[{"name": "secret_tool", "path": "srv.py", "line": 20}], heldout=True)
    held = check_label(held_label, tmp_path / "py-held.json")
    assert held.heldout and not dev.heldout
    gate = [{"id": "g1", "kind": "allowlist", "ruleId": "R1", "location": loc("srv.py", 33)}]
    secret = [action("a1", "shell.exec", 34, ["t9"]) | {"gateIds": ["g1"]}]
    results = [
        UnitResult(dev, score_unit(dev.label, bundle(tools=[tool("t1", "run", 10)]))),
        UnitResult(held, score_unit(held.label, bundle(tools=[tool("t9", "other", 5)], actions=secret, gates=gate))),
    ]
    data = as_json(results)
    assert data["totalsDev"]["tool recall"] == {"found": 1, "total": 1, "ratio": 1.0}
    assert data["totalsHeldOut"]["tool recall"] == {"found": 0, "total": 1, "ratio": 0.0}
    assert data["totals"]["tool recall"]["total"] == 2
    assert data["totalsDev"]["gate precision"] == {"found": 0, "total": 0, "ratio": None}
    assert data["totalsHeldOut"]["gate precision"] == {"found": 0, "total": 1, "ratio": 0.0}
    assert data["size"]["unitsHeldOut"] == 1
    held_entry = next(u for u in data["units"] if u["id"] == "py-held")
    assert held_entry["heldout"] is True and "misses" not in held_entry
    assert "secret_tool" in str(as_json(results, heldout_misses=True))

    print_table(results, misses=True)
    out = capsys.readouterr().out
    assert "dev totals (1 units" in out and "held-out totals (1 units" in out
    assert "py-held" in out and "held out" in out
    assert "secret_tool" not in out  # a held-out miss is never shown while the engine is worked on
    assert "false gate" not in out and "srv.py:33" not in out
    print_table(results, misses=True, heldout_misses=True)
    assert "secret_tool" in capsys.readouterr().out

    with pytest.raises(LabelError, match="heldout"):
        check_label(label(heldout="yes"), tmp_path / "py-demo.json")


def load_units_from(units_dir: Path, unit_id: str, **changes: object) -> Unit:
    """``unit_id``'s label from ``units_dir`` with ``changes`` made to it."""
    data = json.loads((units_dir / f"{unit_id}.json").read_text()) | changes
    other = units_dir.parent / f"units-{unit_id}-changed"
    other.mkdir(exist_ok=True)
    (other / f"{unit_id}.json").write_text(json.dumps(data))
    (unit,) = load_units(other)
    return unit
