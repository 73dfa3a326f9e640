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
# runtime_batch: an ingested batch's normalized records (structured-ingress: OTLP, structured, log intake),
#   payload ``{"adapter": ..., "signal": ..., "records": [...]}`` (docs/intake.md).
# sarif_report: an ingested SARIF 2.1.0 log (sarif-import), payload ``{"sarif": {...}}``.
EvidenceKind = Literal["static_bundle", "runtime_batch", "sarif_report"]


class EvidenceItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    evidenceId: str
    kind: EvidenceKind
    producerId: str
    contentDigest: str
    payloadJson: str = Field(
        description="The evidence itself as RFC 8785 canonical JSON text (for static_bundle: the Evidence Bundle), "
        "exactly as the membership row stores it."
    )

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

    def runtime_records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(evidenceId, record)`` for every record of every runtime batch, items in membership order and
        records in the order the batch holds them."""
        for item in self.items:
            if item.kind == "runtime_batch":
                for record in orjson.loads(item.payloadJson).get("records", []):
                    yield item.evidenceId, record

    def sarif_logs(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(evidenceId, SARIF log)`` for every sarif_report item, in membership order."""
        for item in self.items:
            if item.kind == "sarif_report":
                yield item.evidenceId, orjson.loads(item.payloadJson)["sarif"]


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
