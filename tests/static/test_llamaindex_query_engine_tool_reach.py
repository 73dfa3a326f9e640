"""Issue 20, a query engine given to a model as a tool runs what the engine does: ``QueryEngineTool(query_engine=qe,
metadata=ToolMetadata(name="population_data"))`` with ``qe`` built by a function of the tree (``qe =
population_engine()``, directly or through a module-level name) reaches what that function builds: a
``PandasQueryEngine`` there evaluates the pandas code its model writes for each query (code execution, recorded at
the engine's constructor)."""

from __future__ import annotations

from pyfix import analyse

ENGINES = """import pandas as pd
from llama_index.core.query_engine import PandasQueryEngine


def population_engine() -> PandasQueryEngine:
    frame = pd.read_csv("population.csv")
    return PandasQueryEngine(frame, verbose=False)
"""

MAIN = """from llama_index.core.agent import ReActAgent
from llama_index.core.tools import QueryEngineTool, ToolMetadata

from engines import population_engine

query_engine = population_engine()
tools = [
    QueryEngineTool(
        query_engine=query_engine,
        metadata=ToolMetadata(name="population_data", description="population figures"),
    ),
    QueryEngineTool(
        query_engine=population_engine(),
        metadata=ToolMetadata(name="population_again", description="population figures"),
    ),
]
agent = ReActAgent.from_tools(tools)
"""


def test_a_query_engine_tool_reaches_what_its_engine_runs() -> None:
    linked = analyse({"engines.py": ENGINES, "main.py": MAIN})
    for name in ("population_data", "population_again"):
        ids = {t.id for t in linked.tools if t.name == name}
        reached = {
            (a.actionClass, a.location.path, a.location.line)
            for a in linked.actions
            if any(p.toolId in ids for p in a.reachedFrom)
        }
        assert ("code.exec", "engines.py", 7) in reached
