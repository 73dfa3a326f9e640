"""Approvals and path checks where Python agent code puts them (issue 20, gates wherever frameworks put them):
a tool decorator applied by a call, ``agent.tool_plain(requires_approval=True)(f)``, asks a person before every
call of the tool it registers, as the ``@`` form does; a function registered with an approval on each of two
agents is approved on every path though by a different registration; an agent chosen in a loop at module level
is still the agent its decorators name; a path refused when it holds ``..`` is path containment when no other
containment check holds beside it. Each has a negative twin: ``requires_approval=False``, a registration without
approval beside one with it, a substring test that is not a step out of a directory, and a ``..`` test beside a
resolved-path check (the containment check alone gates)."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

from assay.backend.engines.static.link import Linked

RUN = "from pydantic_ai import Agent\nfrom subprocess import run\n\n"
GATHER = "def gather(command: str) -> str:\n    '''Run a command.'''\n    return run(command, shell=True).stdout\n\n"


def _tools(linked: Linked) -> set[tuple[str, str]]:
    return {(t.name, t.location.path) for t in linked.tools}


def _gate_lines(linked: Linked, action_class: str) -> set[tuple[str, int]]:
    sites = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return {sites[g] for a in linked.actions if a.actionClass == action_class for g in a.gateIds}


def test_a_decorator_applied_by_a_call_with_an_approval_gates_the_registered_tool() -> None:
    source = (
        RUN
        + GATHER
        + (
            "def build():\n    agent = Agent('openai:gpt-4o')\n"
            "    agent.tool_plain(requires_approval=True)(gather)\n    return agent\n"
        )
    )
    linked = analyse({"app.py": source})
    assert ("gather", "app.py") in _tools(linked)
    line = source.splitlines().index("    agent.tool_plain(requires_approval=True)(gather)") + 1
    assert _gate_lines(linked, "shell.exec") == {("human_approval", line)}


def test_a_decorator_applied_by_a_call_without_approval_gates_nothing() -> None:
    source = (
        RUN
        + GATHER
        + (
            "def build():\n    agent = Agent('openai:gpt-4o')\n"
            "    agent.tool_plain(requires_approval=False)(gather)\n    return agent\n"
        )
    )
    linked = analyse({"app.py": source})
    assert ("gather", "app.py") in _tools(linked)
    assert gate_kinds(linked, "shell.exec") == set()


def test_a_function_approved_on_each_agent_it_is_given_to_is_approved_on_every_path() -> None:
    source = (
        RUN
        + GATHER
        + (
            "def build(local: bool):\n"
            "    if local:\n        agent = Agent('ollama:qwen3')\n"
            "        agent.tool_plain(requires_approval=True)(gather)\n"
            "    else:\n        agent = Agent('openai:gpt-4o')\n"
            "        agent.tool_plain(requires_approval=True)(gather)\n"
            "    return agent\n"
        )
    )
    linked = analyse({"app.py": source})
    lines = [i + 1 for i, text in enumerate(source.splitlines()) if "requires_approval=True" in text]
    assert _gate_lines(linked, "shell.exec") == {("human_approval", line) for line in lines}


def test_a_function_given_without_approval_to_one_agent_is_not_approved_on_every_path() -> None:
    source = (
        RUN
        + GATHER
        + (
            "def build(local: bool):\n"
            "    if local:\n        agent = Agent('ollama:qwen3')\n"
            "        agent.tool_plain(requires_approval=True)(gather)\n"
            "    else:\n        agent = Agent('openai:gpt-4o')\n"
            "        agent.tool_plain(gather)\n"
            "    return agent\n"
        )
    )
    assert gate_kinds(analyse({"app.py": source}), "shell.exec") == set()


def test_an_agent_chosen_in_a_loop_at_module_level_names_its_decorated_tools() -> None:
    source = RUN + (
        "choice = -1\nwhile choice not in (0, 1):\n    choice = int(input('model: '))\n"
        "    if choice == 0:\n        agent = Agent('ollama:qwen3')\n"
        "    elif choice == 1:\n        agent = Agent('openai:gpt-4o')\n\n"
        "@agent.tool_plain(requires_approval=True)\n" + GATHER
    )
    linked = analyse({"cli.py": source})
    assert ("gather", "cli.py") in _tools(linked)
    assert gate_kinds(linked, "shell.exec") == {"human_approval"}


def test_a_decorator_on_a_name_bound_nowhere_is_no_tool() -> None:
    source = RUN + "@helper.tool_plain(requires_approval=True)\n" + GATHER
    assert ("gather", "cli.py") not in _tools(analyse({"cli.py": source}))


READER = "from pydantic_ai import Agent\nfrom pathlib import Path\n\nagent = Agent('openai:gpt-4o')\n\n"


def test_a_path_refused_when_it_climbs_out_of_its_directory_is_contained() -> None:
    source = READER + (
        "@agent.tool_plain\ndef read_file(filepath: str) -> str:\n    '''Read.'''\n"
        "    if '..' in filepath:\n        return 'Error: no traversal'\n"
        "    with open(filepath) as f:\n        return f.read()\n"
    )
    line = source.splitlines().index("    if '..' in filepath:") + 1
    assert _gate_lines(analyse({"app.py": source}), "file.read") == {("path_containment", line)}


def test_a_substring_that_is_no_step_out_of_a_directory_is_no_containment() -> None:
    source = READER + (
        "@agent.tool_plain\ndef read_file(filepath: str) -> str:\n    '''Read.'''\n"
        "    if 'tmp' in filepath:\n        return 'Error'\n"
        "    with open(filepath) as f:\n        return f.read()\n"
    )
    assert gate_kinds(analyse({"app.py": source}), "file.read") == set()


def test_a_step_test_beside_a_resolved_path_check_leaves_the_containment_to_that_check() -> None:
    source = READER + (
        "ROOT = Path('./workdir').resolve()\n\n"
        "@agent.tool_plain\ndef write_file(path: str, content: str) -> str:\n    '''Write.'''\n"
        "    if '..' in path:\n        return 'Error: traversal'\n"
        "    target = (ROOT / path).resolve()\n"
        "    if not target.is_relative_to(ROOT):\n        return 'Error: outside'\n"
        "    target.write_text(content)\n    return 'ok'\n"
    )
    line = source.splitlines().index("    if not target.is_relative_to(ROOT):") + 1
    assert _gate_lines(analyse({"app.py": source}), "file.write") == {("path_containment", line)}
