"""A tool class declared abstract (``class StoreBaseTool(BaseTool, ABC)`` or ``metaclass=ABCMeta``) with no
implementation of its own is a base for tools defined in other files, never instantiated and never given to a
model: not a tool (issue 20, tool precision). Its subclasses, in another file, are the tools."""

from __future__ import annotations

from pyfix import analyse

BASE = """\
import abc
from abc import ABC
from langchain_core.tools import BaseTool


class StoreBaseTool(BaseTool, ABC):
    \"\"\"Base class for store tools.\"\"\"

    def _client(self):
        return open("/tmp/store.db")


class MetaBaseTool(BaseTool, metaclass=abc.ABCMeta):
    \"\"\"Another abstract base.\"\"\"
"""

TOOLS = """\
import os
from langchain_core.tools import BaseTool

from .base import StoreBaseTool


class DeleteRecordTool(StoreBaseTool):
    name: str = "delete_record"
    description: str = "Delete a record"

    def _run(self, path: str) -> str:
        os.remove(path)
        return "ok"


class ConcreteTool(BaseTool):
    \"\"\"Looks up a word: not abstract, named after its class.\"\"\"

    def _run(self, word: str) -> str:
        return word
"""


def test_an_abstract_tool_base_extended_in_another_file_is_no_tool_and_its_subclass_is() -> None:
    linked = analyse({"tools/base.py": BASE, "tools/records.py": TOOLS})
    names = {t.name for t in linked.tools}
    assert "delete_record" in names
    assert not names & {"StoreBaseTool", "MetaBaseTool"}


def test_a_tool_class_not_declared_abstract_stays_a_tool() -> None:
    linked = analyse({"tools/records.py": TOOLS})
    assert {t.name for t in linked.tools} >= {"delete_record", "ConcreteTool"}
