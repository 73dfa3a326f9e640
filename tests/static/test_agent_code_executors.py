"""Issue 20, model output into execution: code executors configured on agents and libraries that run the code
their model writes. An executor set on an agent (ADK ``code_executor=``, ADK for TypeScript's ``codeExecutor:``
option or an agent builder's ``withCodeExecutor(...)``) runs the code that agent's model writes: code execution of
model output at the executor, reached from whatever runs the agent (an ``AgentTool`` handing it to another agent),
under a sandbox gate when the executor runs the code elsewhere (ADK's ``BuiltInCodeExecutor``: the Gemini model's
hosted code execution) and none when it runs it in this process (``UnsafeLocalCodeExecutor``). PandasAI's
``SmartDataframe`` answering ``chat`` runs the Python its model writes, as LangChain's pandas agents do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files

ADK_PY = """\
from google.adk.agents import LlmAgent
from google.adk.tools import AgentTool
from google.adk.code_executors import BuiltInCodeExecutor, UnsafeLocalCodeExecutor

calculator = LlmAgent(name="calculator", model="gemini-2.5-flash", code_executor=BuiltInCodeExecutor())
scratch = LlmAgent(name="scratch", model="gemini-2.5-flash", code_executor=UnsafeLocalCodeExecutor())
unused = LlmAgent(name="unused", model="gemini-2.5-flash", code_executor=BuiltInCodeExecutor())
root_agent = LlmAgent(
    name="root",
    model="gemini-2.5-flash",
    tools=[AgentTool(agent=calculator), AgentTool(agent=scratch)],
)
"""


def _code_exec(bundle: dict[str, Any], path: str) -> dict[int, set[str]]:
    """Line of each code.exec action of ``path`` -> the kinds of the gates on it."""
    kinds = {g["id"]: g["kind"] for g in bundle["gates"]}
    return {
        a["location"]["line"]: {kinds[g] for g in a.get("gateIds", [])}
        for a in bundle["actions"]
        if a["actionClass"] == "code.exec" and a["location"]["path"] == path
    }


def _model_flows(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {
        (f["actionClass"], f["sink"]["path"], f["sink"]["line"])
        for f in bundle["taintFlows"]
        if f["sourceKind"] == "model_output"
    }


def test_an_agent_tool_reaches_the_code_its_agents_executor_runs(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.py": ADK_PY})
    assert ("code.exec", "agent.py", 5) in actions_reached(bundle, "calculator")
    assert ("code.exec", "agent.py", 6) in actions_reached(bundle, "scratch")


def test_an_executor_no_tool_runs_is_reached_from_no_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.py": ADK_PY})
    reached = set().union(*(actions_reached(bundle, t["name"]) for t in bundle["tools"]))
    assert ("code.exec", "agent.py", 7) not in reached
    assert ("code.exec", "agent.py", 7) in _model_flows(bundle)


def test_the_builtin_executor_runs_the_models_code_in_a_hosted_sandbox(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.py": ADK_PY})
    assert _code_exec(bundle, "agent.py")[5] == {"sandbox"}
    assert ("code.exec", "agent.py", 5) in _model_flows(bundle)


def test_the_unsafe_local_executor_is_no_sandbox(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.py": ADK_PY})
    assert _code_exec(bundle, "agent.py")[6] == set()
    assert ("code.exec", "agent.py", 6) in _model_flows(bundle)


PANDASAI_PY = """\
import pandas as pd
from pandasai import SmartDataframe
from pandasai.llm import OpenAI

frame = pd.DataFrame({"a": [1, 2]})
smart = SmartDataframe(frame, config={"llm": OpenAI(api_token="x")})


def answer(question: str):
    plain = frame.query("a > 1")
    return smart.chat(question), plain
"""


def test_a_smart_dataframe_runs_the_python_its_model_writes(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"app.py": PANDASAI_PY})
    assert ("code.exec", "app.py", 6) in _model_flows(bundle)


def test_a_plain_dataframe_query_is_no_code_execution(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"app.py": PANDASAI_PY})
    assert set(_code_exec(bundle, "app.py")) == {6}


ADK_TS = """\
import { AgentBuilder, BuiltInCodeExecutor, UnsafeLocalCodeExecutor, LlmAgent } from "@iqai/adk";

export async function planner() {
  return await AgentBuilder.create("planner")
    .withModel("gemini-2.5-flash")
    .withCodeExecutor(new BuiltInCodeExecutor())
    .build();
}

export const scratch = new LlmAgent({
  name: "scratch",
  model: "gemini-2.5-flash",
  codeExecutor: new UnsafeLocalCodeExecutor(),
});
"""

LOOKALIKE_TS = """\
import { BuiltInCodeExecutor } from "./executors";

export const executor = new BuiltInCodeExecutor();
"""


def test_a_ts_agents_executor_runs_model_code_sandboxed_when_hosted(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": ADK_TS})
    assert _code_exec(bundle, "agent.ts") == {6: {"sandbox"}, 13: set()}
    assert {("code.exec", "agent.ts", 6), ("code.exec", "agent.ts", 13)} <= _model_flows(bundle)


def test_an_executor_class_of_the_tree_is_not_the_frameworks(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agent.ts": LOOKALIKE_TS, "executors.ts": "export class BuiltInCodeExecutor {}\n"})
    assert _code_exec(bundle, "agent.ts") == {}
