"""The frozen evidence membership of an Evaluation: which evidence items it is computed from.

Items are content addressed: an item's ``evidenceId`` derives from its kind and content digest, so the
same evidence always has the same id, and the membership digest (``evidenceBundleDigest`` of the
Evaluation) depends only on which evidence is in it, never on order, run or time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from assay.backend.canonical import canonical_bytes, digest_json, sha256_hex
from assay.backend.scans.bundle import EvidenceBundle

# static_bundle: an Evidence Bundle (a fresh scan's or an attached qualified scan's).
# runtime_batch: an ingested batch (structured-ingress: OTLP, structured, log intake). A batch stored as
#   records: payload ``{"adapter": ..., "signal": ..., "records": [...]}``, its normalized records. A batch
#   stored as its content (OTLP traces): payload ``{"adapter", "batch", "contentDigest", "contentFormat",
#   "recordCount", "signal"}``, a reference to the immutable batch; its content is loaded, and checked
#   against the digest, when the membership is built for an evaluation (docs/intake.md).
# sarif_report: an ingested SARIF 2.1.0 log (sarif-import), payload ``{"sarif": {...}}``.
# runtime_probe: a recorded probe session of the runtime engine (docs/runtime.md), payload the recording.
# catalogue_pin: the MCP catalogue an earlier Evaluation of the system pinned, payload
#   ``{"pinnedBy": <that Evaluation's coreTruthDigest>, "catalogues": [...]}``; drift is measured against it.
# wizard_assessment: a wizard assessment frozen by a run (engines.wizard): payload ``{"framework", "pack",
#   "asOf", "answers", "data"}``, the answers and the attached data's figures as they were at run creation.
# risk_acceptance: the risk acceptances of the AI System a run froze at its creation (evaluation/acceptance.py):
#   payload ``{"active": [...], "expired": [...]}``, each entry ``{"fingerprint", "ruleId", "owner",
#   "justification", "expiresOn", "recordedBy"}`` (no acceptance id, no recording time).
EvidenceKind = Literal[
    "static_bundle",
    "runtime_batch",
    "sarif_report",
    "runtime_probe",
    "catalogue_pin",
    "wizard_assessment",
    "risk_acceptance",
]


class EvidenceItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    evidenceId: str
    kind: EvidenceKind
    producerId: str
    contentDigest: str
    payloadJson: str = Field(
        description="The evidence itself as RFC 8785 canonical JSON text (for static_bundle: the Evidence Bundle), "
        "or the reference to a batch stored as its content, exactly as the membership row stores it."
    )
    # The referenced batch's stored content, checked against contentDigest; never persisted or serialized.
    content: bytes | None = Field(default=None, exclude=True, repr=False)

    def ref(self) -> dict[str, str]:
        return {
            "evidenceId": self.evidenceId,
            "kind": self.kind,
            "producerId": self.producerId,
            "contentDigest": self.contentDigest,
        }


class EvidenceMembership(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    items: list[EvidenceItem]

    def digest(self) -> str:
        """Digest of the sorted (evidenceId, kind, contentDigest) triples."""
        return digest_json(sorted([i.evidenceId, i.kind, i.contentDigest] for i in self.items))

    def bundles(self, known: Mapping[str, EvidenceBundle] | None = None) -> list[tuple[EvidenceItem, EvidenceBundle]]:
        """Each static bundle item with its bundle as models: from ``known`` (by evidence id) when given
        there, such as a fresh scan's own result, else validated from the item's JSON."""
        known = known or {}
        return [
            (i, known.get(i.evidenceId) or EvidenceBundle.model_validate_json(i.payloadJson))
            for i in self.items
            if i.kind == "static_bundle"
        ]

    def runtime_batches(self) -> Iterator[tuple[str, list[dict[str, Any]] | bytes]]:
        """``(evidenceId, batch)`` for every runtime batch in membership order: its normalized records, or
        the stored content (an OTLP ExportTraceServiceRequest) of a batch kept as itself. ValueError when
        such content was not loaded (a membership read back from storage holds references only)."""
        for item in self.items:
            if item.kind != "runtime_batch":
                continue
            payload = orjson.loads(item.payloadJson)
            if "contentFormat" not in payload:
                yield item.evidenceId, payload.get("records", [])
            elif item.content is None:
                raise ValueError(f"the content of batch {payload['batch']} is not loaded")
            else:
                yield item.evidenceId, item.content

    def of_kind(self, kind: EvidenceKind) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(evidenceId, payload)`` for every item of ``kind``, in membership order."""
        for item in self.items:
            if item.kind == kind:
                yield item.evidenceId, orjson.loads(item.payloadJson)

    def wizard_assessments(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(evidenceId, frozen assessment)`` for every wizard_assessment item, in membership order."""
        for item in self.items:
            if item.kind == "wizard_assessment":
                yield item.evidenceId, orjson.loads(item.payloadJson)

    def runtime_evidence_ids(self) -> list[str]:
        return [item.evidenceId for item in self.items if item.kind == "runtime_batch"]

    def sarif_logs(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(evidenceId, SARIF log)`` for every sarif_report item, in membership order."""
        for item in self.items:
            if item.kind == "sarif_report":
                yield item.evidenceId, orjson.loads(item.payloadJson)["sarif"]


def wizard_item(payload: dict[str, Any]) -> EvidenceItem:
    """An evidence item for a frozen assessment, identified by the digest of its canonical payload (which
    holds no assessment id and no time but the evaluation date, so the same answers give the same id)."""
    canonical = canonical_bytes(payload)
    digest = f"sha256:{sha256_hex(canonical)}"
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'wizard_assessment:{digest}'.encode())[:16]}",
        kind="wizard_assessment",
        producerId="assay-wizard",
        contentDigest=digest,
        payloadJson=canonical.decode("utf-8"),
    )


