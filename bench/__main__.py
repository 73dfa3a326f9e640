"""Run every benchmark and print its figures: ``python -m bench [NAME ...]``."""

from __future__ import annotations

import sys
from importlib import import_module

BENCHMARKS: tuple[str, ...] = (
    "static_scan",
    "semgrep_peer",
    "http_api",
    "service_e2e",
    "report_pdf",
    "mcp_latency",
    "otlp_ingest",
    "run_attach",
    "large_tree",
    "ll144",
    "runtime_probe",
    "startup",
    "intake_rate",
    "intake_lock",
    "memory_battery",
    "dashboard_page",
)


def main(argv: list[str]) -> int:
    selected = argv or list(BENCHMARKS)
    unknown = sorted(set(selected) - set(BENCHMARKS))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    for name in selected:
        print(f"== {name}", flush=True)
        import_module(f"bench.{name}").run()
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
