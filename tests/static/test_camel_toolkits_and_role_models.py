"""Library toolkits served or taken whole (a CAMEL ``TerminalToolkit`` given to a model through ``get_tools()``
or served over MCP with ``run_mcp_server()``), the checks the library makes by default and the keyword that
switches them off, and a model a team's role runs on named by a ``*_llm`` keyword: what the bundle reports."""

from __future__ import annotations

from pyfix import analyse, gate_kinds


def _tools(linked: object) -> list[tuple[str, int]]:
    return sorted((t.name, t.location.line) for t in linked.tools)  # type: ignore[attr-defined]


_TERMINAL = [
    "shell_ask_user_for_help",
    "shell_exec",
    "shell_kill_process",
    "shell_view",
    "shell_write_content_to_file",
    "shell_write_to_process",
]


def test_a_toolkit_served_over_mcp_gives_its_tools_with_their_effects_and_default_checks() -> None:
    code = (
        "from camel.toolkits import TerminalToolkit\n\n"
        "if __name__ == '__main__':\n"
        "    toolkit = TerminalToolkit(timeout=5)\n"
        "    toolkit.run_mcp_server(mode='stdio')\n"
    )
    linked = analyse({"server.py": code})
    assert sorted(name for name, _ in _tools(linked)) == _TERMINAL
    assert {a.actionClass for a in linked.actions if a.reachedFrom} == {"shell.exec", "file.write"}
    assert gate_kinds(linked, "file.write") == {"path_containment"}
    # shell_exec is checked (deny rules, cd outside the working directory); shell_write_to_process is not.
    shells = [a for a in linked.actions if a.actionClass == "shell.exec"]
    assert sorted(len(a.gateIds) for a in shells) == [0, 2]
    assert "shell.exec" in {f.actionClass for f in linked.taintFlows}


def test_safe_mode_false_switches_the_toolkit_checks_off() -> None:
    code = (
        "from camel.agents import ChatAgent\nfrom camel.toolkits import TerminalToolkit\n\n"
        "agent = ChatAgent('sys', tools=[*TerminalToolkit(safe_mode=False).get_tools()])\n"
    )
    linked = analyse({"agent.py": code})
    assert "shell_exec" in {name for name, _ in _tools(linked)}
    assert not any(a.gateIds for a in linked.actions)


def test_a_toolkit_built_but_never_given_gives_the_model_nothing() -> None:
    code = (
        "from camel.toolkits import TerminalToolkit\n\n"
        "def describe() -> str:\n    toolkit = TerminalToolkit()\n    return type(toolkit).__name__\n"
    )
    linked = analyse({"x.py": code})
    assert linked.tools == [] and not any(a.reachedFrom for a in linked.actions)


def test_a_role_llm_keyword_naming_a_model_id_is_a_model_use() -> None:
    code = (
        "from praisonaiagents import AgentTeam\n\n"
        "team = AgentTeam(\n    agents=[],\n    process='hierarchical',\n    manager_llm='gpt-4o-mini',\n)\n"
    )
    linked = analyse({"app.py": code})
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [("openai", "gpt-4o-mini", 3)]


def test_a_role_llm_keyword_that_names_no_model_records_nothing() -> None:
    code = "from praisonaiagents import AgentTeam\n\nteam = AgentTeam(agents=[], use_llm='always', manager_llm=True)\n"
    linked = analyse({"app.py": code})
    assert linked.models == []
