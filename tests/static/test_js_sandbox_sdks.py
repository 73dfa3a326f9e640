"""Remote sandbox SDKs recognised by what their methods do (issue 20): a method of a client made from a
package the pack lists as a sandbox SDK (Runloop, CodeSandbox, Daytona, ...) that runs a command is
``shell.exec``, one that runs code ``code.exec``, both inside a ``sandbox`` gate; writing, reading and
deleting files in the sandbox are file actions; creating, snapshotting or shutting down the sandbox itself
is ``cloud.change``, outside any sandbox gate. Whatever the client variable is called, and also through a
helper in another file that returns the sandbox."""

from __future__ import annotations

import shutil
from pathlib import Path

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle

Reach = tuple[list[str], list[str], bool]


def _scan(tmp_path: Path) -> EvidenceBundle:
    shutil.copytree(FIXTURES / "sandbox_sdks", tmp_path / "src")
    return scan_tree(tmp_path)


def _reached(bundle: EvidenceBundle) -> dict[tuple[str, str, int], Reach]:
    """(class, file, line) -> (tools reaching it, kinds of its gates, tainted by a tool argument)."""
    names = {t.id: t.name for t in bundle.tools}
    kinds = {g.id: g.kind for g in bundle.gates}
    tainted = {f.actionId for f in bundle.taintFlows if f.sourceKind == "tool_argument"}
    return {
        (a.actionClass, a.location.path.rsplit("/", 1)[1], a.location.line): (
            sorted(names[p.toolId] for p in a.reachedFrom),
            sorted({kinds[g] for g in a.gateIds}),
            a.id in tainted,
        )
        for a in bundle.actions
    }


def test_commands_and_files_of_a_runloop_devbox(tmp_path: Path) -> None:
    reached = _reached(_scan(tmp_path))
    assert reached[("shell.exec", "agent.ts", 19)] == (["shell"], ["sandbox"], True)
    assert reached[("file.write", "agent.ts", 25)] == (["save"], ["sandbox"], True)
    # Snapshotting the devbox (under the name the model gives) changes a cloud resource, outside the sandbox.
    assert reached[("cloud.change", "agent.ts", 32)] == (["checkpoint"], [], True)


def test_a_codesandbox_session_made_in_the_tool(tmp_path: Path) -> None:
    reached = _reached(_scan(tmp_path))
    assert reached[("cloud.change", "agent.ts", 38)] == (["scratch"], [], False)
    assert reached[("shell.exec", "agent.ts", 40)] == (["scratch"], ["sandbox"], True)
    assert reached[("file.write", "agent.ts", 41)] == (["scratch"], ["sandbox"], True)
    assert reached[("file.delete", "agent.ts", 42)] == (["scratch"], ["sandbox"], True)


def test_a_daytona_sandbox_from_a_helper_in_another_file(tmp_path: Path) -> None:
    reached = _reached(_scan(tmp_path))
    assert reached[("code.exec", "agent.ts", 51)] == (["python"], ["sandbox"], True)
    # The helper provisions the box on first use: reached from the tool that asks for it.
    assert reached[("cloud.change", "boxes.ts", 7)] == (["python"], [], False)


def test_shutting_a_devbox_down_outside_every_tool_is_reached_from_none(tmp_path: Path) -> None:
    bundle = _scan(tmp_path)
    assert _reached(bundle)[("cloud.change", "agent.ts", 59)] == ([], [], False)
    assert not [a for a in bundle.actions if a.actionClass == "network.egress"]
