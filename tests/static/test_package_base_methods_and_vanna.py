"""Issue 20: a method a class of the tree does not define, called on its instance, is its package base's, matched as
the rules name the base's method (``vn.ask(q)`` with ``class VannaClient(ChromaDB_VectorStore, OpenAI_Chat)``, even
with ``vn`` built at the top level of another module). Vanna's ``ask`` has its model write SQL and run it on the
connected database, and chart code it runs with exec: sql.exec and code.exec of model output at the call; its
similar-question lookup reads the vector store."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_VANNA = (
    "from vanna.openai import OpenAI_Chat\n"  # 1
    "from vanna.chromadb import ChromaDB_VectorStore\n"  # 2
    "\n"  # 3
    "class VannaClient(ChromaDB_VectorStore, OpenAI_Chat):\n"  # 4
    "    def __init__(self, config=None):\n"  # 5
    "        ChromaDB_VectorStore.__init__(self, config=config)\n"  # 6
    "        OpenAI_Chat.__init__(self, config=config)\n"  # 7
    "\n"  # 8
    "vn = VannaClient(config={'model': 'gpt-4o'})\n"  # 9
)
_TOOLS = (
    "from semantic_kernel.functions import kernel_function\n"  # 1
    "from pkg.vanna_ai import vn\n"  # 2
    "\n"  # 3
    "class ReviewPlugin:\n"  # 4
    "    @kernel_function\n"  # 5
    "    def query_reviews(self, question: str) -> str:\n"  # 6
    "        sql, df, fig = vn.ask(question=question, print_results=False)\n"  # 7
    "        return str(df)\n"  # 8
    "\n"  # 9
    "    @kernel_function\n"  # 10
    "    def similar(self, question: str) -> str:\n"  # 11
    "        return str(vn.get_similar_question_sql(question=question))\n"  # 12
)


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom}


def test_a_method_inherited_from_a_package_base_is_the_packages() -> None:
    linked = analyse({"pkg/vanna_ai.py": _VANNA, "pkg/tools.py": _TOOLS, "pkg/__init__.py": ""})
    reached = _reached(linked)
    assert {("sql.exec", "pkg/tools.py", 7), ("code.exec", "pkg/tools.py", 7)} <= reached
    assert ("db.read", "pkg/tools.py", 12) in reached
    assert ("network.egress", "pkg/tools.py", 7) not in reached
    flows = {(f.actionClass, f.sink.line, f.sourceKind) for f in linked.taintFlows}
    assert {("sql.exec", 7, "model_output"), ("code.exec", 7, "model_output")} <= flows


def test_a_method_the_class_defines_is_its_own() -> None:
    own = _VANNA + (
        "\n"  # 10
        "class Quiet(VannaClient):\n"  # 11
        "    def ask(self, question=None, **kwargs):\n"  # 12
        "        return None, None, None\n"  # 13
        "\n"  # 14
        "quiet = Quiet()\n"  # 15
    )
    tools = _TOOLS.replace("import vn", "import quiet as vn")
    linked = analyse({"pkg/vanna_ai.py": own, "pkg/tools.py": tools, "pkg/__init__.py": ""})
    assert not {c for c, path, line in _reached(linked) if line == 7 and c in ("sql.exec", "code.exec")}
