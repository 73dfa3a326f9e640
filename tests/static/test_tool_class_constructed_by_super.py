"""Issue 20: a class extending a package's tool class builds its tool in ``__init__`` as the base's constructor would
(``super().__init__(name="execute_code", func=self._execute)`` in a subclass of Agent Framework's ``AIFunction``):
the method handed over is the tool of that name, reaching what it runs. A package class built with a name and the
tree's function under ``func=`` is a tool constructor whether its name ends in ``Tool`` or in ``Function``."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def test_super_init_of_a_package_tool_class_names_the_tool_it_runs() -> None:
    code = (
        "import subprocess\n"  # 1
        "import sys\n"  # 2
        "from agent_framework import AIFunction, ChatAgent\n"  # 3
        "\n"  # 4
        "class CodeExecutionTool(AIFunction):\n"  # 5
        "    def __init__(self, timeout: int = 30):\n"  # 6
        "        self.timeout = timeout\n"  # 7
        "        super().__init__(\n"  # 8
        "            name='execute_code',\n"  # 9
        "            description='Run Python code',\n"  # 10
        "            func=self._execute,\n"  # 11
        "        )\n"  # 12
        "\n"  # 13
        "    async def _execute(self, code: str) -> str:\n"  # 14
        "        return subprocess.run([sys.executable, '-c', code]).stdout\n"  # 15
        "\n"  # 16
        "agent = ChatAgent(tools=[CodeExecutionTool()])\n"  # 17
    )
    linked = analyse({"tools.py": code})
    found = {(t.name, t.location.line) for t in linked.tools}
    assert ("execute_code", 8) in found or ("execute_code", 9) in found
    assert ("shell.exec", 15) in _reached(linked, "execute_code")
    assert any(f.sink.line == 15 for f in linked.taintFlows)


def test_a_package_function_class_built_with_a_function_is_a_tool() -> None:
    code = (
        "import os\n"  # 1
        "from agent_framework import AIFunction\n"  # 2
        "\n"  # 3
        "def remove(path: str) -> str:\n"  # 4
        "    os.remove(path)\n"  # 5
        "    return 'ok'\n"  # 6
        "\n"  # 7
        "remover = AIFunction(name='remove_file', description='Remove a file', func=remove)\n"  # 8
    )
    linked = analyse({"tools.py": code})
    assert ("file.delete", 5) in _reached(linked, "remove_file")
