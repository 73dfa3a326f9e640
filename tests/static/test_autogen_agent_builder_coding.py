"""Issue 20, AutoGen's AgentBuilder builds a team from a task: ``builder.build(task, llm_config, coding=True)`` adds a
user proxy that runs the code the built agents' models write (on the host unless configured otherwise), so the call
is code execution of model output; with ``coding`` left out the builder's model decides whether to add it, and
``coding=False`` adds none."""

from __future__ import annotations

from pyfix import analyse

CODE = """from autogen.agentchat.contrib.agent_builder import AgentBuilder

builder = AgentBuilder(config_file_or_env="OAI_CONFIG_LIST", builder_model="gpt-4o")


def team(task: str, config: dict):
    coders, _ = builder.build(task, config, coding=True)
    chosen, _ = builder.build(task, config)
    talkers, _ = builder.build(task, config, coding=False)
    return coders, chosen, talkers
"""


def test_a_builder_adding_a_code_runner_runs_model_written_code() -> None:
    linked = analyse({"team.py": CODE})
    assert sorted((a.actionClass, a.location.line) for a in linked.actions) == [("code.exec", 7), ("code.exec", 8)]
    assert {f.sink.line for f in linked.taintFlows if f.sourceKind == "model_output"} == {7, 8}
