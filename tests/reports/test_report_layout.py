"""Reports read right on a real page: tool rows say where each tool is, quoted code stays on one line,
no cell overflows a 1280 px window (measured in headless Chromium when it is installed) or an A4 cell,
and the HTML page opened from a file has no link that cannot open."""

from __future__ import annotations

import copy
import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pypdf
import pytest
from report_systems import evaluated

from assay.backend.reports.check_markdown import check_markdown
from assay.backend.reports.document import SNIPPET_CHARS, Document, Table, code_spans, one_line
from assay.backend.reports.html import render_html
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import master_document
from assay.backend.reports.pdf import render_pdf
from assay.backend.runs.links import master_report_links
from assay.server.check_text import check_text

SHELL_TOOL = '''from langchain_core.tools import tool
import subprocess


@tool
def shell(command: str) -> str:
    """Run a command."""
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout
'''
SNIPPET = "`subprocess.run(\n    command,\n    shell=True,\n    capture_output=True,\n    text=True,\n    env={'PATH': '/usr/bin:/bin'},\n)`"
# Values as long as real ones (the OpenAI Agents SDK examples): dotted APIs, several gates, deep paths.
TARGET = "agents.sandbox.session.base_sandbox_session.BaseSandboxSession.exec"
GATES = "human_approval, path_containment, sandbox"
PATH = "examples/sandbox/extensions/daytona/usaspending_text2sql/streamablehttp_custom_client_example/sql_capability.py:133"


def _report(root: Path) -> dict[str, Any]:
    _, payload = evaluated(root, ai_system_id="sys_layout")
    links = master_report_links("eval_layout", "sys_layout")
    report: dict[str, Any] = build_master_report("eval_layout", payload, links=links, detail="full")["masterReport"]
    return report


