"""The assistant graph: a ReAct-style loop over a chat model and the two tools."""

from langchain_anthropic import ChatAnthropic
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from research.tools import save_summary, search_papers

TOOLS = [search_papers, save_summary]
model = ChatAnthropic(model="claude-sonnet-4-5").bind_tools(TOOLS)


def call_model(state: MessagesState) -> dict[str, list[object]]:
    return {"messages": [model.invoke(state["messages"])]}


def build_graph() -> object:
    graph = StateGraph(MessagesState)
    graph.add_node("agent", call_model)
    graph.add_node("tools", ToolNode(TOOLS))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()
