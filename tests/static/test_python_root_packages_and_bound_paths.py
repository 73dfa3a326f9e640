"""A package scanned from its own directory, whose modules import each other relatively, and a path
prefix check whose operands were resolved earlier in the function (issue 20: an OpenAI Agents SDK
GitHub assistant labelled before the engine change)."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

_CLIENT = (
    "import requests\n\nclass HubClient:\n    def __init__(self, token=None):\n"
    "        self._session = requests.Session()\n\n"
    "    def _get(self, path):\n        return self._session.get(path).json()\n\n"
    "    def list_things(self, owner):\n        return self._get(f'x/{owner}')\n"
)
_TOOLS = (
    "from agents import function_tool\nfrom .client import HubClient\n\n"
    "def _make(token: str) -> HubClient:\n    return HubClient(token=token or None)\n\n"
    "@function_tool\nasync def list_things(owner: str) -> str:\n    '''List.'''\n"
    "    hub = _make('t')\n    result = hub.list_things(owner)\n    return str(result.get('n'))\n"
)


def _egress(files: dict[str, str]) -> set[tuple[str, int, bool]]:
    linked = analyse(files)
    return {(a.location.path, a.location.line, bool(a.reachedFrom)) for a in linked.actions}


def test_a_relative_import_at_the_scan_root_names_a_module_of_the_tree() -> None:
    # The tool's call is a method of the tree's class, followed to the session call inside it; not a
    # package's client call at the tool, and the dict it returns is no client either.
    assert _egress({"client.py": _CLIENT, "tools.py": _TOOLS}) == {("client.py", 8, True)}


def test_the_same_import_without_the_dot_is_still_a_package_client() -> None:
    tools = _TOOLS.replace("from .client import HubClient", "from hubsdk import HubClient")
    reached = _egress({"tools.py": tools})
    assert ("tools.py", 12, True) in reached


_SYNC = (
    "import os\nfrom agents import function_tool\n\n"
    "@function_tool\ndef save(name: str, text: str) -> str:\n    '''Save.'''\n"
    "    target = os.path.realpath(name)\n    cwd = os.path.realpath(os.getcwd())\n"
    "    if not target.startswith(cwd + os.sep):\n        return 'outside'\n"
    "    open(target, 'w').write(text)\n    return 'ok'\n"
)


def test_a_prefix_check_of_paths_resolved_earlier_is_path_containment() -> None:
    assert gate_kinds(analyse({"tools.py": _SYNC}), "file.write") == {"path_containment"}


def test_a_prefix_check_of_values_that_are_not_paths_is_no_gate() -> None:
    code = (
        _SYNC.replace("os.path.realpath(name)", "name.lower()")
        .replace("os.path.realpath(os.getcwd())", "'draft'")
        .replace("cwd + os.sep", "cwd + '-'")
    )
    assert gate_kinds(analyse({"tools.py": code}), "file.write") == set()
