"""Issue 20 (known gaps), Python: a callable made from another is called as what it wraps
(``functools.partial(subprocess.run, shell=True)`` bound to a name, ``getattr(os, "system")(cmd)``); an archive
opened for writing (``zipfile.ZipFile(p, "w")``, ``tarfile.open(p, "w:gz")``) writes its file, one built in memory
does not; a module function's mode is its second argument (``io.open(p, "w")``)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    names = {t.id: t.name for t in linked.tools}
    return {
        (names[p.toolId], a.actionClass, a.location.line)
        for a in linked.actions
        for p in a.reachedFrom
        if p.toolId in names
    }


def test_a_partial_bound_to_a_name_and_a_literal_getattr_are_calls_of_what_they_wrap() -> None:
    linked = analyse(
        {
            "app.py": (
                "import functools\n"
                "import os\n"
                "import subprocess\n"
                "from functools import partial\n"
                "from agno.tools import tool\n\n"
                "run_shell = functools.partial(subprocess.run, shell=True, check=True)\n\n\n"
                "@tool\n"
                "def run(cmd: str) -> str:\n"
                "    run_shell(cmd)\n"
                "    return ''\n\n\n"
                "@tool\n"
                "def system(cmd: str) -> str:\n"
                "    getattr(os, 'system')(cmd)\n"
                "    out = partial(subprocess.check_output, shell=True)\n"
                "    return out(cmd)\n\n\n"
                "@tool\n"
                "def chosen(name: str, cmd: str) -> str:\n"
                "    getattr(os, name)(cmd)\n"
                "    return ''\n"
            )
        }
    )
    assert {r for r in _reached(linked) if r[1] == "shell.exec"} == {
        ("run", "shell.exec", 12),
        ("system", "shell.exec", 18),
        ("system", "shell.exec", 20),
    }
    sinks = {(f.sink.path, f.sink.line) for f in linked.taintFlows}
    assert {("app.py", 12), ("app.py", 18), ("app.py", 20)} <= sinks


def test_archives_opened_for_writing_write_their_file_not_when_built_in_memory() -> None:
    linked = analyse(
        {
            "app.py": (
                "import io\n"
                "import tarfile\n"
                "import zipfile\n"
                "from agno.tools import tool\n\n\n"
                "@tool\n"
                "def pack(path: str, src: str) -> bytes:\n"
                "    with zipfile.ZipFile(path, 'w') as z:\n"
                "        z.write(src)\n"
                "    with tarfile.open(path + '.tgz', 'w:gz') as t:\n"
                "        t.add(src)\n"
                "    with zipfile.ZipFile(path, mode='a') as z:\n"
                "        z.writestr('x', 'y')\n"
                "    zipfile.ZipFile(path).namelist()\n"
                "    tarfile.open(path, 'r:gz').getnames()\n"
                "    buf = io.BytesIO()\n"
                "    with zipfile.ZipFile(buf, 'w') as z:\n"
                "        z.writestr('a', 'b')\n"
                "    tarfile.open(fileobj=io.BytesIO(), mode='w')\n"
                "    with io.open(path, 'w') as f:\n"
                "        f.write('x')\n"
                "    return buf.getvalue()\n"
            )
        }
    )
    assert {(c, line) for _, c, line in _reached(linked) if c == "file.write"} == {
        ("file.write", 9),
        ("file.write", 11),
        ("file.write", 13),
        ("file.write", 21),
    }
