"""Issue 20, AutoGen 0.2 / AG2 agents are model uses where their llm_config says so: ``AssistantAgent(name,
llm_config={...})`` (also ``ConversableAgent``, ``UserProxyAgent``, ``GroupChatManager``) calls the model the config
names: its ``model`` (or the first ``config_list`` entry's), its vendor by ``api_type`` (OpenAI when none); a config
list read at run time (``config_list_from_json(...)``) names no model. ``llm_config=False`` (a user proxy's default)
calls no model; AgentBuilder's ``builder_model`` is the model it builds agents with."""

from __future__ import annotations

from pyfix import analyse

CODE = """import autogen
from autogen import AssistantAgent, UserProxyAgent, config_list_from_json
from autogen.agentchat.contrib.agent_builder import AgentBuilder

model = "gpt-4o-mini"
llm_config = {"model": model, "cache_seed": None}
config_list = config_list_from_json(env_or_file="OAI_CONFIG_LIST")

assistant = AssistantAgent(name="assistant", llm_config=llm_config)
analyst = AssistantAgent(
    name="analyst",
    llm_config={"config_list": config_list, "temperature": 0.0},
)
azure = autogen.ConversableAgent(
    "azure",
    llm_config={"config_list": [{"model": "gpt-4", "api_type": "azure", "api_key": "k"}]},
)
proxy = UserProxyAgent(name="user", code_execution_config=False)
quiet = UserProxyAgent(name="quiet", llm_config=False)
builder = AgentBuilder(config_file_or_env="OAI_CONFIG_LIST", builder_model="gpt-3.5-turbo-0125")
"""


def test_agents_given_an_llm_config_are_model_uses() -> None:
    linked = analyse({"agents.py": CODE})
    assert sorted((m.location.line, m.provider, m.model) for m in linked.models) == [
        (9, "openai", "gpt-4o-mini"),
        (10, "openai", None),
        (14, "azure_openai", "gpt-4"),
        (20, "openai", "gpt-3.5-turbo-0125"),
    ]
