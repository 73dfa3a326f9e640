"""Noise that hid the real reasons (issue 21): platform built-ins, names bound in the enclosing function and
imports of a fixed module name are not unresolved reach; reading an HTTP response is not another request;
a path check a tool defines for itself is a gate. One fixture per pattern (fixtures/noise/)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pyfix import analyse

from assay.backend.engines.static.link import Linked
from assay.backend.engines.static.rules.js_globals import javascript_globals
from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate

NOISE = Path(__file__).resolve().parent / "fixtures" / "noise"


def _linked(name: str) -> Linked:
    return analyse({name: (NOISE / name).read_text()})


def _unresolved(linked: Linked) -> list[str]:
    return [f.detail.split(" ", 1)[0] for f in linked.frontier if f.kind == "unresolved_call"]


def test_the_globals_come_from_the_globals_package_data() -> None:
    names = javascript_globals()
    # ECMAScript, Web/DOM, audio worklets, workers and Node.js, as the `globals` npm package lists them.
    assert {"Float32Array", "WebSocket", "AudioContext", "ReadableStream", "DOMException"} <= names
    assert {"registerProcessor", "importScripts", "Buffer", "structuredClone", "requestAnimationFrame"} <= names
    assert len(names) > 1000 and "mystery" not in names


def test_javascript_platform_globals_are_not_unresolved() -> None:
    linked = _linked("js_builtins.js")
    assert _unresolved(linked) == ["mystery"]
    # Known is not silent: a WebSocket the model's input opens is network egress.
    assert [a.target for a in linked.actions if a.actionClass == "network.egress"] == ["WebSocket"]


def test_python_builtins_are_not_unresolved() -> None:
    assert _unresolved(_linked("py_builtins.py")) == ["enumerate_all"]


def test_names_bound_in_the_enclosing_function_are_not_unresolved() -> None:
    # useState's setter, destructured hook results, a function declared after the closure that calls it.
    assert _unresolved(_linked("js_closures.tsx")) == ["useRealtime", "nowhere"]


def test_importing_a_fixed_module_name_is_not_code_execution() -> None:
    linked = _linked("py_const_import.py")
    assert sorted(a.location.line for a in linked.actions if a.actionClass == "code.exec") == [23, 30]


def test_one_request_is_one_network_action() -> None:
    linked = _linked("py_http_response.py")
    egress = sorted((a.location.line, a.target) for a in linked.actions if a.actionClass == "network.egress")
    assert egress == [
        (10, "httpx.Client.get"),
        (17, "requests.Session.post"),
        (24, "aiohttp.ClientSession.get"),
        (31, "httpx.AsyncClient.put"),
        (37, "requests.get"),
        (38, "requests.get"),
    ]


def _dispositions(tmp_path: Path, name: str) -> tuple[str, list[str], set[str]]:
    root = tmp_path / "system"
    root.mkdir()
    shutil.copy(NOISE / name, root / name)
    bundle = scan_tree(root)
    payload = evaluate(
        make_membership([static_bundle_item(bundle.to_json_dict())]), ai_system_id="sys-t", jurisdiction=None
    )
    kinds = {g.id: g.kind for g in bundle.gates}
    deletes = [a for a in bundle.actions if a.actionClass == "file.delete"]
    assert deletes
    return (
        payload.disposition,
        [r["ruleId"] for r in payload.data["reasons"]],
        {kinds[g] for a in deletes for g in a.gateIds},
    )


def test_a_containment_check_defined_in_the_factory_gates_the_delete(tmp_path: Path) -> None:
    disposition, rules, gates = _dispositions(tmp_path, "js_containment.ts")
    assert "path_containment" in gates
    assert disposition == "REVIEW" and "BLOCK-002" not in rules, rules


def test_a_containment_check_defined_in_the_tool_gates_the_delete(tmp_path: Path) -> None:
    disposition, rules, gates = _dispositions(tmp_path, "py_containment.py")
    assert "path_containment" in gates
    assert disposition == "REVIEW" and "BLOCK-002" not in rules, rules
