"""Findings of other scanners, from ingested SARIF 2.1.0 logs (the sarif-import producer).

Each SARIF result becomes an imported finding with its tool, rule id, level, message and first location.
A result is on reachable code when its file is one the static evidence ties to a tool: a file that
defines a tool, holds an action a tool reaches, or holds a call site on such a path (a file-level
approximation: SARIF locations and the bundle's functions are not joined line by line). Error-level
results on reachable code fire REVIEW-010 (docs/methodology.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from assay.backend.evaluation.view import EvidenceView

# Imported findings an Evaluation holds; the rest are counted and named in a limitation.
MAX_IMPORTED = 500


@dataclass(frozen=True, slots=True)
class ImportedFinding:
    id: str
    tool: str
    rule_id: str
    level: str
    message: str
    path: str | None
    line: int | None
    reachable: bool
    evidence_ref: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "producerId": "sarif-import",
            "tool": self.tool,
            "ruleId": self.rule_id,
            "level": self.level,
            "message": self.message,
            "location": None if self.path is None else {"path": self.path, "line": self.line},
            "onReachableCode": self.reachable,
            "evidenceRefs": [self.evidence_ref],
        }


def _reachable_paths(view: EvidenceView) -> set[str]:
    paths = {t.location.path for t in view.tools.values()}
    for action in view.actions.values():
        if action.reachedFrom:
            paths.add(action.location.path)
            paths.update(call.path for p in action.reachedFrom for call in p.calls)
    return paths


def _path(uri: str, known: set[str]) -> str:
    """The SARIF artifact URI as a tree path: a file URI or relative reference made relative to the tree
    when it ends with a path the static evidence knows."""
    parsed = urlparse(uri)
    text = unquote(parsed.path if parsed.scheme in ("file", "") else uri).lstrip("./") or uri
    if text in known:
        return text
    for candidate in known:
        if text.endswith("/" + candidate):
            return candidate
    return text


def _level(result: dict[str, Any], rules: dict[str, dict[str, Any]]) -> str:
    level = result.get("level")
    if isinstance(level, str):
        return level
    rule = rules.get(str(result.get("ruleId")), {})
    default = (rule.get("defaultConfiguration") or {}).get("level")
    return default if isinstance(default, str) else "warning"


def imported_findings(view: EvidenceView) -> tuple[list[ImportedFinding], int]:
    """The imported findings (at most MAX_IMPORTED, errors first) and how many results there were."""
    reachable = _reachable_paths(view)
    known = reachable | {f.path for c in view.coverages for f in c.files}
    found: list[ImportedFinding] = []
    for evidence_id, log in view.sarif:
        for run_index, run in enumerate(log.get("runs") or []):
            driver = ((run.get("tool") or {}).get("driver")) or {}
            rules = {str(r.get("id")): r for r in driver.get("rules") or [] if isinstance(r, dict)}
            for result_index, result in enumerate(run.get("results") or []):
                location = ((result.get("locations") or [{}])[0].get("physicalLocation")) or {}
                uri = (location.get("artifactLocation") or {}).get("uri")
                line = (location.get("region") or {}).get("startLine")
                path = _path(uri, known) if isinstance(uri, str) else None
                message = result.get("message") or {}
                found.append(
                    ImportedFinding(
                        id=f"imp-{run_index}-{result_index}-{evidence_id.removeprefix('ev-')}",
                        tool=str(driver.get("name") or "unknown"),
                        rule_id=str(result.get("ruleId") or "unknown"),
                        level=_level(result, rules),
                        message=str(message.get("text") or "").strip(),
                        path=path,
                        line=line if isinstance(line, int) else None,
                        reachable=path is not None and path in reachable,
                        evidence_ref=f"{evidence_id}#result:{run_index}:{result_index}",
                    )
                )
    order = {"error": 0, "warning": 1, "note": 2, "none": 3}
    found.sort(key=lambda f: (order.get(f.level, 4), not f.reachable, f.path or "", f.line or 0, f.rule_id, f.id))
    return found[:MAX_IMPORTED], len(found)


def imported_errors(view: EvidenceView) -> dict[tuple[str, str], list[ImportedFinding]]:
    """Error-level imported findings on reachable code, grouped by (tool, rule id), groups sorted."""
    groups: dict[tuple[str, str], list[ImportedFinding]] = {}
    for finding in view.imported:
        if finding.level == "error" and finding.reachable:
            groups.setdefault((finding.tool, finding.rule_id), []).append(finding)
    return dict(sorted(groups.items()))
