"""Issue 20, Python (the Agno application units): a library toolkit subclassed in the code gives the
library's tools, and the methods the subclass defines are reached from them; a class a package keeps in its
models module is a model client named by ``id=``; audio and video libraries read and write files; plain HTTP
asking for an OAuth token is a credential read."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.framework, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


ZOOM_APP = (
    "import requests\n"
    "from agno.agent import Agent\n"
    "from agno.models.openai import OpenAIChat\n"
    "from phi.tools.zoom import ZoomTool\n\n\n"
    "class TokenZoom(ZoomTool):\n"
    "    def get_access_token(self) -> str:\n"
    "        return requests.post('https://zoom.us/oauth/token', data={}).json()['access_token']\n\n\n"
    "def scheduler() -> Agent:\n"
    "    zoom = TokenZoom(account_id='a', client_id='c', client_secret='s')\n"
    "    return Agent(model=OpenAIChat(id='gpt-4o'), tools=[zoom])\n"
)

ZOOM_TOOLS = [
    "delete_meeting",
    "get_meeting",
    "get_meeting_recordings",
    "get_upcoming_meetings",
    "list_meetings",
    "schedule_meeting",
]


def test_a_subclass_of_a_library_toolkit_gives_its_tools_at_the_constructor_and_reaches_its_own_methods() -> None:
    linked = analyse({"app.py": ZOOM_APP})
    assert _tools(linked) == [(name, "phi", 13) for name in ZOOM_TOOLS]
    for name in ZOOM_TOOLS:
        # The library's request at the constructor, and the subclass's token fetch the library calls back.
        assert _reached(linked, name) == {("network.egress", 13), ("credential.read", 9)}
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [("openai", "gpt-4o", 14)]


def test_a_class_that_extends_no_library_toolkit_gives_no_library_tools() -> None:
    linked = analyse(
        {
            "app.py": (
                "import requests\n"
                "from agno.agent import Agent\n"
                "from phi.tools.base import Helper\n\n\n"
                "class Fetcher(Helper):\n"
                "    def get_access_token(self) -> str:\n"
                "        return requests.post('https://example.com/token').text\n\n\n"
                "def build() -> Agent:\n"
                "    return Agent(tools=[Fetcher()])\n"
            )
        }
    )
    assert _tools(linked) == []
    assert {(a.actionClass, a.location.line, bool(a.reachedFrom)) for a in linked.actions} == {
        ("network.egress", 8, False)
    }


def test_a_library_toolkit_constructed_in_the_list_gives_the_function_it_registers() -> None:
    linked = analyse(
        {
            "app.py": (
                "from agno.agent import Agent\n"
                "from agno.tools.email import EmailTools\n\n"
                "agent = Agent(tools=[EmailTools(receiver_email='a@b.c', sender_email='d@e.f')])\n"
            )
        }
    )
    assert _tools(linked) == [("email_user", "agno", 4)]
    assert _reached(linked, "email_user") == {("message.send", 4)}


def test_a_class_in_a_packages_models_module_is_a_model_client_its_vendor_named_by_the_module() -> None:
    linked = analyse(
        {
            "app.py": (
                "from agno.agent import Agent\n"
                "from agno.models.anthropic import Claude\n"
                "from agno.models.together import Together\n"
                "from django.db import models\n\n"
                "a = Agent(model=Claude(id='claude-sonnet-4-0'))\n"
                "b = Agent(model=Together(id='meta-llama/Llama-3.3-70B-Instruct-Turbo-Free'))\n\n"
                "class Row(models.Model):\n"
                "    name = models.CharField(max_length=20)\n"
                "    owner = models.ForeignKey('auth.User', on_delete=models.CASCADE)\n"
            )
        }
    )
    # Together AI has no word of the vocabulary; Django's fields are no model clients.
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [("anthropic", "claude-sonnet-4-0", 6)]


def test_audio_and_video_libraries_read_and_write_the_files_a_tool_names() -> None:
    linked = analyse(
        {
            "tool.py": (
                "import cv2\n"
                "import librosa\n"
                "from moviepy import VideoFileClip\n"
                "from agno.tools import tool\n\n\n"
                "@tool(name='analyse_video')\n"
                "def analyse_video(video_path: str, audio_path: str) -> str:\n"
                "    capture = cv2.VideoCapture(video_path)\n"
                "    clip = VideoFileClip(video_path)\n"
                "    clip.audio.write_audiofile(audio_path)\n"
                "    y, sr = librosa.load(audio_path)\n"
                "    capture.release()\n"
                "    return str(sr)\n"
            )
        }
    )
    assert _reached(linked, "analyse_video") == {
        ("file.read", 9),
        ("file.read", 10),
        ("file.write", 11),
        ("file.read", 12),
    }


def test_plain_http_asking_for_an_oauth_token_is_a_credential_read_other_posts_stay_egress() -> None:
    linked = analyse(
        {
            "app.py": (
                "import requests\n\n\n"
                "def token(client_id: str, secret: str, account: str) -> str:\n"
                "    data = {'grant_type': 'account_credentials', 'account_id': account}\n"
                "    return requests.post(URL, data=data, auth=(client_id, secret)).json()['access_token']\n\n\n"
                "def refresh(code: str) -> str:\n"
                "    return requests.post('https://example.com/oauth2/token', json={'code': code}).text\n\n\n"
                "def order(item: str) -> str:\n"
                "    data = {'item': item, 'type': 'grant'}\n"
                "    return requests.post(URL, data=data).text\n\n\n"
                "URL = 'https://example.com/api'\n"
            )
        }
    )
    assert sorted((a.actionClass, a.location.line) for a in linked.actions) == [
        ("credential.read", 6),
        ("credential.read", 10),
        ("network.egress", 15),
    ]


def test_a_package_objects_attribute_held_in_a_variable_and_a_helpers_returned_object_keep_their_types() -> None:
    linked = analyse(
        {
            "tool.py": (
                "from faster_whisper import WhisperModel\n"
                "from moviepy import VideoFileClip\n"
                "from agno.tools import tool\n\n\n"
                "def load_model():\n"
                "    try:\n"
                "        model = WhisperModel('small')\n"
                "        return model\n"
                "    except Exception:\n"
                "        return None\n\n\n"
                "def pick(flag: bool):\n"
                "    return WhisperModel('small') if flag else 'none'\n\n\n"
                "@tool(name='transcribe')\n"
                "def transcribe(video_path: str, audio_path: str) -> str:\n"
                "    audio = VideoFileClip(video_path).audio\n"
                "    audio.write_audiofile(audio_path)\n"
                "    segments, _ = load_model().transcribe(audio_path)\n"
                "    other = pick(True)\n"
                "    other.transcribe(audio_path)\n"
                "    return ' '.join(s.text for s in segments)\n"
            )
        }
    )
    # ``pick`` returns a model or a string: what it returns has no one type, so nothing is said of ``other``.
    assert _reached(linked, "transcribe") == {("file.read", 20), ("file.write", 21), ("file.read", 22)}
