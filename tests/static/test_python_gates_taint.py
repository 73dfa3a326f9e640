"""Python: each gate kind, dominance (and its absence), taint paths and the unresolved frontier."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds

HEAD = "import os, subprocess, shutil\nimport stripe\nfrom langchain_core.tools import tool\n\n@tool\ndef t(x: str, amount: int = 0) -> str:\n    '''T.'''\n"


def _tool(body: str) -> str:
    return HEAD + "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))


@pytest.mark.parametrize(
    ("body", "action_class", "kind"),
    [
        (
            "if not request_approval(x):\n    return 'no'\nshutil.rmtree('/d')\nreturn 'ok'",
            "file.delete",
            "human_approval",
        ),
        ("if ask_human(x):\n    shutil.rmtree('/d')\nreturn 'ok'", "file.delete", "human_approval"),
        (
            "from langgraph.types import interrupt\ninterrupt({'confirm': x})\nshutil.rmtree('/d')\nreturn 'ok'",
            "file.delete",
            "human_approval",
        ),
        (
            "if input('ok? ') != 'y':\n    raise SystemExit\nshutil.rmtree('/d')\nreturn 'ok'",
            "file.delete",
            "human_approval",
        ),
        (
            "if not user.has_permission('admin'):\n    raise PermissionError\nshutil.rmtree('/d')\nreturn 'ok'",
            "file.delete",
            "permission_check",
        ),
        (
            "if x not in ALLOWED_PATHS:\n    raise ValueError(x)\nshutil.rmtree(x)\nreturn 'ok'",
            "file.delete",
            "allowlist",
        ),
        ("limiter.acquire()\nos.remove('/a')\nreturn 'ok'", "file.delete", "rate_limit"),
        ("check_rate_limit(x)\nos.remove('/a')\nreturn 'ok'", "file.delete", "rate_limit"),
        (
            "if amount > MAX_REFUND:\n    raise ValueError('too much')\nstripe.Refund.create(charge='c', amount=amount)\nreturn 'ok'",
            "payment",
            "spend_limit",
        ),
    ],
)
def test_gate_kinds_that_dominate(body: str, action_class: str, kind: str) -> None:
    linked = analyse({"a.py": _tool(body)})
    assert gate_kinds(linked, action_class) == {kind}


def test_sandbox_gate_is_recorded() -> None:
    code = "from e2b_code_interpreter import Sandbox\n\ndef run(code):\n    sbx = Sandbox()\n    return sbx.run_code(code)\n"
    linked = analyse({"a.py": code})
    assert [g.kind for g in linked.gates] == ["sandbox"]


def test_permission_decorator_dominates_the_whole_function() -> None:
    code = "import os\nfrom auth import requires_permission\n\n@requires_permission('ops')\ndef purge(p):\n    os.remove(p)\n"
    linked = analyse({"a.py": code})
    assert gate_kinds(linked, "file.delete") == {"permission_check"}


def test_agents_sdk_needs_approval_is_a_human_approval_gate() -> None:
    code = "import os\nfrom agents import function_tool\n\n@function_tool(needs_approval=True)\ndef purge(p: str) -> str:\n    '''Purge.'''\n    os.remove(p)\n    return p\n"
    assert gate_kinds(analyse({"a.py": code}), "file.delete") == {"human_approval"}


@pytest.mark.parametrize(
    "body",
    [
        # The check is in one branch; the other branch reaches the action unchecked.
        "if x == 'safe':\n    if not request_approval(x):\n        return 'no'\nshutil.rmtree('/d')\nreturn 'ok'",
        # The approval comes after the action.
        "shutil.rmtree('/d')\nrequest_approval(x)\nreturn 'ok'",
        # The action is on the failure branch of the check.
        "if not request_approval(x):\n    shutil.rmtree('/d')\nreturn 'ok'",
        # The check does not stop the path.
        "if not request_approval(x):\n    print('not approved')\nshutil.rmtree('/d')\nreturn 'ok'",
        # Approval in an else branch only.
        "if x:\n    pass\nelse:\n    request_approval(x)\nshutil.rmtree('/d')\nreturn 'ok'",
    ],
)
def test_gates_that_do_not_dominate_do_not_count(body: str) -> None:
    assert gate_kinds(analyse({"a.py": _tool(body)}), "file.delete") == set()


def test_gate_in_the_tool_dominates_a_helper_in_another_file() -> None:
    linked = analyse(
        {
            "tools.py": "from langchain_core.tools import tool\nfrom helpers import wipe\n\n@tool\ndef t(p: str) -> str:\n    '''T.'''\n"
            "    if not require_approval(p):\n        return 'no'\n    return wipe(p)\n",
            "helpers.py": "import shutil\n\ndef wipe(p):\n    shutil.rmtree(p)\n",
        }
    )
    assert gate_kinds(linked, "file.delete") == {"human_approval"}
    (action,) = linked.actions
    assert action.reachedFrom[0].gateIds == action.gateIds


def test_gate_must_hold_on_every_path_from_every_tool() -> None:
    linked = analyse(
        {
            "tools.py": "from langchain_core.tools import tool\nfrom helpers import wipe\n\n@tool\ndef safe(p: str) -> str:\n    '''S.'''\n"
            "    if not require_approval(p):\n        return 'no'\n    return wipe(p)\n\n@tool\ndef unsafe(p: str) -> str:\n    '''U.'''\n    return wipe(p)\n",
            "helpers.py": "import shutil\n\ndef wipe(p):\n    shutil.rmtree(p)\n",
        }
    )
    (action,) = linked.actions
    assert action.gateIds == []
    assert sorted(len(p.gateIds) for p in action.reachedFrom) == [0, 1]


def test_taint_model_output_to_shell_with_both_ends() -> None:
    code = (
        "import subprocess\nfrom openai import OpenAI\nclient = OpenAI()\n\ndef act(task):\n"
        "    resp = client.chat.completions.create(model='m', messages=[{'role': 'user', 'content': task}])\n"
        "    cmd = resp.choices[0].message.content\n    full = f'bash -c {cmd}'\n"
        "    subprocess.run(full, shell=True)\n"
    )
    linked = analyse({"a.py": code})
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.source.line, flow.sink.line, flow.actionClass) == ("model_output", 6, 9, "shell.exec")
    assert flow.ruleId == "TAINT-EXEC-001"


def test_taint_tool_argument_through_a_helper_in_another_file() -> None:
    linked = analyse(
        {
            "tools.py": "from langchain_core.tools import tool\nimport ops\n\n@tool\ndef run(command: str) -> str:\n    '''Run.'''\n    return ops.execute('prefix ' + command)\n",
            "ops.py": "import os\n\ndef execute(line):\n    os.system(line)\n",
        }
    )
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.source.path, flow.sink.path, flow.actionClass) == (
        "tool_argument",
        "tools.py",
        "ops.py",
        "shell.exec",
    )
    assert [(loc.path, loc.line) for loc in flow.path] == [("tools.py", 7), ("ops.py", 4)]


def test_taint_through_a_returning_helper() -> None:
    code = (
        "import subprocess\nfrom openai import OpenAI\nclient = OpenAI()\n\ndef ask(q):\n"
        "    return client.responses.create(model='m', input=q).output_text\n\ndef act(q):\n    subprocess.run(ask(q), shell=True)\n"
    )
    assert [f.sourceKind for f in analyse({"a.py": code}).taintFlows] == ["model_output"]


def test_allowlist_sanitises_the_checked_value() -> None:
    body = "if x not in ALLOWED_CMDS:\n    raise ValueError(x)\nsubprocess.run([x])\nreturn 'ok'"
    linked = analyse({"a.py": _tool(body)})
    assert linked.taintFlows == []


def test_constant_arguments_carry_no_taint() -> None:
    linked = analyse({"a.py": _tool("subprocess.run(['uptime'])\nreturn 'ok'")})
    assert linked.taintFlows == []


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("def run(obj, name, arg):\n    return getattr(obj, name)(arg)\n", "dynamic_dispatch"),
        ("HANDLERS = {}\ndef run(name, arg):\n    return HANDLERS[name](arg)\n", "dynamic_dispatch"),
        (
            "from langchain_mcp_adapters.client import MultiServerMCPClient\nasync def f(c: MultiServerMCPClient):\n    c = MultiServerMCPClient({})\n    return await c.get_tools()\n",
            "runtime_registered_tools",
        ),
        ("from langchain.agents import load_tools\ntools = load_tools(['serpapi'])\n", "config_registered_tools"),
    ],
)
def test_frontier(code: str, kind: str) -> None:
    assert [f.kind for f in analyse({"a.py": code}).frontier] == [kind]
