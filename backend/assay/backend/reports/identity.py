"""What was assessed, and when: the identity every report artifact carries (docs/reports.md).

Built from the persisted Evaluation (its id and creation time), its AI System, the source identity of
each static evidence bundle in its frozen membership (repository, commit, branch, dirty flag and
workspace digest) and the key that signs its passport. Nothing here reads the clock: the time is the
Evaluation's own, so every artifact of one Evaluation states the same identity, byte for byte.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from assay.backend.evaluation.membership import EvidenceMembership

DirtyState = bool | str  # True, False or "unknown", as the bundle's sourceIdentity says


def evaluation_time(created_at: datetime) -> str:
    """The Evaluation's time as RFC 3339 UTC to the second (``2026-11-24T15:43:29Z``)."""
    moment = created_at if created_at.tzinfo is not None else created_at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_SOURCE_KEY = '"sourceIdentity":{'


def _source_identity(bundle_json: str) -> dict[str, Any]:
    """The bundle's ``sourceIdentity`` without parsing the whole bundle (megabytes for a large tree).

    The key can occur only once unescaped: it is a top-level member, and inside a JSON string its quotes
    would be escaped. A bundle written some other way is parsed whole."""
    at = bundle_json.find(_SOURCE_KEY)
    if at >= 0:
        value, _ = json.JSONDecoder().raw_decode(bundle_json, at + len(_SOURCE_KEY) - 1)
    else:
        value = json.loads(bundle_json).get("sourceIdentity")
    return value if isinstance(value, dict) else {}


def sources_of(membership: EvidenceMembership) -> list[dict[str, Any]]:
    """The source identity of each static bundle, by evidence id."""
    sources = []
    for item in membership.items:
        if item.kind != "static_bundle":
            continue
        source = _source_identity(item.payloadJson)
        sources.append(
            {
                "evidenceId": item.evidenceId,
                "repository": source.get("gitRemote"),
                "commit": source.get("gitCommit"),
                "branch": source.get("branch"),
                "dirty": source.get("dirty", "unknown"),
                "workspaceDigest": source.get("workspaceDigest"),
            }
        )
    return sources


def combined_dirty(sources: list[dict[str, Any]]) -> DirtyState:
    """True when any assessed tree had uncommitted changes, "unknown" when any cannot tell, else False."""
    states = [s["dirty"] for s in sources]
    if any(state is True for state in states):
        return True
    if not states or any(state is not False for state in states):
        return "unknown"
    return False


def build_identity(
    *,
    evaluation_id: str,
    ai_system_id: str | None,
    system_name: str | None,
    evaluated_at: str | None,
    methodology_version: str | None,
    sources: list[dict[str, Any]],
    signing_key_id: str | None,
    links: dict[str, str | None] | None = None,
) -> dict[str, Any]:
    """The identity object. The flat source members are the first source's (one scan per Evaluation is
    the common case); ``sources`` lists every one, and ``dirty`` combines them all."""
    first = sources[0] if sources else {}
    return {
        "evaluationId": evaluation_id,
        "aiSystemId": ai_system_id,
        "systemName": system_name,
        "evaluatedAt": evaluated_at,
        "methodologyVersion": methodology_version,
        "repository": first.get("repository"),
        "commit": first.get("commit"),
        "branch": first.get("branch"),
        "dirty": combined_dirty(sources),
        "workspaceDigest": first.get("workspaceDigest"),
        "sources": sources,
        "signingKeyId": signing_key_id,
        "links": dict(links or {}),
    }


def dirty_words(dirty: DirtyState) -> str:
    """The dirty state in words for people."""
    if dirty is True:
        return "DIRTY: uncommitted changes were assessed, not the commit alone"
    if dirty is False:
        return "clean: the commit as committed"
    return "unknown (no git metadata)"
