"""Python modules compiled to bytecode beside them (``__pycache__``), as an installed package's are.

A timed run that starts a new interpreter imports the engine. Where ``PYTHONDONTWRITEBYTECODE`` is set (as in
some development shells and on CI machines) an editable checkout has no bytecode, and every such run compiles
each module it imports from source again: a cost of the checkout, not of the scan, and larger for the engine
with more code. The interpreter still reads bytecode it finds, so compiling once, before the timed runs,
makes each run pay what an installed ``assay`` pays. A ``PYTHONPYCACHEPREFIX`` is not set here: the standard
library's and the packages' bytecode would no longer be found, and they would be compiled on every run instead.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path


def compile_bytecode(folders: Iterable[Path], env: Mapping[str, str]) -> None:
    """Compile every module under the existing ``folders`` (quietly; a module that does not compile is
    left for the run itself to report)."""
    existing = [str(folder) for folder in folders if folder.is_dir()]
    if existing:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", *existing], env=dict(env), capture_output=True, check=False
        )
