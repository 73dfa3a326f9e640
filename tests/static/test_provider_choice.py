"""Issue 20, providers and models (corpus round of provider choice): the host a client was built for decides
the provider of the calls made on it, a connection object handed to a model class says which host serves it,
model ids joined with ``+``, Bedrock's ``modelId``, and the model id of a call on a client handed in as a
parameter."""

from __future__ import annotations

from pyfix import analyse


def _models(files: dict[str, str]) -> dict[int, tuple[str, str | None]]:
    return {m.location.line: (m.provider, m.model) for m in analyse(files).models}


def test_a_call_on_a_client_built_for_ollamas_host_is_ollamas() -> None:
    code = (
        "import os\n"  # 1
        "from openai import OpenAI\n"
        "BASE_URL = os.getenv('OPENAI_BASE_URL', 'http://localhost:11434/v1')\n"
        "client = OpenAI(base_url=BASE_URL, api_key='ollama')\n"
        "def ask(p):\n"  # 5
        "    return client.chat.completions.create(model='gpt-oss:latest', messages=[p])\n"  # 6
        "class Chat:\n"
        "    def __init__(self):\n"
        "        self.llm = OpenAI(base_url='http://127.0.0.1:11434/v1')\n"
        "    def ask(self, p):\n"  # 10
        "        return self.llm.chat.completions.create(model='qwen3:4b', messages=[p])\n"  # 11
        "def local(p):\n"
        "    c = OpenAI(base_url='http://localhost:11434/v1')\n"
        "    return c.chat.completions.create(model='llama3.2', messages=[p])\n"  # 14
    )
    models = _models({"app.py": code})
    assert models[6] == ("ollama", "gpt-oss:latest")
    assert models[11] == ("ollama", "qwen3:4b")
    assert models[14] == ("ollama", "llama3.2")


def test_a_client_without_a_known_host_or_bound_twice_keeps_its_packages_provider() -> None:
    code = (
        "import os\n"  # 1
        "from openai import OpenAI\n"
        "from anthropic import Anthropic\n"
        "plain = OpenAI()\n"
        "custom = OpenAI(base_url=os.environ['LLM_URL'])\n"  # 5
        "def ask(p, local):\n"
        "    c = OpenAI(base_url='http://localhost:11434/v1')\n"
        "    if not local:\n"
        "        c = OpenAI()\n"
        "    c.chat.completions.create(model='gpt-4o', messages=[p])\n"  # 10
        "    plain.chat.completions.create(model='gpt-4o', messages=[p])\n"  # 11
        "    custom.chat.completions.create(model='gpt-4o', messages=[p])\n"  # 12
        "def param(client, p):\n"
        "    return client.chat.completions.create(model='gpt-4o', messages=[p])\n"  # 14
        "claude = Anthropic(base_url='http://localhost:11434')\n"
        "claude.messages.create(model='claude-sonnet-4-5', max_tokens=10, messages=[])\n"  # 16
    )
    models = _models({"app.py": code})
    assert models[10] == ("openai", "gpt-4o")
    assert models[11] == ("openai", "gpt-4o")
    assert models[12] == ("openai", "gpt-4o")
    assert models[14][1] == "gpt-4o" and models[14][0] != "ollama"
    assert models[16] == ("anthropic", "claude-sonnet-4-5")  # no other host serves Anthropic's protocol here


