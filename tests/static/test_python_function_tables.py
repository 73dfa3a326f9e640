"""Issue 20: a plain loop's tools in Python: a module-level dict of the code's functions looked up by a key the
model's answer holds and called (``TOOL_MAP[parsed["tool_name"]](parsed["input"])``, also after ``if tool not
in TOOL_MAP: continue``) are the model's tools, named by their keys, run by their functions, at the function's
def when named after it, else at the key. A table looked up by a key no model chose, or holding anything but
functions named by reference, is no tool and stays a frontier item."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _agent(table: str, key: str) -> str:
    return (
        "import json\nimport subprocess\nimport sys\nimport requests\nfrom openai import OpenAI\n\n"
        "def execute_command(cmd: str) -> str:\n"  # 7
        "    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout\n\n"
        "def read_page(url: str) -> str:\n"  # 10
        "    return requests.get(url).text\n\n"
        f"TOOL_MAP = {table}\n"  # 13
        "client = OpenAI()\n\n"
        "def main() -> None:\n"
        "    messages = [{'role': 'system', 'content': 'Tools: execute_command(cmd), fetch_page(url)'}]\n"
        "    while True:\n"
        "        response = client.chat.completions.create(model='gpt-4.1-mini', messages=messages)\n"
        "        parsed = json.loads(response.choices[0].message.content)\n"
        f"        tool = {key}\n"
        "        if tool not in TOOL_MAP:\n"
        "            continue\n"
        "        output = TOOL_MAP[tool](parsed['input'])\n"
        "        messages.append({'role': 'user', 'content': str(output)})\n"
    )


def _reached(linked: Linked) -> set[tuple[str, str]]:
    names = {t.id: t.name for t in linked.tools}
    return {(names[p.toolId], a.actionClass) for a in linked.actions for p in a.reachedFrom}


def test_a_function_table_keyed_by_the_models_answer_holds_the_models_tools() -> None:
    table = "{'execute_command': execute_command, 'fetch_page': read_page}"
    linked = analyse({"agent.py": _agent(table, "parsed['tool_name']")})
    assert sorted((t.name, t.location.line) for t in linked.tools) == [("execute_command", 7), ("fetch_page", 13)]
    assert _reached(linked) == {("execute_command", "shell.exec"), ("fetch_page", "network.egress")}


def test_a_table_keyed_by_what_no_model_chose_or_holding_other_values_is_no_tool() -> None:
    for table, key in (
        ("{'execute_command': execute_command, 'fetch_page': read_page}", "sys.argv[1]"),
        ("{'execute_command': execute_command, 'fetch_page': lambda u: read_page(u)}", "parsed['tool_name']"),
    ):
        linked = analyse({"agent.py": _agent(table, key)})
        assert [t.name for t in linked.tools] == []
        assert any(f.kind == "dynamic_dispatch" for f in linked.frontier)
