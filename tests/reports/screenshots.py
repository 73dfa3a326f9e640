"""``make screenshots``: the Master Report of each example (and a generated 60-tool system) as HTML and
PDF, an HTML screenshot from headless Chromium and PNG pages of the PDF from pdftoppm, into a folder
(default out/screenshots/), so people look at what reviewers will see.

Not a test: it renders through the same functions the routes use, with the identity the service would
give (the examples are copied into git work trees, one with an uncommitted change).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from dulwich import porcelain
from tests.reports.report_systems import EXAMPLE_NAMES, EXAMPLES, evaluated, write_wide_system

from assay.backend.reports.html import render_html
from assay.backend.reports.identity import build_identity, sources_of
from assay.backend.reports.master import build_master_report
from assay.backend.reports.master_document import master_document
from assay.backend.reports.pdf import render_pdf
from assay.backend.runs.links import master_report_links

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
AUTHOR = b"Assay screenshots <screenshots@example.com>"


def _git_tree(source: Path, into: Path, *, dirty: bool) -> Path:
    root = into / source.name
    shutil.copytree(source, root)
    porcelain.init(str(root)).close()
    files = [str(p) for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts]
    porcelain.add(str(root), paths=files)
    porcelain.commit(str(root), message=b"snapshot", author=AUTHOR, committer=AUTHOR)
    if dirty:
        first = sorted(p for p in root.rglob("*.py") if ".git" not in p.parts)[0]
        first.write_text(first.read_text() + "\n# an uncommitted change\n")
    return root


def render(name: str, root: Path, out: Path) -> tuple[Path, Path]:
    membership, payload = evaluated(root, ai_system_id=f"sys_{name.replace('-', '_')}")
    evaluation_id = f"eval_{name.replace('-', '_')}"
    links = master_report_links(evaluation_id, payload.data["aiSystemId"])
    identity = build_identity(
        evaluation_id=evaluation_id,
        ai_system_id=payload.data["aiSystemId"],
        system_name=name.replace("-", " ").title(),
        evaluated_at="2026-11-24T16:00:00Z",
        methodology_version=payload.methodology_version,
        sources=sources_of(membership),
        signing_key_id="k3Zx9QeJ1sT0aB7c",
        links=links,
    )
    report = build_master_report(evaluation_id, payload, links=links, detail="full", identity=identity)
    document = master_document(report["masterReport"])
    html, pdf = out / f"{name}.html", out / f"{name}.pdf"
    html.write_text(render_html(document), encoding="utf-8")
    pdf.write_bytes(render_pdf(document))
    return html, pdf


def shoot(html: Path, pdf: Path, out: Path, chromium: str, profile: Path) -> None:
    stem = html.stem
    subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2600",
         f"--screenshot={out / f'{stem}-html.png'}", html.resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    subprocess.run(["pdftoppm", "-png", "-r", "70", str(pdf), str(out / f"{stem}-pdf")], check=True, timeout=120)


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "out/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None or shutil.which("pdftoppm") is None:
        print(
            "screenshots need chromium and pdftoppm (Debian: apt-get install chromium poppler-utils)", file=sys.stderr
        )
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        trees = Path(scratch)
        systems = [(n, _git_tree(EXAMPLES / n, trees, dirty=(n == "ops-agent"))) for n in EXAMPLE_NAMES]
        systems.append(("wide-60-tools", write_wide_system(trees / "wide-60-tools")))
        for name, root in systems:
            html, pdf = render(name, root, out)
            with tempfile.TemporaryDirectory() as profile:
                shoot(html, pdf, out, chromium, Path(profile))
            print(f"{name}: {html} {pdf} and PNGs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
