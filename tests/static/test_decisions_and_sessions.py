"""Decisions in front of tools, whoever makes them (issue 20, gates wherever frameworks put them): a value
compared with a word that decides whether an action may happen (``if decision != "APPROVED": return``, a
reviewer agent's or a policy's verdict) is a permission check; a Claude Agent SDK ``canUseTool`` that refuses
on its ``else`` branch (``if (decision === "allow") ... else return { behavior: "deny" }``) is one as its
``if`` branch refusing was; and the SDK's V2 sessions (``unstable_v2_createSession``) run Claude's agent loop
as ``query`` does. Negative twins: a value compared with a word that decides nothing, a callback allowing on
every branch, and a same-named function of another package."""

from __future__ import annotations

from pathlib import Path

from pyfix import analyse, gate_kinds
from scanned import scan_files

SHELL = "import subprocess\nfrom crewai.tools import tool\n\n"


def _run_tool(test: str) -> str:
    return SHELL + (
        "def review(cmd: str) -> str:\n    return manager.execute_task(cmd)\n\n"
        "@tool('Run Command')\ndef run_command(cmd: str) -> str:\n    '''Run.'''\n"
        "    decision = review(cmd)\n"
        f"    if {test}:\n        return 'blocked'\n"
        "    return subprocess.run(cmd, shell=True).stdout\n"
    )


def test_a_verdict_compared_with_the_allowing_word_gates_what_follows() -> None:
    assert gate_kinds(analyse({"tools.py": _run_tool("decision != 'APPROVED'")}), "shell.exec") == {"permission_check"}


def test_a_verdict_equal_to_the_refusing_word_gates_what_follows() -> None:
    assert gate_kinds(analyse({"tools.py": _run_tool("decision.upper() == 'BLOCKED'")}), "shell.exec") == {
        "permission_check"
    }


def test_a_value_compared_with_a_word_that_decides_nothing_is_no_gate() -> None:
    assert gate_kinds(analyse({"tools.py": _run_tool("decision == 'empty'")}), "shell.exec") == set()


V2 = """
import { unstable_v2_createSession } from "@anthropic-ai/claude-agent-sdk";
export function start(ask: (m: string) => Promise<string>) {
  return unstable_v2_createSession({
    model: "claude-sonnet-4-5",
    canUseTool: async (toolName: string, input: any) => {
      if (toolName === "Read") {
        return { behavior: "allow", updatedInput: input };
      }
      const decision = await ask(toolName);
      if (decision === "allow") {
        return { behavior: "allow", updatedInput: input };
      } else {
        return { behavior: "deny", message: "refused" };
      }
    },
  });
}
"""


def test_a_permission_callback_refusing_on_its_else_branch_is_a_permission_check(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"session.ts": V2})
    line = V2.splitlines().index('      if (decision === "allow") {') + 1
    assert [g["location"]["line"] for g in bundle["gates"] if g["kind"] == "permission_check"] == [line]


def test_a_permission_callback_allowing_on_every_branch_is_no_gate(tmp_path: Path) -> None:
    source = V2.replace('{ behavior: "deny", message: "refused" }', '{ behavior: "allow", updatedInput: input }')
    assert [g for g in scan_files(tmp_path, {"session.ts": source})["gates"] if g["kind"] == "permission_check"] == []


def test_a_v2_session_is_a_use_of_claude(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"session.ts": V2})
    assert [(m["provider"], m["model"]) for m in bundle["models"]] == [("anthropic", "claude-sonnet-4-5")]


def test_a_same_named_function_of_another_package_is_no_model_use(tmp_path: Path) -> None:
    source = V2.replace("@anthropic-ai/claude-agent-sdk", "./sessions")
    bundle = scan_files(
        tmp_path, {"session.ts": source, "sessions.ts": "export const unstable_v2_createSession = (o: any) => o;\n"}
    )
    assert bundle["models"] == []
