"""Issue 20 taint: a field of the class read inside a larger expression carries what the class's methods store there, as
a bare read does. ``chain = self.prompt | self.llm`` with ``self.llm = OllamaLLM(...)`` set in ``__init__`` is a chain
that answers with model output (``chain.invoke(...)``), so the SQL it writes and a bound-method node of a LangGraph graph
runs (``cursor.execute(state.get("sql_query"))``) is a model output -> ``sql.exec`` flow; so is a field placed in a list
or an argv. A field stored only from constants carries nothing."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.line) for f in linked.taintFlows}


AGENT_PY = """\
import re
import subprocess
from typing import TypedDict

from django.db import connection
from langchain_core.prompts import PromptTemplate
from langchain_ollama import OllamaLLM
from langgraph.graph import StateGraph


class GraphState(TypedDict):
    question: str
    sql_query: str | None


class SQLAgent:
    def __init__(self) -> None:
        self.llm = OllamaLLM(model="sqlcoder")
        self.prompt_template = PromptTemplate.from_template("{question}")
        self.program = "psql"
        self.graph = self._build_graph()

    def _build_graph(self):
        workflow = StateGraph(GraphState)
        workflow.add_node("generate", self._generate)
        workflow.add_node("execute", self._execute)
        workflow.set_entry_point("generate")
        workflow.add_edge("generate", "execute")
        return workflow.compile()

    def _generate(self, state: GraphState) -> GraphState:
        chain = self.prompt_template | self.llm
        response = chain.invoke({"question": state["question"]})
        sql_query = SQLAgent._clean(response.strip())
        return {**state, "sql_query": sql_query}

    def _execute(self, state: GraphState) -> GraphState:
        sql_query = state.get("sql_query")
        with connection.cursor() as cursor:
            cursor.execute(sql_query)
        return state

    def plan(self, question: str) -> None:
        self.command = (self.prompt_template | self.llm).invoke({"question": question})

    def run_planned(self) -> None:
        subprocess.run(["sh", "-c", self.command])

    def run_fixed(self) -> None:
        subprocess.run([self.program, "--version"])

    @staticmethod
    def _clean(sql: str) -> str:
        match = re.search(r"```sql(.*?)```", sql, re.DOTALL)
        return match.group(1).strip() if match else sql
"""


def test_a_chain_piped_from_fields_answers_with_model_output() -> None:
    flows = _flows(analyse({"app/sql_agent.py": AGENT_PY}))
    assert ("model_output", "sql.exec", 40) in flows
    assert ("model_output", "shell.exec", 47) in flows


def test_a_field_stored_from_a_constant_carries_nothing() -> None:
    flows = _flows(analyse({"app/sql_agent.py": AGENT_PY}))
    assert not any(line == 50 for _, _, line in flows)
