"""Issue 20: a table naming each tool by its declaration and its function (``file_tools = {"read_file":
{"definition": read_file_definition, "function": read_file}}``), the declarations handed to a model
(Gemini ``function_declarations``, OpenAI ``tools=``) and the function picked by the name the model gives,
runs that function for that tool. A record naming no function leaves the tool's implementation unknown."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

TOOLS = (
    "import os\n\n"
    "read_file_definition = {\n"
    "    'name': 'read_file',\n"
    "    'description': 'Reads a file.',\n"
    "    'parameters': {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path']},\n"
    "}\n\n"
    "def read_file(path: str) -> str:\n"
    "    with open(path) as f:\n"
    "        return f.read()\n\n"
    "file_tools = {\n"
    "    'read_file': {'definition': read_file_definition, '{key}': read_file},\n"
    "}\n"
)

AGENT = (
    "from google import genai\nfrom google.genai import types\nfrom tools import file_tools\n\n"
    "client = genai.Client()\n\n"
    "def run(prompt: str) -> str:\n"
    "    config = types.GenerateContentConfig(\n"
    "        tools=[types.Tool(function_declarations=[t['definition'] for t in file_tools.values()])]\n"
    "    )\n"
    "    response = client.models.generate_content(model='gemini-2.5-flash', contents=prompt, config=config)\n"
    "    call = response.function_calls[0]\n"
    "    return file_tools[call.name]['function'](**call.args)\n"
)


def _reached(linked: Linked) -> set[tuple[str, str]]:
    names = {t.id: t.name for t in linked.tools}
    return {(names[p.toolId], a.actionClass) for a in linked.actions for p in a.reachedFrom}


def test_a_table_of_declaration_and_function_records_runs_each_tools_function() -> None:
    linked = analyse({"tools.py": TOOLS.replace("{key}", "function"), "agent.py": AGENT})
    assert [t.name for t in linked.tools if t.name == "read_file"] == ["read_file"]
    assert ("read_file", "file.read") in _reached(linked)


def test_a_record_naming_no_function_leaves_the_implementation_unknown() -> None:
    linked = analyse({"tools.py": TOOLS.replace("{key}", "notes"), "agent.py": AGENT})
    assert ("read_file", "file.read") not in _reached(linked)
    assert any("read_file" in f.detail and f.kind == "dynamic_dispatch" for f in linked.frontier)
