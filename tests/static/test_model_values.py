"""Issue 20, providers and models: model ids the code spells out through values (an environment read's
default, a parameter's default, a local or a module constant bound once, a function's return, a format),
vendor prefixes split as LiteLLM reads them, and clients pointed at another host or a model router."""

from __future__ import annotations

from pyfix import analyse


def _models(files: dict[str, str]) -> dict[int, tuple[str, str | None]]:
    return {m.location.line: (m.provider, m.model) for m in analyse(files).models}


def test_a_model_id_held_by_a_local_a_constant_a_default_a_return_or_a_field_is_the_literal_it_ends_at() -> None:
    code = (
        "import os\n"  # 1
        "from openai import OpenAI\n"
        "client = OpenAI()\n"
        "MODEL = os.environ.get('MODEL') or 'gpt-5'\n"
        "def get_model():\n"  # 5
        "    return 'gpt-4.1'\n"
        "def local():\n"
        "    llm = os.getenv('MODEL_CHOICE', 'gpt-4o-mini')\n"
        "    return client.chat.completions.create(model=llm, messages=[])\n"  # 9
        "def constant():\n"
        "    return client.chat.completions.create(model=MODEL, messages=[])\n"  # 11
        "def returned():\n"
        "    return client.chat.completions.create(model=get_model(), messages=[])\n"  # 13
        "def defaulted(prompt, model: str = 'o3-mini'):\n"
        "    args = dict(model=model, messages=[])\n"
        "    return client.chat.completions.create(**args)\n"  # 16
        "class Planner:\n"
        "    def __init__(self, model: str = 'gpt-4o'):\n"
        "        self._model = model\n"
        "    def plan(self):\n"
        "        return client.chat.completions.create(model=self._model, messages=[])\n"  # 21
    )
    models = _models({"app.py": code})
    assert models[9] == ("openai", "gpt-4o-mini")
    assert models[11] == ("openai", "gpt-5")
    assert models[13] == ("openai", "gpt-4.1")
    assert models[16] == ("openai", "o3-mini")
    assert models[21] == ("openai", "gpt-4o")


def test_a_value_bound_twice_a_default_a_caller_overrides_or_returns_that_disagree_name_no_model() -> None:
    code = (
        "import os\n"  # 1
        "from openai import OpenAI\n"
        "client = OpenAI()\n"
        "def get_model(fast):\n"
        "    if fast:\n"  # 5
        "        return 'gpt-4o-mini'\n"
        "    return 'gpt-4o'\n"
        "def chosen(fast):\n"
        "    m = 'gpt-4o-mini'\n"
        "    if not fast:\n"  # 10
        "        m = 'gpt-4o'\n"
        "    return client.chat.completions.create(model=m, messages=[])\n"  # 12
        "def returned():\n"
        "    return client.chat.completions.create(model=get_model(), messages=[])\n"  # 14
        "def no_default(model):\n"
        "    return client.chat.completions.create(model=model, messages=[])\n"  # 16
        "def rebound(model: str = 'gpt-4o'):\n"
        "    model = model.strip()\n"
        "    return client.chat.completions.create(model=model, messages=[])\n"  # 19
        "def called(model: str = 'gpt-4o'):\n"
        "    return client.chat.completions.create(model=model, messages=[])\n"  # 21
        "called('gpt-4.1')\n"
        "called()\n"
        "class Two:\n"
        "    def __init__(self, model: str = 'gpt-4o'):\n"  # 25
        "        self.model = model\n"
        "    def switch(self, other):\n"
        "        self.model = other\n"
        "    def go(self):\n"
        "        return client.chat.completions.create(model=self.model, messages=[])\n"  # 30
        "def formatted(tag):\n"
        "    return client.chat.completions.create(model=f'gpt-{tag}', messages=[])\n"  # 32
    )
    models = _models({"app.py": code})
    for line in (12, 14, 16, 19, 21, 30, 32):
        assert models[line] == ("openai", None), line


def test_a_callers_value_still_names_the_model_and_a_call_without_it_takes_the_default() -> None:
    code = (
        "from openai import OpenAI\n"
        "client = OpenAI()\n"
        "def ask(q, model='gpt-4o-mini'):\n"
        "    return client.chat.completions.create(model=model, messages=[])\n"  # 4
        "ask('a')\n"
        "ask('b', model='gpt-4o-mini')\n"
    )
    assert _models({"app.py": code})[4] == ("openai", "gpt-4o-mini")


def test_a_litellm_id_formatted_from_a_default_is_kept_whole_and_its_api_base_is_the_routes_backend() -> None:
    code = (
        "from smolagents import LiteLLMModel\n"
        "def make(model_name: str = 'qwen2.5vl:latest', api_base: str = 'http://127.0.0.1:11434'):\n"
        "    return LiteLLMModel(\n"  # 3
        "        model_id=f'ollama/{model_name}',\n"
        "        api_base=api_base,\n"
        "    )\n"
    )
    assert _models({"models.py": code})[3] == ("litellm", "ollama/qwen2.5vl:latest")


def test_a_helpers_client_reads_its_model_from_the_environment_reads_default() -> None:
    code = (
        "import os\n"
        "from pydantic_ai.models.openai import OpenAIModel\n"
        "def get_model():\n"
        "    llm = os.getenv('MODEL_CHOICE', 'gpt-4o-mini')\n"
        "    return OpenAIModel(llm, api_key=os.getenv('KEY'))\n"  # 5
        "def unknown():\n"
        "    return OpenAIModel(os.getenv('MODEL_CHOICE'))\n"  # 7
    )
    models = _models({"utils.py": code})
    assert models[5] == ("openai", "gpt-4o-mini")
    assert models[7] == ("openai", None)


