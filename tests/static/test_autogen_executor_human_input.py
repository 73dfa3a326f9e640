"""Issue 20, an AutoGen 0.2 / AG2 executor that asks a person before each reply: ``register_function(f, caller=a,
executor=proxy)`` has ``proxy`` run the calls ``a``'s model proposes, and a ``UserProxyAgent`` asks the human before
every reply unless its ``human_input_mode`` says otherwise (``"ALWAYS"`` is its default): whatever the person types
is sent instead of running the call, so the call runs only when they let it. ``"NEVER"`` and ``"TERMINATE"`` (asked
only at the end) decide nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

CODE = """import os
from autogen import AssistantAgent, ConversableAgent, UserProxyAgent, agentchat, register_function

def remove(path: str) -> str:
    os.remove(path)
    return "ok"

def purge(path: str) -> str:
    os.remove(path)
    return "ok"

def wipe(path: str) -> str:
    os.remove(path)
    return "ok"

def zap_file(path: str) -> str:
    os.remove(path)
    return "ok"

asking = UserProxyAgent(name="user", code_execution_config=False)
silent = UserProxyAgent(name="bot", human_input_mode="NEVER", code_execution_config=False)
at_end = ConversableAgent("end", llm_config=False, human_input_mode="TERMINATE")
assistant = AssistantAgent(name="assistant", llm_config={"model": "gpt-4o"})

agentchat.register_function(remove, caller=assistant, executor=asking, description="remove a file")
register_function(purge, caller=assistant, executor=silent, description="purge a file")
register_function(wipe, caller=assistant, executor=at_end, description="wipe a file")
register_function(zap_file, caller=assistant, executor=asking, name="zap", description="remove a file")
"""


def _gates(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    where = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return {where[g] for a in linked.actions for p in a.reachedFrom if p.toolId in ids for g in p.gateIds}


def test_an_executor_asking_before_each_reply_approves_the_calls_it_runs() -> None:
    linked = analyse({"agents.py": CODE})
    assert _gates(linked, "remove") == {("human_approval", 20)}
    assert _gates(linked, "purge") == set()
    assert _gates(linked, "wipe") == set()
    assert _gates(linked, "zap") == {("human_approval", 20)}