@pytest.fixture(scope="module")
def two_shells(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("shells")
    for folder in ("ops", "deploy"):
        (root / folder).mkdir()
        (root / folder / "tools.py").write_text(("\n" * (3 if folder == "ops" else 7)) + SHELL_TOOL)
    return _report(root)


def _pdf_text(pdf: bytes) -> str:
    return "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_tool_rows_say_where_each_tool_is(two_shells: dict[str, Any]) -> None:
    places = [
        f"{t['location']['path']}:{t['location']['line']}"
        for t in two_shells["fourQuestions"]["reach"]["codeCapable"]["tools"]
    ]
    assert sorted(p.split(":")[0] for p in places) == ["deploy/tools.py", "ops/tools.py"] and len(set(places)) == 2
    document = master_document(two_shells)
    html = render_html(document)
    section = html[html.index("Tools, actions and gates") : html.index("Why: reasons by rule")]
    assert "<th>Where</th>" in section
    rows = re.findall(r'<tr><td class="mono">(.*?)</td><td class="path">(.*?)</td>', section)
    cells = {(re.sub(r"<[^>]+>", "", tool), where.replace("<wbr>", "")) for tool, where in rows}
    assert cells == {("shell", place) for place in places}
    text = re.sub(r"\s+", "", _pdf_text(render_pdf(document)))
    for place in places:
        assert place in text  # the PDF's tool rows carry path:line too


def test_quoted_code_is_one_line_cut_at_a_token_boundary(two_shells: dict[str, Any]) -> None:
    flat = one_line(f"Model output reaches {SNIPPET} at ops/tools.py:8.\nSecond line.")
    assert "\n" not in flat and flat.startswith("Model output reaches `subprocess.run(command, shell=True,")
    (code,) = [part for is_code, part in code_spans(flat) if is_code]
    assert len(code) <= SNIPPET_CHARS + 1 and code.endswith("…")
    cut = code[:-1]
    assert cut.endswith((",", "(", " ")) or cut.endswith(tuple(".;:)]}=")), cut  # a token ends where it is cut
    assert one_line("no code, one line") == "no code, one line"

    report = copy.deepcopy(two_shells)
    for reason in report["reasons"]:
        reason["message"] = f"{reason['message']} Called as {SNIPPET}."
    html = render_html(master_document(report))
    rules = html[html.index("Why: reasons by rule") : html.index("Actions: one row per action")]
    for cell in re.findall(r"<td>(.*?)</td>", rules, flags=re.S):
        assert "\n" not in cell
    # The text and Markdown views of `assay check` keep one reason per line.
    result = {
        "disposition": "BLOCK",
        "target": {"path": "."},
        "reasons": [{"ruleId": "BLOCK-001", "disposition": "BLOCK", "message": f"Reaches {SNIPPET}.", "locations": []}],
        "verificationItems": [{"id": "vi-1", "verificationNeeded": f"Stop {SNIPPET} from running model output."}],
    }
    markdown = check_markdown(result)
    (row,) = [line for line in markdown.splitlines() if line.startswith("| `BLOCK-001`")]
    assert row.endswith(" |") and "…" in row
    text = check_text(result)
    assert next(line for line in text.splitlines() if "BLOCK-001" in line).endswith("…`.")
    assert next(line for line in text.splitlines() if "[vi-1]" in line).endswith("from running model output.")


def test_html_links_name_api_routes_as_text_unless_served_where_they_open(two_shells: dict[str, Any]) -> None:
    document = master_document(two_shells)
    page = render_html(document)
    # Opened from a file, a link to an API route could never open (it needs a bearer key): none is a link.
    assert 'href="/api/' not in page and "<a " not in page
    flat = page.replace("<wbr>", "")
    for _label, route in document.links:
        assert f"GET {route}" in flat
    served = render_html(document, link=lambda route: "/dashboard" + route.removeprefix("/api/v1"))
    assert 'href="/dashboard/assurance/evaluations/eval_layout/master-report/pdf"' in served


def _wide_document() -> Document:
    rows = [
        [f"tool_{n}_with_a_long_name", PATH, "GATED", "; ".join([f"file.write via {TARGET} (high)"] * 3), GATES]
        for n in range(6)
    ]
    actions = [
        ["critical", "shell.exec", TARGET, PATH, "shell, run_command_in_sandbox", GATES, "REVIEW-003, BLOCK-001"]
    ]
    return Document(
        title="Layout",
        subtitle="wide values",
        footer="f",
        blocks=[
            Table(
                ["Tool", "Where", "Status", "Reaches (impact)", "Gates"],
                rows,
                widths=[0.15, 0.2, 0.1, 0.37, 0.18],
                kinds=["mono", "path", "badge", "text", "badge"],
            ),
            Table(
                ["Impact", "Class", "Target", "Where", "Tools", "Gates", "Rules"],
                actions,
                widths=[0.09, 0.12, 0.16, 0.22, 0.15, 0.12, 0.14],
                kinds=["badge", "badge", "mono", "path", "mono", "badge", "mono"],
            ),
        ],
        links=list(master_report_links("eval_a_rather_long_evaluation_identifier", "sys_layout").items())[:5],  # type: ignore[arg-type]
    )


MEASURE = """<script>addEventListener('load', () => {
  const width = document.documentElement.clientWidth, bad = [];
  if (document.documentElement.scrollWidth > width) bad.push('page ' + document.documentElement.scrollWidth);
  for (const el of document.querySelectorAll('table, th, td')) {
    const box = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || box.right > width + 0.5) bad.push(el.tagName + ' ' + el.textContent.slice(0, 40));
  }
  const out = document.createElement('pre'); out.id = 'measured'; out.textContent = JSON.stringify(bad);
  document.body.appendChild(out);
});</script>"""


def _overflows(page: str, tmp_path: Path) -> list[str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Chromium is not installed (make screenshots installs it)")
    file = tmp_path / "page.html"
    file.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]
    dumped = subprocess.run(
        [chromium, *flags, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900",
         "--virtual-time-budget=5000", "--dump-dom", file.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="measured">(.*?)</pre>', dumped, flags=re.S)
    assert found, dumped[-500:]
    measured: list[str] = json.loads(found.group(1).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"))
    return measured


def test_no_cell_overflows_a_1280_px_window(two_shells: dict[str, Any], tmp_path: Path) -> None:
    assert _overflows(render_html(_wide_document()), tmp_path) == []
    assert _overflows(render_html(master_document(two_shells)), tmp_path) == []


def test_pdf_cells_keep_long_paths_inside_their_borders() -> None:
    """Every line of a path or identifier cell ends before the next column starts (A4, DejaVu Sans Mono)."""
    matrix = _wide_document().blocks[0]
    pdf = render_pdf(Document(title="Layout", subtitle="", footer="f", blocks=[matrix]))
    chunks: list[tuple[float, str, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if text.strip():
            chunks.append((cm[4] + tm[4], text.strip(), str(font.get("/BaseFont", "")) if font else ""))

    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        page.extract_text(visitor_text=visit)
    assert isinstance(matrix, Table)
    heads = sorted(x for x, text, _ in chunks if text in matrix.columns)
    assert len(heads) == len(matrix.columns)
    checked = 0
    for x, text, font in chunks:
        if "Mono" not in font and "Courier" not in font:
            continue
        column = max(n for n, head in enumerate(heads) if head <= x + 0.5)
        if column + 1 < len(heads):
            right = x + len(text) * 7 * 0.6021  # the mono face's advance: 0.602 em at 7 pt
            assert right <= heads[column + 1] - 3.5 + 0.5, (text, right, heads[column + 1])
            checked += 1
    assert checked >= 12  # the long names and paths, each over several lines