def test_the_vendor_before_a_model_ids_first_separator_is_split_off_and_the_rest_kept_as_written() -> None:
    code = (
        "from google.adk.agents import LlmAgent\n"
        "import dspy\n"
        "a = LlmAgent(name='a', model='ollama/gemma2:27b')\n"  # 3
        "b = dspy.LM('ollama_chat/llama3.2')\n"  # 4
        "c = dspy.LM('openai/gpt-4o-mini')\n"  # 5
        "d = dspy.LM('groq/llama-3.1-8b')\n"  # 6
    )
    models = _models({"agents.py": code})
    assert models[3] == ("ollama", "gemma2:27b")
    assert models[4] == ("ollama", "llama3.2")
    assert models[5] == ("openai", "gpt-4o-mini")
    assert models[6] == ("litellm", "groq/llama-3.1-8b")  # no vendor word: LiteLLM's id, whole


def test_a_model_router_or_a_compatible_client_pointed_at_another_host_is_that_hosts_provider() -> None:
    code = (
        "import os\n"
        "from agno.models.openrouter import OpenRouter\n"
        "from langchain_openai import ChatOpenAI\n"
        "from langchain_litellm import ChatLiteLLM\n"
        "from pandasai.llm.local_llm import LocalLLM\n"  # 5
        "a = OpenRouter(id='anthropic/claude-3.5-sonnet')\n"  # 6
        "b = ChatOpenAI(model='google/gemini-2.0-flash', base_url='https://openrouter.ai/api/v1')\n"  # 7
        "c = ChatOpenAI(model='llama-3.1-8b-instant', base_url=os.getenv('BASE', 'https://api.groq.com/openai/v1'))\n"
        "d = LocalLLM(api_base='http://localhost:11434/v1', model='llama3')\n"  # 9
        "e = ChatOpenAI(model='gpt-4o', base_url='https://api.openai.com/v1')\n"  # 10
        "f = ChatOpenAI(model='gpt-4o', base_url=os.getenv('BASE'))\n"  # 11
        "g = ChatLiteLLM(model='ollama/llama3', api_base='http://localhost:11434')\n"  # 12
    )
    models = _models({"clients.py": code})
    assert models[6] == ("openrouter", "anthropic/claude-3.5-sonnet")
    assert models[7] == ("openrouter", "google/gemini-2.0-flash")
    assert models[8] == ("groq", "llama-3.1-8b-instant")
    assert models[9] == ("ollama", "llama3")
    assert models[10] == ("openai", "gpt-4o")
    assert models[11] == ("openai", "gpt-4o")  # a host the code does not spell out: the package's
    assert models[12] == ("litellm", "ollama/llama3")  # LiteLLM routes by its model id: api_base is that route's


def test_a_client_built_with_a_base_url_in_a_non_ascii_file_is_that_hosts_provider() -> None:
    # Python reads identifiers in NFKC form: ``base_url`` spelt with a fullwidth b is the keyword ``base_url``, so a
    # file whose text is not ASCII is read for its hosts even when the ASCII spelling is nowhere in it.
    code = (
        "from openai import OpenAI\n"
        "client = OpenAI(\uff42ase_url='https://api.groq.com/openai/v1')\n"  # 2
        "r = client.chat.completions.create(model='llama-3.1-8b-instant', messages=[])\n"  # 3
        "# café\n"
    )
    models = _models({"client.py": code})
    assert models[3] == ("groq", "llama-3.1-8b-instant")


def test_js_a_parameters_default_names_the_model_a_call_passes_it_to() -> None:
    code = (
        'import OpenAI from "openai";\n'
        'import Anthropic from "@anthropic-ai/sdk";\n'
        "const client = new OpenAI();\n"
        "const anthropic = new Anthropic();\n"
        'export async function one(prompt: string, model = "gpt-4o-mini") {\n'  # 5
        "  return client.chat.completions.create({ model, messages: [] });\n"  # 6
        "}\n"
        'export async function two({ modelId = "claude-3-5-haiku-latest" }: { modelId?: string }) {\n'
        "  return anthropic.messages.create({ model: modelId, max_tokens: 10, messages: [] });\n"  # 9
        "}\n"
        "export async function three(model: string) {\n"
        "  return client.chat.completions.create({ model, messages: [] });\n"  # 12
        "}\n"
        "export const four = (name = pick()) => client.chat.completions.create({ model: name, messages: [] });\n"
    )
    models = _models({"agent.ts": code})
    assert models[6] == ("openai", "gpt-4o-mini")
    assert models[9] == ("anthropic", "claude-3-5-haiku-latest")
    assert models[12] == ("openai", None)
    assert models[14] == ("openai", None)


def test_js_a_model_call_on_a_client_of_another_module_keeps_the_model_its_options_name() -> None:
    files = {
        "ai.ts": 'import OpenAI from "openai";\nexport const openai = new OpenAI();\n',
        "llm.ts": (
            'import { openai } from "./ai";\n'
            "export const runLLM = async ({ model = 'gpt-4o-mini', messages }: { model?: string; messages: any[] }) => {\n"
            "  return openai.chat.completions.create({ model, messages });\n"  # 3
            "};\n"
            "export const other = async (messages: any[]) => openai.chat.completions.create({ messages });\n"  # 5
            "export const passed = async (model: string) => openai.chat.completions.create({ model, messages: [] });\n"
        ),
    }
    models = {m.location.line: (m.provider, m.model) for m in analyse(files).models if m.location.path == "llm.ts"}
    assert models[3] == ("openai", "gpt-4o-mini")
    assert models[5] == ("openai", None)
    assert models[6] == ("openai", None)
