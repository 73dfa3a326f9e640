"""Issue 20, a command run in a Docker container the client started or looked up is a process inside that
container: ``container.exec_run(cmd)`` with ``container = client.containers.get(name)`` (or ``.run(...)``,
``.create(...)``), also when a method of the tree returns the container, is shell.exec under a sandbox gate, the
model's command flowing into it."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked

HELPER = (
    "import docker\n"  # 1
    "from pydantic_ai import Agent\n"  # 2
    "\n"  # 3
    "class Sandbox:\n"  # 4
    "    def __init__(self):\n"  # 5
    "        self._client = None\n"  # 6
    "\n"  # 7
    "    @property\n"  # 8
    "    def client(self):\n"  # 9
    "        if self._client is None:\n"  # 10
    "            self._client = docker.from_env()\n"  # 11
    "        return self._client\n"  # 12
    "\n"  # 13
    "    def ensure_container(self):\n"  # 14
    "        try:\n"  # 15
    "            return self.client.containers.get('runner')\n"  # 16
    "        except Exception:\n"  # 17
    "            return self.client.containers.run('python:3.12-slim', detach=True, command='sh')\n"  # 18
    "\n"  # 19
    "    def run_command(self, cmd: str) -> str:\n"  # 20
    "        container = self.ensure_container()\n"  # 21
    "        code, output = container.exec_run(cmd, workdir='/workspace')\n"  # 22
    "        return output.decode()\n"  # 23
    "\n"  # 24
    "SANDBOX = Sandbox()\n"  # 25
    "\n"  # 26
    "def run_shell_command(cmd: str) -> str:\n"  # 27
    "    return SANDBOX.run_command(cmd)\n"  # 28
    "\n"  # 29
    "agent = Agent('openai:gpt-4o')\n"  # 30
    "agent.tool_plain(run_shell_command)\n"  # 31
)

DIRECT = (
    "import docker\n"  # 1
    "from pydantic_ai import Agent\n"  # 2
    "\n"  # 3
    "client = docker.from_env()\n"  # 4
    "\n"  # 5
    "def run_shell_command(cmd: str) -> str:\n"  # 6
    "    container = client.containers.get('runner')\n"  # 7
    "    code, output = container.exec_run(cmd)\n"  # 8
    "    return output.decode()\n"  # 9
    "\n"  # 10
    "agent = Agent('openai:gpt-4o')\n"  # 11
    "agent.tool_plain(run_shell_command)\n"  # 12
)


def _exec(linked: Linked, line: int) -> tuple[set[str], bool]:
    """The gate kinds over the shell.exec at ``line`` reached from a tool, and whether a tool's argument flows there."""
    kinds = {g.id: g.kind for g in linked.gates}
    found = [a for a in linked.actions if a.actionClass == "shell.exec" and a.location.line == line and a.reachedFrom]
    assert found, "no shell.exec reached from a tool at that line"
    flows = any(f.sink.line == line for f in linked.taintFlows)
    return {kinds[g] for a in found for g in a.gateIds}, flows


@pytest.mark.parametrize(("source", "line"), [(HELPER, 22), (DIRECT, 8)])
def test_a_command_run_in_a_container_is_a_sandboxed_process(source: str, line: int) -> None:
    gates, flows = _exec(analyse({"m.py": source}), line)
    assert gates == {"sandbox"}
    assert flows
