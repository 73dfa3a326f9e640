"""Pages from Jinja2 templates (``templates/``), escaped by default: every value a user or a scanned
repository supplied (names, emails, reason texts, paths) reaches the page as text, never as markup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.responses import HTMLResponse

from assay.backend.dashboard.sessions import SignedIn

HERE = Path(__file__).resolve().parent
STATIC_DIR = HERE / "static"
STATIC_URL = "/dashboard/static/dashboard.css"


class Renderer:
    """The dashboard's template environment, built once per app."""

    def __init__(self) -> None:
        self.environment = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def page(
        self,
        template: str,
        *,
        user: SignedIn | None,
        status: int = 200,
        headers: dict[str, str] | None = None,
        **context: Any,
    ) -> HTMLResponse:
        html = self.environment.get_template(template).render(user=user, static_url=STATIC_URL, **context)
        return HTMLResponse(html, status_code=status, headers=headers)

    def error(self, user: SignedIn | None, status: int, heading: str, message: str) -> HTMLResponse:
        return self.page("error.html", user=user, status=status, heading=heading, message=message)

    def not_found(self, user: SignedIn | None) -> HTMLResponse:
        """The one answer for a page that is missing and for one of an organization the user is not in."""
        return self.error(user, 404, "Not found", "There is no such page, or it is not shared with you.")
