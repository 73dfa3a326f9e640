"""The dashboard's page addresses: the one place that spells them (run envelopes and Master Reports link
here through ``runs/links.py``)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode

PREFIX = "/dashboard"


def evaluation(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}"


def master_report(evaluation_id: str) -> str:
    """The Master Report link: redirects to :func:`master_report_document`."""
    return f"{PREFIX}/evaluations/{evaluation_id}/master-report"


def master_report_document(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/master-report/document"


def reports(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/reports"


def assurance(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/assurance"


def decision_receipt(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/receipt"


def download(evaluation_id: str, artifact: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/download/{artifact}"


def system_workspace(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}"


def keys(organization_id: str) -> str:
    return f"{PREFIX}/organizations/{organization_id}/keys"


def key_revoke(organization_id: str, key_id: str) -> str:
    return f"{PREFIX}/organizations/{organization_id}/keys/{key_id}/revoke"


def people(organization_id: str) -> str:
    return f"{PREFIX}/organizations/{organization_id}/people"


def invitation(token: str) -> str:
    """The link an invited person opens (the token is its only secret)."""
    return f"{PREFIX}/invitations/{token}"


def start_run(ai_system_id: str) -> str:
    """Where the workspace's "Start a run" form posts."""
    return f"{PREFIX}/systems/{ai_system_id}/runs"


def run(run_id: str) -> str:
    return f"{PREFIX}/runs/{run_id}"


def compare(ai_system_id: str, base: str | None = None, head: str | None = None) -> str:
    """The difference of two Evaluations of one system (the bare path is the form's action)."""
    path = f"{PREFIX}/systems/{ai_system_id}/compare"
    return path if base is None or head is None else f"{path}?{urlencode({'base': base, 'head': head})}"


def display_time(moment: datetime) -> str:
    """A moment as pages show it: UTC to the second."""
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def organization_systems(organization_id: str) -> str:
    """An organization's AI Systems, with the form that creates one."""
    return f"{PREFIX}/organizations/{organization_id}/systems"


def system_settings(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/settings"


def system_retire(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/retire"


def system_sources(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/sources"


def system_targets(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/targets"


def system_binders(ai_system_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/binders"


def system_risks(ai_system_id: str) -> str:
    """The AI System's accepted risks (recorded from evaluation pages, revoked here)."""
    return f"{PREFIX}/systems/{ai_system_id}/risks"


def revoke_risk(ai_system_id: str, acceptance_id: str) -> str:
    return f"{PREFIX}/systems/{ai_system_id}/risks/{acceptance_id}/revoke"


def accept_risk(evaluation_id: str) -> str:
    return f"{PREFIX}/evaluations/{evaluation_id}/risks"
