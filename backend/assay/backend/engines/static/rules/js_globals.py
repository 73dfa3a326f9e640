"""The global identifiers of JavaScript environments (ECMAScript, browsers and their workers, Node.js,
Deno, Bun), read from ``javascript_globals.json``: data generated from the ``globals`` npm package (the list
ESLint uses), never typed by hand. A call to one of them is to the platform, not to code bound nowhere.

Regenerate after updating the package (``make js-globals``)::

    python -m assay.backend.engines.static.rules.js_globals PATH/TO/globals/package > .../javascript_globals.json
"""

from __future__ import annotations

import json
import sys
from functools import cache
from importlib import resources
from pathlib import Path

DATA_FILE = "javascript_globals.json"
# The environments whose globals code may call without binding them.
ENVIRONMENTS = (
    "builtin",
    "browser",
    "worker",
    "serviceworker",
    "sharedWorker",
    "audioWorklet",
    "paintWorklet",
    "node",
    "nodeBuiltin",
    "shared-node-browser",
    "commonjs",
    "denoBuiltin",
    "bunBuiltin",
)


@cache
def javascript_globals() -> frozenset[str]:
    """Every global name of the environments in ``ENVIRONMENTS``."""
    text = resources.files("assay.backend.engines.static.rules").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return frozenset(json.loads(text)["names"])


def generate(package: Path) -> str:
    """The data file's text, from an unpacked ``globals`` npm package (its package.json and globals.json)."""
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    data = json.loads((package / "globals.json").read_text(encoding="utf-8"))
    names = sorted({name for env in ENVIRONMENTS for name in data[env]})
    document = {
        "source": f"globals {meta['version']} (npm package, {meta['license']} license, by Sindre Sorhus): the "
        "global identifiers of the environments listed",
        "environments": list(ENVIRONMENTS),
        "names": names,
    }
    return json.dumps(document, indent=0, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(generate(Path(sys.argv[1])))
