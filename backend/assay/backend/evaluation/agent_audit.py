"""The agent audit (contract 2.5): ordered sections, narrative, authority summary and verification
items, projected verbatim from the persisted Evaluation. Nothing is recomputed or invented: the
verification items are the payload's own, and ``verificationNeeded`` is the only evidence request.

The audit is what coding agents read, so by default it is bounded: verification items come in pages of
``PAGE_SIZE`` (most severe first, as the Evaluation orders them) and every other list keeps its first
``PAGE_SIZE`` entries; ``omitted`` names each cut list and how many entries it left out, and ``paging``
says how to read the rest (``?page=N``, or ``?detail=full`` for everything). No text is ever cut: a
verification item is always whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from assay.backend.evaluation.methodology import EvaluationPayload

PAGE_SIZE = 20
AuditDetail = Literal["bounded", "full"]

ITEM_MEMBERS = (
    "whatHaiecFound",
    "whatItEstablishes",
    "whatHaiecDidNotEstablish",
    "whyItMatters",
    "verificationNeeded",
    "affectedQuestionIds",
    "affectedPathIds",
    "evidenceRefs",
    "relationIds",
    "boundary",
)
# Structured members beside the prose (docs/reports.md): an agent reads where, which tool and how severe
# without parsing sentences. Evaluations persisted before they existed have them as null.
STRUCTURED_MEMBERS = ("kind", "severity", "location", "tool", "tools", "toolCount", "actionClass")


def project_item(item: dict[str, Any]) -> dict[str, Any]:
    """One verification item as every artifact shows it: contract members verbatim, structured members beside."""
    return {
        "id": item["id"],
        **{m: item.get(m) for m in STRUCTURED_MEMBERS},
        **{m: item[m] for m in ITEM_MEMBERS},
    }


def _narrative(data: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    fq = data["fourQuestions"]
    established: list[str] = []
    unestablished: list[str] = []
    not_assessed: list[str] = []
    for entry in fq["authority"]["actions"]:
        label = (
            f"{entry['actionClass']} via {entry['target']} ({entry['location']['path']}:{entry['location']['line']})"
        )
        for plane, status in entry["planes"].items():
            line = f"{plane} {status}: {label}"
            if status == "ESTABLISHED":
                established.append(line)
            elif status in ("PARTIAL", "MISSING"):
                unestablished.append(line)
            else:
                not_assessed.append(line)
    if fq["observed"]["status"] != "ESTABLISHED":
        not_assessed.append(f"observed: {fq['observed']['status']}")
    not_assessed.append(f"scenario snapshot: {data['evaluationScenarioSnapshot']['status']}")
    section = fq["authority"].get("jurisdiction")
    if section is not None and section["status"] != "ASSESSED":
        not_assessed.append(f"{section['framework']} controls: NOT_ASSESSED")
    for control in (section or {}).get("controls", []):
        line = f"{section['framework']} {control['id']} {control['status']}: {control['title']} ({control['citation']})"
        if control["status"] == "ESTABLISHED":
            established.append(line)
        elif control["status"] == "MISSING":
            unestablished.append(line)
        elif control["status"] == "EVIDENCE_NEEDED":
            not_assessed.append(line)
    return established, unestablished, not_assessed


def _jurisdiction_section(data: dict[str, Any], cap: Any) -> list[dict[str, Any]]:
    """The jurisdiction's controls with their statuses and evidence refs (none without a jurisdiction)."""
    section = data["fourQuestions"]["authority"].get("jurisdiction")
    if section is None:
        return []
    controls = [
        {
            k: c.get(k)
            for k in ("id", "status", "title", "citation", "appliesFrom", "inForce", "evidenceRefs", "closedBy")
        }
        for c in section["controls"]
    ]
    return [
        {
            "id": "jurisdiction",
            "title": "Jurisdiction controls",
            "framework": section["framework"],
            "status": section["status"],
            "pack": section.get("pack"),
            "counts": section.get("counts", {}),
            "controls": cap(controls, "sections.jurisdiction.controls"),
        }
    ]


def _rest(omitted: dict[str, int], page: int, pages: int) -> str | None:
    """Where the entries this answer left out are, in words an agent can act on."""
    if not omitted:
        return None
    hint = f"Verification items are paged: this is page {page} of {pages}"
    hint += f"; ask ?page={page + 1} for the next." if page < pages else "."
    return f"{hint} Every list whole: ?detail=full."


