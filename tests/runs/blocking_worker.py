"""``assay`` with a static engine that never finishes: a worker process for the crash test to kill mid-run.

Usage: ``python blocking_worker.py MARKER_FILE ASSAY_ARGS...``. When the engine is entered, MARKER_FILE is
written; the engine then blocks until the process is killed. Only this test-side wrapper blocks: the
product has no test hook.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from assay.backend.engines.static import scan
from assay.server.cli import main


def _blocking_scan(root: Path, **kwargs: Any) -> Any:
    Path(sys.argv[1]).write_text(str(root))
    threading.Event().wait()
    raise AssertionError("unreachable")


if __name__ == "__main__":
    scan.scan_tree_canonical = _blocking_scan  # the engine a run calls
    sys.exit(main(sys.argv[2:]))
