"""Issue 20, the connection object a model client is handed says which host serves it, also when it was first bound
to a name: ``provider = OpenAIProvider(base_url="http://localhost:11434/v1")`` then ``OpenAIChatModel("llama3",
provider=provider)`` is a model of Ollama's, as the same object written in place is; a name bound to an object that
names no host the pack knows leaves the client's own vendor."""

from __future__ import annotations

from pyfix import analyse

SOURCE = (
    "from pydantic_ai import Agent\n"  # 1
    "from pydantic_ai.models.openai import OpenAIChatModel\n"  # 2
    "from pydantic_ai.providers.openai import OpenAIProvider\n"  # 3
    "\n"  # 4
    "def local() -> Agent:\n"  # 5
    "    provider = OpenAIProvider(base_url='http://localhost:11434/v1', api_key='none')\n"  # 6
    "    model = OpenAIChatModel(model_name='llama3', provider=provider)\n"  # 7
    "    return Agent(model)\n"  # 8
    "\n"  # 9
    "def hosted(key: str) -> Agent:\n"  # 10
    "    provider = OpenAIProvider(base_url='https://example.com/v1', api_key=key)\n"  # 11
    "    model = OpenAIChatModel(model_name='gpt-4o', provider=provider)\n"  # 12
    "    return Agent(model)\n"  # 13
)


def test_a_provider_object_bound_to_a_name_says_which_host_serves_the_model() -> None:
    models = {m.location.line: (m.provider, m.model) for m in analyse({"m.py": SOURCE}).models}
    assert models[7] == ("ollama", "llama3")
    assert models[12] == ("openai", "gpt-4o")
