"""Issue 20, an SDK no rule names is still reach: a package's object built with the credentials of a service
(an API key, an access token, a client secret) is a client of that service, and a method called on it, or on a
resource reached through it (``client.widgets.delete(i)``), leaves the process as network.egress naming the
package. Words that also name local settings (``token=`` of a tokenizer, ``password=`` of an archive) are not
credentials of a service; the tree's own classes are never a package's client."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int, str]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.line, a.target)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def test_a_package_object_built_with_an_api_key_is_a_client_whose_calls_leave_the_process() -> None:
    code = (
        "import os\n"  # 1
        "from acme_sdk import Widgets\n"  # 2
        "from agents import function_tool\n"  # 3
        "\n"  # 4
        "widgets = Widgets(api_key=os.environ['ACME_KEY'])\n"  # 5
        "\n"  # 6
        "@function_tool\n"  # 7
        "def list_widgets() -> str:\n"  # 8
        "    return str(widgets.list())\n"  # 9
    )
    reached = _reached(analyse({"m.py": code}), "list_widgets")
    assert {(c, line) for c, line, _ in reached} == {("network.egress", 9)}
    assert all(target.startswith("acme_sdk.") for _, _, target in reached)


def test_a_resource_reached_through_a_credentialed_client_is_that_client() -> None:
    code = (
        "from acme import Acme\n"  # 1
        "from agents import function_tool\n"  # 2
        "\n"  # 3
        "@function_tool\n"  # 4
        "def delete_widget(widget_id: str) -> str:\n"  # 5
        "    client = Acme(access_token='t')\n"  # 6
        "    client.widgets.delete(widget_id)\n"  # 7
        "    return 'ok'\n"  # 8
        "\n"  # 9
        "@function_tool\n"  # 10
        "def archive_widget(widget_id: str) -> str:\n"  # 11
        "    Acme(client_secret='s').widgets.archive(widget_id)\n"  # 12
        "    return 'ok'\n"  # 13
    )
    linked = analyse({"m.py": code})
    assert {(c, line) for c, line, _ in _reached(linked, "delete_widget")} == {("network.egress", 7)}
    assert {(c, line) for c, line, _ in _reached(linked, "archive_widget")} == {("network.egress", 12)}


def test_local_settings_named_like_credentials_and_the_trees_own_classes_make_no_client() -> None:
    code = (
        "from transformers import AutoTokenizer\n"  # 1
        "from acme_archive import Archive\n"  # 2
        "from agents import function_tool\n"  # 3
        "\n"  # 4
        "class Vault:\n"  # 5
        "    def __init__(self, api_key: str) -> None:\n"  # 6
        "        self.key = api_key\n"  # 7
        "    def read(self, name: str) -> str:\n"  # 8
        "        return name\n"  # 9
        "\n"  # 10
        "@function_tool\n"  # 11
        "def count_tokens(text: str) -> int:\n"  # 12
        "    tokenizer = AutoTokenizer.from_pretrained('gpt2', token='hf')\n"  # 13
        "    archive = Archive(password='p')\n"  # 14
        "    archive.read(text)\n"  # 15
        "    Vault(api_key='k').read(text)\n"  # 16
        "    return len(tokenizer.encode(text))\n"  # 17
    )
    assert _reached(analyse({"m.py": code}), "count_tokens") == set()


def test_a_resource_of_a_client_an_object_holds_is_that_client() -> None:
    code = (
        "from acme import Acme\n"  # 1
        "from acme_docs import Parser\n"  # 2
        "from agents import function_tool\n"  # 3
        "\n"  # 4
        "class Service:\n"  # 5
        "    def __init__(self) -> None:\n"  # 6
        "        self.client = Acme(api_key='k')\n"  # 7
        "        self.parser = Parser()\n"  # 8
        "    def remove(self, widget_id: str) -> None:\n"  # 9
        "        self.client.widgets.delete(widget_id)\n"  # 10
        "    def parse(self, text: str) -> str:\n"  # 11
        "        return self.parser.blocks.read(text)\n"  # 12
        "\n"  # 13
        "@function_tool\n"  # 14
        "def delete_widget(widget_id: str) -> str:\n"  # 15
        "    Service().remove(widget_id)\n"  # 16
        "    return Service().parse(widget_id)\n"  # 17
    )
    reached = _reached(analyse({"m.py": code}), "delete_widget")
    assert {(c, line) for c, line, _ in reached} == {("network.egress", 10)}  # not the local parser's read
