"""Side effects reached through the usual indirections (issue 20, actions by effect): a module-level alias of a
package's callable the rules know (``run = subprocess.run``), a library function handed to a runner by reference
(``map(os.remove, paths)``, ``threading.Thread(target=shutil.rmtree, args=(path,))``), and a runner given a lambda
(``asyncio.to_thread(lambda: os.remove(p))``, read once where it is written). One site is one action: the links
of a chain a rule matches whole (``repo.git.log().split()``) are one action, never the same id twice."""

from __future__ import annotations

import collections

from pyfix import analyse

SOURCE = """\
import asyncio, os, shutil, subprocess, threading
from git import Repo
from agents import function_tool

run = subprocess.run


@function_tool
def alias(cmd: str):
    return run(cmd, shell=True)


@function_tool
def mapped(paths: list[str]):
    list(map(os.remove, paths))


@function_tool
def threaded(path: str):
    threading.Thread(target=shutil.rmtree, args=(path,)).start()


@function_tool
async def lambda_runner(path: str):
    await asyncio.to_thread(lambda: os.remove(path))


@function_tool
def history(path: str):
    return Repo(path).git.log("--oneline").split("\\n")
"""


def test_indirect_calls_reach_their_effects_once() -> None:
    linked = analyse({"tools.py": SOURCE})
    by_tool = {t.id: t.name for t in linked.tools}
    reached = collections.Counter(
        (by_tool[p.toolId], a.actionClass) for a in linked.actions for p in a.reachedFrom if p.toolId in by_tool
    )
    assert reached == {
        ("alias", "shell.exec"): 1,
        ("mapped", "file.delete"): 1,
        ("threaded", "file.delete"): 1,
        ("lambda_runner", "file.delete"): 1,
        ("history", "shell.exec"): 1,
    }
    assert len({a.id for a in linked.actions}) == len(linked.actions)