def test_a_connection_object_handed_to_a_model_class_names_the_host_that_serves_it() -> None:
    code = (
        "from pydantic_ai import Agent\n"  # 1
        "from pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.ollama import OllamaProvider\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "local = OpenAIChatModel(\n"  # 5
        "    model_name='qwen3:1.7b',\n"
        "    provider=OllamaProvider(base_url='http://localhost:11434/v1'),\n"
        ")\n"
        "hosted = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='k'))\n"  # 9
    )
    models = _models({"app.py": code})
    assert models[5] == ("ollama", "qwen3:1.7b")
    assert models[9] == ("openai", "gpt-4o")


def test_model_ids_joined_with_plus_and_bedrocks_model_id() -> None:
    code = (
        "import os, boto3, litellm\n"  # 1
        "MODEL = 'ollama/' + os.getenv('MODEL', 'gpt-oss:latest')\n"
        "OTHER = 'openai/' + os.environ['MODEL']\n"
        "bedrock = boto3.client('bedrock-runtime')\n"
        "def ask(p):\n"  # 5
        "    litellm.completion(model=MODEL, messages=[p])\n"  # 6
        "    litellm.completion(model=OTHER, messages=[p])\n"  # 7
        "    bedrock.converse(modelId='us.amazon.nova-lite-v1:0', messages=[p])\n"  # 8
        "    bedrock.invoke_model(body='{}', modelId=os.getenv('EMBED', 'amazon.titan-embed-text-v2:0'))\n"  # 9
        "    bedrock.converse(messages=[p], guardrailIdentifier='g-1')\n"  # 10
    )
    models = _models({"app.py": code})
    assert models[6] == ("litellm", "ollama/gpt-oss:latest")
    assert models[7] == ("litellm", None)  # a part nothing spells out: no model id
    assert models[8] == ("bedrock", "us.amazon.nova-lite-v1:0")
    assert models[9] == ("bedrock", "amazon.titan-embed-text-v2:0")
    assert models[10] == ("bedrock", None)


def test_a_model_call_on_a_client_handed_in_as_a_parameter_keeps_the_model_it_names() -> None:
    code = (
        "import boto3\n"  # 1
        "def follow_up(bedrock, messages):\n"
        "    return bedrock.converse(modelId='us.anthropic.claude-3-7-sonnet-20250219-v1:0', messages=messages)\n"  # 3
        "def other(bedrock, messages):\n"
        "    return bedrock.converse(messages=messages)\n"  # 5
        "def chat(messages):\n"
        "    bedrock = boto3.client(service_name='bedrock-runtime')\n"
        "    follow_up(bedrock, messages)\n"
        "    other(bedrock, messages)\n"
    )
    models = {m.location.line: (m.provider, m.model) for m in analyse({"app.py": code}).models}
    assert models[3] == ("bedrock", "us.anthropic.claude-3-7-sonnet-20250219-v1:0")
    assert models[5] == ("bedrock", None)


def test_a_model_id_another_module_returns_from_its_settings_on_the_default_path() -> None:
    files = {
        "app/config.py": (
            "import os\n"
            "class Config:\n"
            "    GEMINI_MODEL = os.getenv('GEMINI_MODEL', 'gemini-2.0-flash')\n"
            "def get_config():\n"
            "    return Config()\n"
        ),
        "app/clients/gemini.py": (
            "from app.config import get_config\n"
            "config = get_config()\n"
            "def get_model():\n"
            "    '''The model name from the environment.'''\n"
            "    return config.GEMINI_MODEL\n"
        ),
        "app/settings.py": (
            "from pydantic_settings import BaseSettings\n"
            "class Settings(BaseSettings):\n"
            "    model: str = 'openai:gpt-4o'\n"
            "    weak_model: str = 'anthropic:claude-3-5-haiku-latest'\n"
            "    legacy_model: str | None = None\n"
            "    def get_model(self) -> str:\n"
            "        if self.legacy_model:\n"
            "            return f'openai:{self.legacy_model}'\n"
            "        return self.model\n"
            "    def get_weak_model(self) -> str:\n"
            "        return self.weak_model\n"
            "settings = Settings()\n"
        ),
        "app/nodes.py": (
            "from langchain_google_genai import ChatGoogleGenerativeAI\n"  # 1
            "from pydantic_ai import Agent\n"
            "from app.clients.gemini import get_model\n"
            "from app.settings import settings\n"
            "llm = ChatGoogleGenerativeAI(model=get_model(), temperature=0.1)\n"  # 5
            "planner = Agent(model=settings.get_model(), system_prompt='plan')\n"  # 6
            "recap = Agent(model=settings.get_weak_model())\n"  # 7
        ),
    }
    models = {m.location.line: (m.provider, m.model) for m in analyse(files).models}
    assert models[5] == ("google", "gemini-2.0-flash")
    assert models[6] == ("openai", "gpt-4o")
    assert models[7] == ("anthropic", "claude-3-5-haiku-latest")


def test_a_function_result_that_depends_on_its_arguments_or_a_set_field_names_no_model() -> None:
    files = {
        "app/settings.py": (
            "import os\n"
            "class Settings:\n"
            "    model: str = 'openai:gpt-4o'\n"
            "    fast: bool = True\n"
            "    def pick(self) -> str:\n"
            "        if self.fast:\n"
            "            return 'openai:gpt-4o-mini'\n"
            "        return self.model\n"
            "    def named(self, kind: str) -> str:\n"
            "        return self.model\n"
            "settings = Settings()\n"
            "def choose():\n"
            "    if os.getenv('FAST'):\n"
            "        return 'gemini-2.0-flash'\n"
            "    return 'gemini-2.5-pro'\n"
        ),
        "app/nodes.py": (
            "from langchain_google_genai import ChatGoogleGenerativeAI\n"  # 1
            "from pydantic_ai import Agent\n"
            "from app.settings import settings, choose\n"
            "a = Agent(model=settings.pick())\n"  # 4
            "b = Agent(model=settings.named('x'))\n"  # 5
            "llm = ChatGoogleGenerativeAI(model=choose())\n"  # 6
        ),
    }
    models = {m.location.line: (m.provider, m.model) for m in analyse(files).models}
    assert models[4] == ("unknown", None)  # nothing says whose model the agent runs
    assert models[5] == ("unknown", None)
    assert models[6] == ("google", None)


def test_js_clients_built_for_ollamas_host_make_ollamas_calls() -> None:
    code = (
        "import OpenAI from 'openai'\n"  # 1
        "import { createOpenAI } from '@ai-sdk/openai'\n"
        "import { generateText } from 'ai'\n"
        "const OLLAMA = process.env.OLLAMA_URL ?? 'http://localhost:11434/v1'\n"
        "const client = new OpenAI({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' })\n"  # 5
        "const ollama = createOpenAI({ baseURL: OLLAMA })\n"  # 6
        "export async function ask(p: string) {\n"
        "  const local = new OpenAI({ baseURL: OLLAMA })\n"
        "  await local.chat.completions.create({ model: 'qwen3:4b', messages: [] })\n"  # 9
        "  await client.chat.completions.create({ model: 'llama3.2', messages: [] })\n"  # 10
        "  return generateText({ model: ollama('gpt-oss:20b'), prompt: p })\n"  # 11
        "}\n"
    )
    models = _models({"a.ts": code})
    assert models[6] == ("ollama", None)
    assert models[9] == ("ollama", "qwen3:4b")
    assert models[10] == ("ollama", "llama3.2")
    assert models[11] == ("ollama", "gpt-oss:20b")


def test_js_clients_without_a_known_host_keep_their_packages_provider() -> None:
    code = (
        "import OpenAI from 'openai'\n"  # 1
        "import { createOpenAI, openai } from '@ai-sdk/openai'\n"
        "import { createAnthropic } from '@ai-sdk/anthropic'\n"
        "import { generateText } from 'ai'\n"
        "const plain = new OpenAI()\n"  # 5
        "const custom = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL })\n"  # 6
        "const claude = createAnthropic({ baseURL: 'http://localhost:11434' })\n"  # 7
        "export async function ask(p: string) {\n"
        "  await plain.chat.completions.create({ model: 'gpt-4o', messages: [] })\n"  # 9
        "  await generateText({ model: custom('gpt-4o-mini'), prompt: p })\n"  # 10
        "  await generateText({ model: claude('claude-sonnet-4-5'), prompt: p })\n"  # 11
        "  return generateText({ model: openai('gpt-4.1'), prompt: p })\n"  # 12
        "}\n"
    )
    models = _models({"a.ts": code})
    assert models[9] == ("openai", "gpt-4o")
    assert models[10] == ("openai", "gpt-4o-mini")
    assert models[11] == ("anthropic", "claude-sonnet-4-5")
    assert models[12] == ("openai", "gpt-4.1")


def test_raw_http_to_a_model_host_named_through_a_constant_or_an_environment_default() -> None:
    code = (
        "import os, requests\n"  # 1
        "OLLAMA_URL = os.getenv('OLLAMA_URL', 'http://localhost:11434')\n"
        "MODEL = os.getenv('MODEL', 'gpt-oss:latest')\n"
        "URL = 'http://localhost:11434/api/generate'\n"
        "payload = {'model': 'llama3.2', 'prompt': 'hi', 'stream': False}\n"  # 5
        "def chat(p):\n"
        "    return requests.post(f'{OLLAMA_URL}/api/chat', json={'model': MODEL, 'messages': [p]})\n"  # 7
        "def generate():\n"
        "    return requests.post(URL, json=payload)\n"  # 9
    )
    models = _models({"app.py": code})
    assert models[7] == ("ollama", "gpt-oss:latest")
    assert models[9] == ("ollama", "llama3.2")


def test_raw_http_to_a_url_a_caller_passes_or_another_host_is_no_model_use() -> None:
    code = (
        "import os, requests\n"  # 1
        "API = os.getenv('API_URL', 'https://api.example.com')\n"
        "def users():\n"
        "    return requests.get(f'{API}/users')\n"  # 4
        "def post(base, body):\n"
        "    return requests.post(f'{base}/api/chat', json=body)\n"  # 6
    )
    linked = analyse({"app.py": code})
    assert not linked.models


def test_a_bedrock_converse_tool_spec_is_a_tool_a_spec_without_a_schema_is_not() -> None:
    code = (
        "import boto3, math\n"  # 1
        "bedrock = boto3.client('bedrock-runtime')\n"
        "TOOLS = [\n"
        "    {\n"
        "        'toolSpec': {\n"  # 5
        "            'name': 'cosine',\n"
        "            'description': 'Calculate the cosine of x.',\n"
        "            'inputSchema': {'json': {'type': 'object', 'properties': {'x': {'type': 'number'}}}},\n"
        "        }\n"
        "    }\n"  # 10
        "]\n"
        "NOTES = [{'toolSpec': {'name': 'draft_only'}}]\n"
        "def ask(messages):\n"
        "    return bedrock.converse(modelId='us.amazon.nova-lite-v1:0', messages=messages,\n"
        "                            toolConfig={'tools': TOOLS})\n"  # 15
    )
    linked = analyse({"app.py": code})
    names = {t.name: t for t in linked.tools}
    assert set(names) == {"cosine"}
    assert names["cosine"].parameters == ["x"]
