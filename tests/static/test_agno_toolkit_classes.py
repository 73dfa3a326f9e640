"""Issue 20 (known gaps): an Agno ``Toolkit`` written in the code names its own methods as tools, in
``super().__init__(tools=[...])`` or ``self.register(...)``; each is a tool under the method's name running the
method, kept or dropped by ``include_tools=``/``exclude_tools=``, behind a person's approval when
``requires_confirmation_tools=`` or ``external_execution_required_tools=`` names it."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, int]]:
    return sorted((t.name, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, int, tuple[str, ...]]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    kinds = {g.id: g.kind for g in linked.gates}
    return {
        (a.actionClass, a.location.line, tuple(sorted(kinds[g] for g in a.gateIds)))
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


SHELL_TOOLS = (
    "import shutil\n"
    "import subprocess\n"
    "import httpx\n"
    "from agno.agent import Agent\n"
    "from agno.tools import Toolkit\n\n\n"
    "class OpsTools(Toolkit):\n"
    "    def __init__(self, **kwargs):\n"
    "        super().__init__(\n"
    "            name='ops',\n"
    "            tools=[self.run, self.wipe, self.fetch],\n"
    "            requires_confirmation_tools=['wipe'],\n"
    "            external_execution_required_tools=['run'],\n"
    "            **kwargs,\n"
    "        )\n\n"
    "    def _get(self, url: str) -> str:\n"
    "        return httpx.get(url).text\n\n"
    "    def run(self, cmd: str) -> str:\n"
    "        return subprocess.run(cmd, shell=True, capture_output=True).stdout\n\n"
    "    def wipe(self, path: str) -> str:\n"
    "        shutil.rmtree(path)\n"
    "        return 'ok'\n\n"
    "    def fetch(self, url: str) -> str:\n"
    "        return self._get(url)\n\n\n"
    "agent = Agent(tools=[OpsTools()])\n"
)


def test_the_methods_a_toolkit_lists_are_tools_running_them_the_named_ones_behind_approval() -> None:
    linked = analyse({"app.py": SHELL_TOOLS})
    assert _tools(linked) == [("fetch", 28), ("run", 21), ("wipe", 24)]
    assert _reached(linked, "run") == {("shell.exec", 22, ("human_approval",))}
    assert _reached(linked, "wipe") == {("file.delete", 25, ("human_approval",))}
    # A helper the tool calls is reached; no approval was asked for this one.
    assert _reached(linked, "fetch") == {("network.egress", 19, ())}


def test_a_list_built_first_register_and_the_name_filters_decide_the_tools() -> None:
    linked = analyse(
        {
            "tools.py": (
                "import os\n"
                "from agno.tools.toolkit import Toolkit\n\n\n"
                "class FileTools(Toolkit):\n"
                "    def __init__(self, sub: bool = False):\n"
                "        tools = [self.read, self.remove]\n"
                "        if not sub:\n"
                "            tools.append(self.move)\n"
                "        super().__init__(name='files', tools=tools, exclude_tools=['remove'])\n"
                "        self.register(self.write, name='save_file')\n\n"
                "    def read(self, p: str) -> str:\n"
                "        return open(p).read()\n\n"
                "    def remove(self, p: str) -> None:\n"
                "        os.remove(p)\n\n"
                "    def move(self, a: str, b: str) -> None:\n"
                "        os.rename(a, b)\n\n"
                "    def write(self, p: str, text: str) -> None:\n"
                "        with open(p, 'w') as f:\n"
                "            f.write(text)\n\n\n"
                "class OldStyle(Toolkit):\n"
                "    def __init__(self):\n"
                "        super().__init__(name='old', include_tools=['ping'])\n"
                "        self.register(self.ping)\n"
                "        self.register(self.pong)\n\n"
                "    def ping(self) -> str:\n"
                "        return os.getcwd()\n\n"
                "    def pong(self) -> None:\n"
                "        os.remove('x')\n"
            )
        }
    )
    assert _tools(linked) == [("move", 19), ("ping", 33), ("read", 13), ("save_file", 22)]
    assert {a for a, _, _ in _reached(linked, "save_file")} == {"file.write"}


def test_a_class_of_the_same_shape_extending_no_toolkit_base_gives_no_tools() -> None:
    linked = analyse(
        {
            "app.py": (
                "import subprocess\n"
                "from helpers import Base\n\n\n"
                "class Runner(Base):\n"
                "    def __init__(self):\n"
                "        super().__init__(name='r', tools=[self.run])\n"
                "        self.register(self.run)\n\n"
                "    def run(self, cmd: str) -> None:\n"
                "        subprocess.run(cmd, shell=True)\n"
            )
        }
    )
    assert _tools(linked) == []


def test_a_library_toolkits_external_execution_list_is_an_approval_over_the_tool_it_names() -> None:
    linked = analyse(
        {
            "app.py": (
                "from agno.agent import Agent\n"
                "from agno.tools.shell import ShellTools\n\n"
                "agent = Agent(tools=[ShellTools(external_execution_required_tools=['run_shell_command'])])\n"
            )
        }
    )
    assert _reached(linked, "run_shell_command") == {("shell.exec", 4, ("human_approval",))}
