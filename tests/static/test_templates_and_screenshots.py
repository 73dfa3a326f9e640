"""Issue 20: a Jinja environment's template lookup reads the template file its loader finds
(``Environment(loader=FileSystemLoader(root)).get_template(name)``: file.read); a screenshot saved to a path writes
that file (``pyautogui.screenshot().save(path)``, ``ImageGrab.grab().save(path)``: file.write)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def test_a_template_lookup_reads_the_template_file() -> None:
    code = (
        "from jinja2 import Environment, FileSystemLoader\n"  # 1
        "from agents import function_tool\n"  # 2
        "\n"  # 3
        "@function_tool\n"  # 4
        "def render(template_name: str) -> str:\n"  # 5
        "    env = Environment(loader=FileSystemLoader('templates'))\n"  # 6
        "    template = env.get_template(f'{template_name}/doc.jinja')\n"  # 7
        "    return template.render()\n"  # 8
    )
    assert ("file.read", 7) in _reached(analyse({"m.py": code}), "render")


def test_a_screenshot_saved_to_a_path_writes_it() -> None:
    code = (
        "from PIL import ImageGrab\n"  # 1
        "from agents import function_tool\n"  # 2
        "\n"  # 3
        "@function_tool\n"  # 4
        "def screenshot(path: str) -> str:\n"  # 5
        "    import pyautogui\n"  # 6
        "    shot = pyautogui.screenshot()\n"  # 7
        "    shot.save(path)\n"  # 8
        "    ImageGrab.grab().save(path + '.bak')\n"  # 9
        "    return path\n"  # 10
    )
    assert {("file.write", 8), ("file.write", 9)} <= _reached(analyse({"m.py": code}), "screenshot")
