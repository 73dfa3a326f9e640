"""Issue 20, Python: tools handed over in a loop over a list of functions, a package re-exporting its
submodules' tools, checks that raise a refusal, files read and written by data libraries, and a model
class the code subclasses (the second smolagents and Letta units)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _gates(linked: Linked, tool: str, action_class: str) -> list[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    where = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return sorted(
        where[g]
        for a in linked.actions
        if a.actionClass == action_class
        for p in a.reachedFrom
        if p.toolId in ids
        for g in p.gateIds
    )


LETTA_TOOLS = (
    "def usage() -> str:\n"
    "    import os\n"
    "    import httpx\n"
    "    user_id = os.getenv('LETTA_USER_ID')\n"
    "    if not user_id:\n"
    "        raise RuntimeError('LETTA_USER_ID not set')\n"
    "    return httpx.get(f'{os.getenv(\"API_URL\")}/usage/{user_id}').text\n\n"
    "def all_usage() -> str:\n"
    "    import os\n"
    "    import httpx\n"
    "    role = os.getenv('LETTA_USER_ROLE')\n"
    "    if role != 'admin':\n"
    "        raise PermissionError('admins only')\n"
    "    return httpx.post(f'{os.getenv(\"API_URL\")}/admin/usage', json={}).text\n"
)


def test_functions_handed_to_a_builder_in_a_loop_over_a_list_are_tools_and_a_refusal_raised_is_a_gate() -> None:
    files = {
        "tools/__init__.py": "",
        "tools/platform.py": LETTA_TOOLS,
        "agent/__init__.py": "",
        "agent/bootstrap.py": (
            "from letta_client import Letta\n\n"
            "def register(client: Letta, agent_id: str) -> None:\n"
            "    from tools.platform import all_usage, usage\n"
            "    all_tools = [usage, all_usage]\n"
            "    for func in all_tools:\n"
            "        tool = client.tools.upsert_from_function(func=func)\n"
            "        client.agents.tools.attach(tool.id, agent_id=agent_id)\n"
        ),
    }
    linked = analyse(files)
    # Each function the loop walks is a tool, at its def, though it is imported inside the function.
    assert _tools(linked) == [("all_usage", "tools/platform.py", 9), ("usage", "tools/platform.py", 1)]
    assert _reached(linked, "all_usage") == {("network.egress", 15)}
    # ``raise PermissionError`` unless the role is admin: a permission check over the request ...
    assert _gates(linked, "all_usage", "network.egress") == [("permission_check", 13)]
    # ... while a presence check that raises ``RuntimeError`` refuses nothing: no gate.
    assert _reached(linked, "usage") == {("network.egress", 7)}
    assert _gates(linked, "usage", "network.egress") == []


def test_a_refusal_raised_in_the_else_branch_gates_the_if_branch_and_its_kind_follows_the_exception() -> None:
    code = (
        "import httpx\n"
        "from strands import tool\n\n"
        "class Unauthorized(Exception):\n"
        "    pass\n\n"
        "@tool\n"
        "def fetch(token: str, url: str) -> str:\n"
        "    if token == 'expected':\n"
        "        return httpx.get(url).text\n"
        "    else:\n"
        "        raise Unauthorized('bad token')\n"
    )
    linked = analyse({"agent.py": code})
    assert _gates(linked, "fetch", "network.egress") == [("authentication", 9)]


def test_a_package_re_exporting_its_submodules_tools_gives_each_tool_once_at_its_def() -> None:
    files = {
        "tools/__init__.py": "from tools.data import load_csv\n__all__ = ['load_csv']\n",
        "tools/data.py": (
            "import pandas as pd\n"
            "from smolagents import tool\n\n"
            "@tool\n"
            "def load_csv(filepath: str) -> str:\n"
            '    """Load a CSV.\n\n    Args:\n        filepath: the file.\n    """\n'
            "    return pd.read_csv(filepath).to_json()\n"
        ),
        "agent.py": (
            "from smolagents import CodeAgent, LiteLLMModel\n"
            "from tools import load_csv\n\n"
            "def build() -> CodeAgent:\n"
            "    return CodeAgent(tools=[load_csv], model=LiteLLMModel(model_id='gpt-4o'))\n"
        ),
    }
    linked = analyse(files)
    assert _tools(linked) == [("load_csv", "tools/data.py", 5)]
    assert _reached(linked, "load_csv") == {("file.read", 11)}


def test_data_and_plotting_libraries_read_and_write_files_and_a_subclassed_model_class_is_its_base() -> None:
    code = (
        "import os\n"
        "import time\n"
        "import matplotlib.pyplot as plt\n"
        "import pandas as pd\n"
        "from smolagents import CodeAgent, LiteLLMModel, tool\n\n"
        "class SlowModel(LiteLLMModel):\n"
        "    def generate(self, *args, **kwargs):\n"
        "        time.sleep(1)\n"
        "        return super().generate(*args, **kwargs)\n\n"
        "@tool\n"
        "def histogram(filepath: str, output_dir: str) -> str:\n"
        '    """Plot a histogram.\n\n    Args:\n        filepath: the CSV.\n        output_dir: where to save.\n    """\n'
        "    df = pd.read_csv(filepath)\n"
        "    fig, ax = plt.subplots(figsize=(4, 3))\n"
        "    ax.hist(df.iloc[:, 0])\n"
        "    out = os.path.join(output_dir, 'hist.png')\n"
        "    fig.savefig(out)\n"
        "    df.describe().to_csv(os.path.join(output_dir, 'stats.csv'))\n"
        "    return out\n\n"
        "agent = CodeAgent(tools=[histogram], model=SlowModel(model_id='gemini/gemini-2.5-flash'))\n"
    )
    linked = analyse({"agent.py": code})
    assert _reached(linked, "histogram") == {("file.read", 20), ("file.write", 24), ("file.write", 25)}
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [
        ("litellm", "gemini/gemini-2.5-flash", 28)
    ]


def test_text_searched_for_each_pattern_of_a_literal_list_before_a_write_is_a_deny_list() -> None:
    code = (
        "import httpx\n"
        "from strands import tool\n\n"
        "@tool\n"
        "def remember(content: str) -> str:\n"
        "    patterns = [r'sk-[a-zA-Z0-9]{20,}', r'[\\w.]+@[\\w.]+']\n"
        "    for pattern in patterns:\n"
        "        if re.search(pattern, content):\n"
        "            return 'BLOCKED: personal data'\n"
        "    return httpx.post('http://memory/insert', json={'content': content}).text\n\n"
        "@tool\n"
        "def note(content: str, pattern: str) -> str:\n"
        "    for p in [pattern]:\n"
        "        if re.search(p, content):\n"
        "            return 'matched'\n"
        "    return httpx.post('http://memory/insert', json={'content': content}).text\n"
    )
    linked = analyse({"agent.py": "import re\n" + code})
    assert _gates(linked, "remember", "network.egress") == [("allowlist", 9)]
    # Patterns the model chooses are no deny list written in the code.
    assert _gates(linked, "note", "network.egress") == []


def test_instances_of_a_tool_class_renamed_before_they_are_listed_are_tools_of_those_names() -> None:
    files = {
        "tools/__init__.py": "",
        "tools/search.py": (
            "import httpx\n"
            "from smolagents import Tool\n\n"
            "class SearchTool(Tool):\n"
            "    name = 'search'\n"
            "    description = 'Search the web.'\n"
            "    inputs = {'query': {'type': 'string', 'description': 'the query'}}\n"
            "    output_type = 'string'\n\n"
            "    def forward(self, query: str) -> str:\n"
            "        return httpx.get('https://search.example/api', params={'q': query}).text\n"
        ),
        "agent.py": (
            "from smolagents import CodeAgent, InferenceClientModel\n"
            "from tools.search import SearchTool\n\n"
            "class Profile:\n"
            "    name = 'profile'\n\n"
            "def build() -> CodeAgent:\n"
            "    search = SearchTool()\n"
            "    google = SearchTool()\n"
            "    google.name = 'google_search'\n"
            "    person = Profile()\n"
            "    person.name = 'Ada'\n"
            "    return CodeAgent(tools=[search, google], model=InferenceClientModel())\n"
        ),
    }
    linked = analyse(files)
    # The class's own tool, and the renamed instance where it is named; an object of another class
    # renamed the same way is no tool.
    assert _tools(linked) == [("google_search", "agent.py", 10), ("search", "tools/search.py", 4)]
    assert _reached(linked, "google_search") == {("network.egress", 11)}
