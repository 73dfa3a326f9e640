"""Issue 20: a Semantic Kernel plugin registered under a name of its own (``kernel.add_plugin(CvPlugin(),
"cv_plugin")``) offers its functions under that name also when the registering module imports the class from a
package that re-exports it (``from plugins import CvPlugin``, ``plugins/__init__.py`` importing it from
``plugins.cv``); a class registered under two names keeps its own."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

PLUGIN_PY = """\
from semantic_kernel.functions import kernel_function


class CvPlugin:
    @kernel_function(description="Template names")
    def get_template_names(self) -> list[str]:
        return ["engineering"]
"""

REGISTERING_PY = """\
from semantic_kernel import Kernel
from plugins import CvPlugin


class Assistant:
    def __init__(self) -> None:
        self.kernel = Kernel()
        self.kernel.add_plugin(CvPlugin(), "cv_plugin")
"""

TWICE_PY = """\
from semantic_kernel import Kernel
from plugins import CvPlugin

first = Kernel()
first.add_plugin(CvPlugin(), "cv_a")
second = Kernel()
second.add_plugin(CvPlugin(), "cv_b")
"""


def test_a_plugin_imported_through_a_reexporting_package_takes_its_registered_name(tmp_path: Path) -> None:
    files = {
        "plugins/__init__.py": "from .cv import CvPlugin\n",
        "plugins/cv.py": PLUGIN_PY,
        "agent.py": REGISTERING_PY,
    }
    bundle = scan_files(tmp_path, files)
    assert {t["name"] for t in bundle["tools"]} == {"cv_plugin-get_template_names"}


def test_a_reexported_plugin_registered_under_two_names_keeps_its_own(tmp_path: Path) -> None:
    files = {
        "plugins/__init__.py": "from .cv import CvPlugin\n",
        "plugins/cv.py": PLUGIN_PY,
        "agent.py": TWICE_PY,
    }
    bundle = scan_files(tmp_path, files)
    assert {t["name"] for t in bundle["tools"]} == {"CvPlugin-get_template_names"}