def ingested_item(
    kind: Literal["runtime_batch", "sarif_report"], producer_id: str, payload: dict[str, Any]
) -> EvidenceItem:
    """An evidence item for an ingested batch, identified by the digest of its canonical payload (which
    holds no receipt id, binder id or time, so the same evidence always has the same id)."""
    return ingested_item_of_canonical(kind, producer_id, canonical_bytes(payload))


def ingested_item_of_canonical(
    kind: Literal["runtime_batch", "sarif_report"], producer_id: str, canonical: bytes
) -> EvidenceItem:
    """:func:`ingested_item` of a payload already written as RFC 8785 bytes (an attached batch's, built
    from its stored record texts without parsing them)."""
    digest = f"sha256:{sha256_hex(canonical)}"
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'{kind}:{digest}'.encode())[:16]}",
        kind=kind,
        producerId=producer_id,
        contentDigest=digest,
        payloadJson=canonical.decode("utf-8"),
    )


def batch_reference_item(
    producer_id: str,
    *,
    batch_id: str,
    adapter: str,
    signal: str,
    content_format: str,
    content_digest: str,
    record_count: int,
    content: bytes,
) -> EvidenceItem:
    """An evidence item referring to an immutable batch stored as its content, with that content (already
    checked against ``content_digest``). Identified by the content digest alone, so the same content
    always has the same id."""
    payload = {
        "adapter": adapter,
        "batch": batch_id,
        "contentDigest": content_digest,
        "contentFormat": content_format,
        "recordCount": record_count,
        "signal": signal,
    }
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'runtime_batch:{content_digest}'.encode())[:16]}",
        kind="runtime_batch",
        producerId=producer_id,
        contentDigest=content_digest,
        payloadJson=canonical_bytes(payload).decode("utf-8"),
        content=content,
    )


def static_bundle_item(bundle: dict[str, Any], producer_id: str = "assay-static") -> EvidenceItem:
    """An evidence item for an Evidence Bundle (as JSON values), identified by its contentHash."""
    return canonical_bundle_item(canonical_bytes(bundle).decode("utf-8"), str(bundle["contentHash"]), producer_id)


def canonical_bundle_item(canonical: str, content_hash: str, producer_id: str = "assay-static") -> EvidenceItem:
    """An evidence item for an Evidence Bundle already written as RFC 8785 text (a stored scan's, a fresh
    scan's own encoding), with the ``content_hash`` that text carries."""
    return EvidenceItem(
        evidenceId=f"ev-{sha256_hex(f'static_bundle:{content_hash}'.encode())[:16]}",
        kind="static_bundle",
        producerId=producer_id,
        contentDigest=content_hash,
        payloadJson=canonical,
    )


def make_membership(items: list[EvidenceItem]) -> EvidenceMembership:
    """A membership with duplicates (same evidenceId) removed and items sorted by id."""
    unique = {i.evidenceId: i for i in items}
    return EvidenceMembership(items=[unique[k] for k in sorted(unique)])
