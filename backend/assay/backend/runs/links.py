"""Links of runs and evaluations. Every link points at a real route of this service: the API's artifact
routes (a bearer key opens them) and the dashboard's pages (a signed-in member of the organization opens
them; ``dashboard/urls.py`` spells them). Paths are relative to the service root, like every link here."""

from __future__ import annotations

from assay.backend.dashboard import urls

RUNS = "/api/v1/assurance/runs"
EVALUATIONS = "/api/v1/assurance/evaluations"


def run_self(run_id: str) -> str:
    return f"{RUNS}/{run_id}"


def evaluation_links(evaluation_id: str, ai_system_id: str) -> dict[str, str]:
    """The links of a persisted Evaluation, as a run envelope and the summary carry them."""
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
        "dashboard": urls.evaluation(evaluation_id),
        "dashboardEvaluation": urls.evaluation(evaluation_id),
        "dashboardMasterReport": urls.master_report(evaluation_id),
        "dashboardSystemWorkspace": urls.system_workspace(ai_system_id),
        "dashboardAssurance": urls.assurance(evaluation_id),
        "dashboardReports": urls.reports(evaluation_id),
    }


def master_report_links(evaluation_id: str, ai_system_id: str) -> dict[str, str | None]:
    """The Master Report's links: its API artifacts, and the dashboard's evaluation page, decision receipt and
    system workspace. ``investigation`` stays null: there is no investigation resource yet."""
    links = evaluation_links(evaluation_id, ai_system_id)
    return {
        "html": links["masterReportHtml"],
        "pdf": links["masterReportPdf"],
        "api": links["masterReport"],
        "apiPdf": links["masterReportPdf"],
        "agentAudit": links["agentAudit"],
        "passport": links["passport"],
        "assuranceReport": links["report"],
        "assuranceEvidencePdf": links["pdf"],
        "evaluation": urls.evaluation(evaluation_id),
        "decisionReceipt": urls.decision_receipt(evaluation_id),
        "systemWorkspace": urls.system_workspace(ai_system_id),
        "investigation": None,
    }
