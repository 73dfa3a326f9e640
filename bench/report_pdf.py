"""Report figure (issue 5): median time to render the Master Report PDF of the largest example
(full detail, A4), against rendering its HTML in the same run. Target: PDF under one second."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from assay.backend.engines.static.scan import scan_tree
from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.reports.html import render_html
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import master_document
from assay.backend.reports.pdf import render_pdf

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REPEATS = 15


def run() -> None:
    largest = max(
        (p for p in EXAMPLES.iterdir() if (p / "assay.toml").exists()),
        key=lambda p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()),
    )
    membership = make_membership([static_bundle_item(scan_tree(largest).to_json_dict())])
    payload = evaluate(membership, ai_system_id="bench", jurisdiction=None)
    report = build_master_report("bench-eval", payload, links={}, detail="full")["masterReport"]
    pdf_times, html_times = [], []
    for _ in range(REPEATS):
        start = time.perf_counter()
        pdf = render_pdf(master_document(report))
        pdf_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        render_html(master_document(report))
        html_times.append(time.perf_counter() - start)
    pdf_median, html_median = statistics.median(pdf_times), statistics.median(html_times)
    print(f"largest example: {largest.name}; PDF {len(pdf)} bytes")
    print(
        f"Master Report PDF median {pdf_median * 1000:.0f} ms over {REPEATS} renders (target < 1000 ms); "
        f"HTML median {html_median * 1000:.1f} ms; ratio PDF/HTML {pdf_median / html_median:.0f}x"
    )
