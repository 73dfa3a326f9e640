"""Issue 20, a model string whose vendor is written and whose model id is filled in at run time
(``Agent(f"google-gla:{settings.gemini_model}")``) names that vendor, also through a local bound to it on one branch
of an ``if`` whose other branch builds a model object; an f-string that writes no known vendor names none."""

from __future__ import annotations

from pyfix import analyse

SOURCE = (
    "from pydantic_ai import Agent\n"  # 1
    "from pydantic_ai.models.openai import OpenAIChatModel\n"  # 2
    "from config import settings\n"  # 3
    "\n"  # 4
    "def get_agent() -> Agent:\n"  # 5
    "    if settings.provider == 'gemini':\n"  # 6
    "        model = f'google-gla:{settings.gemini_model}'\n"  # 7
    "    else:\n"  # 8
    "        model = OpenAIChatModel(model_name=settings.model)\n"  # 9
    "    return Agent(model, system_prompt='x')\n"  # 10
    "\n"  # 11
    "def direct(name: str) -> Agent:\n"  # 12
    "    return Agent(f'anthropic:{name}')\n"  # 13
    "\n"  # 14
    "def unknown(name: str) -> Agent:\n"  # 15
    "    return Agent(f'{name}:latest')\n"  # 16
    "\n"  # 17
    "def branches() -> Agent:\n"  # 18
    "    if settings.provider == 'gemini':\n"  # 19
    "        model_name = settings.gemini_model\n"  # 20
    "        model = f'google-gla:{model_name}'\n"  # 21
    "    else:\n"  # 22
    "        model_name = settings.model\n"  # 23
    "        model = OpenAIChatModel(model_name=model_name)\n"  # 24
    "    return Agent(model)\n"  # 25
)


CONFIG = (
    "from pydantic import BaseModel, Field\n"
    "class Settings(BaseModel):\n"
    "    provider: str = 'gemini'\n"
    "    gemini_model: str = Field(default='gemini-2.0-flash')\n"
    "    model: str = 'llama3'\n"
    "settings = Settings()\n"
)


def test_the_vendor_an_f_string_model_id_writes_is_its_provider() -> None:
    models = {m.location.line: (m.provider, m.model) for m in analyse({"m.py": SOURCE, "config.py": CONFIG}).models}
    # The rest of the text is a setting: its default is the model id.
    assert models[10] == ("google", "gemini-2.0-flash")
    assert models[13] == ("anthropic", None)
    assert models[16][0] not in ("google", "anthropic")
    # A local filling the text in, bound on each branch: the binding before the text is the one it reads.
    assert models[25] == ("google", "gemini-2.0-flash")