def _accepted_section(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The risk acceptances the Evaluation applied or found expired (docs/methodology.md, "Risk acceptances"),
    only for an Evaluation whose run froze some; never cut, as the passport binds every one."""
    section = data.get("riskAcceptances")
    if section is None:
        return []
    return [
        {
            "id": "acceptedRisks",
            "title": "Accepted risks",
            "accepted": section["accepted"],
            "expired": section["expired"],
            "notPresent": section["notPresent"],
        }
    ]


def _runtime_section(data: dict[str, Any], cap: Callable[[list[Any], str], list[Any]]) -> list[dict[str, Any]]:
    """The runtime engine's section, only for an Evaluation with a probe recording: per target what the
    server serves, what the rules found, and each catalogue change since the pinned catalogue."""
    runtime = data.get("runtime")
    if runtime is None:
        return []
    targets = []
    for index, recording in enumerate(runtime["recordings"]):
        path = f"sections.runtime.targets[{index}]"
        drift = recording["drift"]
        targets.append(
            {
                "target": recording["target"],
                "server": {k: recording["server"].get(k) for k in ("name", "version", "protocolVersion")},
                "suites": recording["suites"],
                "counts": recording["counts"],
                "catalogueDigest": recording["catalogueDigest"],
                "recording": recording["evidenceId"],
                "poisoning": cap(recording["poisoning"], f"{path}.poisoning"),
                "annotations": cap(recording["annotations"], f"{path}.annotations"),
                "drift": None
                if drift is None
                else {
                    "pinnedBy": drift["pinnedBy"],
                    "changed": cap(drift["changed"], f"{path}.drift.changed"),
                    "added": cap(drift["added"], f"{path}.drift.added"),
                    "removed": cap(drift["removed"], f"{path}.drift.removed"),
                },
                "observed": recording["observed"],
            }
        )
    return [{"id": "runtime", "title": "Runtime probe", "probePack": runtime["probePack"], "targets": targets}]


def build_agent_audit(
    evaluation_id: str,
    payload: EvaluationPayload,
    *,
    detail: AuditDetail = "bounded",
    page: int = 1,
    identity: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """AgentAuditResponse. Raises ValueError for an unknown ``detail`` or a page out of range.
    ``detail="full"`` holds every item on its one page, so ``page`` is then not read."""
    if detail not in ("bounded", "full"):
        raise ValueError(f"detail must be 'bounded' or 'full', not {detail!r}")
    data = payload.data
    fq = data["fourQuestions"]
    authority = fq["authority"]
    every = [project_item(i) for i in data["verificationItems"]]
    pages = max(1, -(-len(every) // PAGE_SIZE))
    if detail == "bounded" and not 1 <= page <= pages:
        raise ValueError(f"page must be between 1 and {pages}")
    omitted: dict[str, int] = {}

    def cap(values: list[Any], path: str) -> list[Any]:
        if detail == "full" or len(values) <= PAGE_SIZE:
            return list(values)
        omitted[path] = len(values) - PAGE_SIZE
        return list(values[:PAGE_SIZE])

    if detail == "full":
        items = every
    else:
        items = every[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        if len(items) < len(every):
            omitted["verificationItems"] = len(every) - len(items)
    established, unestablished, not_assessed = _narrative(data)
    audit: dict[str, Any] = {
        "disposition": data["disposition"],
        "methodologyVersion": data["methodologyVersion"],
        "identity": identity,
        "detail": detail,
        "sections": [
            {
                "id": "disposition",
                "title": "Disposition",
                "disposition": data["disposition"],
                "reasons": cap(data["reasons"], "sections.disposition.reasons"),
            },
            {
                "id": "reach",
                "title": "Reach",
                "declared": fq["reach"]["declared"]["status"],
                "codeCapable": fq["reach"]["codeCapable"]["status"],
                "unresolved": fq["reach"]["unresolved"]["status"],
                "differences": cap(fq["reach"]["differences"], "sections.reach.differences"),
            },
            {"id": "authority", "title": "Authority", "summary": authority["summary"]},
            {"id": "observed", "title": "Observed", "status": fq["observed"]["status"]},
            {
                "id": "proofBoundary",
                "title": "Proof boundary",
                "unresolved": cap(fq["proofBoundary"]["unresolved"], "sections.proofBoundary.unresolved"),
            },
            {"id": "verification", "title": "Verification needed", "count": len(every)},
            *_accepted_section(data),
            *_runtime_section(data, cap),
            *_jurisdiction_section(data, cap),
        ],
        "narrative": {
            "established": cap(established, "narrative.established"),
            "unestablished": cap(unestablished, "narrative.unestablished"),
            "notAssessed": cap(not_assessed, "narrative.notAssessed"),
            "evidenceGaps": [i["verificationNeeded"] for i in items],
            "limitations": cap(data["limitations"], "narrative.limitations"),
        },
        "authoritySummary": authority["summary"],
        "verificationItems": items,
        "paging": {
            "page": page if detail == "bounded" else 1,
            "pageSize": PAGE_SIZE if detail == "bounded" else len(every),
            "pages": pages if detail == "bounded" else 1,
            "totalItems": len(every),
            "nextPage": page + 1 if detail == "bounded" and page < pages else None,
        },
        "omitted": dict(sorted(omitted.items())),
        "rest": _rest(omitted, page, pages),
    }
    return {"evaluationId": evaluation_id, "agentAudit": audit}
