"""Links of runs and evaluations. Every link points at a real route of this service; the dashboard
links are null because this deployment has no dashboard."""

from __future__ import annotations

RUNS = "/api/v1/assurance/runs"
EVALUATIONS = "/api/v1/assurance/evaluations"


def run_self(run_id: str) -> str:
    return f"{RUNS}/{run_id}"


def evaluation_links(evaluation_id: str) -> dict[str, str]:
    base = f"{EVALUATIONS}/{evaluation_id}"
    return {
        "summary": f"{base}/summary",
        "report": f"{base}/report",
        "masterReport": f"{base}/master-report",
        "masterReportPdf": f"{base}/master-report/pdf",
        "masterReportHtml": f"{base}/master-report/html",
        "agentAudit": f"{base}/agent-audit",
        "passport": f"{base}/passport",
        "pdf": f"{base}/report/pdf",
    }


def master_report_links(evaluation_id: str) -> dict[str, str | None]:
    links = evaluation_links(evaluation_id)
    return {
        "html": links["masterReportHtml"],
        "pdf": links["masterReportPdf"],
        "api": links["masterReport"],
        "apiPdf": links["masterReportPdf"],
        "agentAudit": links["agentAudit"],
        "passport": links["passport"],
        "assuranceReport": links["report"],
        "assuranceEvidencePdf": links["pdf"],
        "evaluation": links["summary"],
        "decisionReceipt": None,
        "systemWorkspace": None,
        "investigation": None,
    }
