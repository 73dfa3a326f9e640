"""SARIF 2.1.0 logs for code scanning (GitHub and any other SARIF consumer).

Two views: :func:`check_sarif` turns an ``assay check`` result into one result per reason of the Evaluation
(BLOCK is ``error``, REVIEW ``warning``), with the disposition, ids and digests in the run's properties and
the verification items as the fix each result asks for (and every item, verbatim, in the run's properties); :func:`findings_sarif` turns an Evidence Bundle's
findings into results (``assay scan --format sarif``), which decide nothing.

Paths: bundle locations are relative to the scanned folder; ``path_prefix`` (that folder relative to where
the log is used, normally the repository root) is put in front, under ``uriBaseId`` ``%SRCROOT%``.
``partialFingerprints`` carries each result's line-free fingerprint, so code scanning keeps one alert for
one problem across runs and moved lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from assay.backend.reports.check_result import fingerprints
from assay.backend.reports.rule_help import RuleHelp, rule_help

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "Assay"
FINGERPRINT_KEY = "assay/v1"
_LEVEL = {"BLOCK": "error", "REVIEW": "warning", "ALLOW": "note"}
_SEVERITY_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
# GitHub reads a 0.0-10.0 "security-severity" to rank security alerts.
_SECURITY_SEVERITY = {"BLOCK": "9.0", "REVIEW": "5.0", "critical": "9.5", "high": "8.0", "medium": "5.0"}


def _score(severity: str) -> float:
    return float(_SECURITY_SEVERITY.get(severity, "2.0"))


def _uri(prefix: str, path: str) -> str:
    joined = f"{prefix.strip('/')}/{path}" if prefix.strip("/") not in ("", ".") else path
    return quote(joined.replace("\\", "/"), safe="/")


def _physical(prefix: str, loc: Mapping[str, Any]) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(prefix, str(loc["path"])), "uriBaseId": "%SRCROOT%"}}
    line = loc.get("line")
    if isinstance(line, int) and line > 0:
        region: dict[str, Any] = {"startLine": line}
        if isinstance(loc.get("column"), int) and loc["column"] > 0:
            region["startColumn"] = loc["column"]
        end = loc.get("endLine")
        if isinstance(end, int) and end >= line:
            region["endLine"] = end
        physical["region"] = region
    return {"physicalLocation": physical}


def _rule(help: RuleHelp, properties: Mapping[str, Any]) -> dict[str, Any]:
    text = f"{help.short} {help.help} Reference: {help.document}."
    return {
        "id": help.id,
        "name": help.name,
        "shortDescription": {"text": help.short},
        "fullDescription": {"text": f"{help.short} {help.help}"},
        "help": {"text": text, "markdown": f"**{help.short}**\n\n{help.help}\n\nReference: `{help.document}`."},
        "properties": dict(properties),
    }


def _log(driver: dict[str, Any], results: list[dict[str, Any]], properties: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
                "results": results,
                "properties": dict(properties),
            }
        ],
    }


def _driver(version: str, rule_ids: Iterable[str], rule_properties: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    ordered = sorted(set(rule_ids))
    return {
        "name": TOOL_NAME,
        "semanticVersion": version,
        "version": version,
        "rules": [_rule(rule_help(r), rule_properties.get(r, {})) for r in ordered],
    }


def _fallback_location(prefix: str) -> list[dict[str, Any]]:
    # Code scanning shows a result only at a location; a reason about the whole tree points at its root file.
    return [_physical(prefix, {"path": "assay.toml", "line": 1})]


def check_sarif(result: Mapping[str, Any], *, path_prefix: str = "") -> dict[str, Any]:
    """The SARIF log of an ``assay check`` result."""
    items = {str(item.get("id")): item for item in result.get("verificationItems") or []}
    rule_ids = [str(r["ruleId"]) for r in result.get("reasons") or []]
    results: list[dict[str, Any]] = []
    for index, reason in enumerate(result.get("reasons") or []):
        disposition = str(reason.get("disposition"))
        needed = [str(items[i]["verificationNeeded"]) for i in reason.get("verificationItemIds") or [] if i in items]
        text = str(reason.get("message"))
        if needed:
            text += " Verification needed: " + " ".join(needed)
        locations = [_physical(path_prefix, loc) for loc in reason.get("locations") or []]
        entry: dict[str, Any] = {
            "ruleId": reason["ruleId"],
            "ruleIndex": sorted(set(rule_ids)).index(str(reason["ruleId"])),
            "level": _LEVEL.get(disposition, "warning"),
            "message": {"text": text},
            "locations": locations[:1] or _fallback_location(path_prefix),
            "partialFingerprints": {FINGERPRINT_KEY: str(reason.get("fingerprint") or index)},
            "properties": {
                "disposition": disposition,
                "evidenceRefs": list(reason.get("evidenceRefs") or []),
                "verificationItemIds": list(reason.get("verificationItemIds") or []),
            },
        }
        if len(locations) > 1:
            entry["relatedLocations"] = [{"id": n, **loc} for n, loc in enumerate(locations[1:], start=1)]
        if "baselineState" in reason:
            entry["baselineState"] = reason["baselineState"]
        results.append(entry)
    rule_properties = {
        rid: {
            "tags": ["security", "ai-agent", "assay-disposition"],
            "security-severity": _SECURITY_SEVERITY["BLOCK" if rid.startswith("BLOCK") else "REVIEW"],
        }
        for rid in rule_ids
    }
    properties = {
        "disposition": result.get("disposition"),
        "evaluationId": result.get("evaluationId"),
        "runId": result.get("runId"),
        "aiSystemId": result.get("aiSystemId"),
        "methodologyVersion": result.get("methodologyVersion"),
        "digests": dict(result.get("digests") or {}),
        # Every verification item, verbatim: a result's message carries those its reason rests on, and an
        # item no reason points at would otherwise be missing from the log.
        "verificationItemCount": len(result.get("verificationItems") or []),
        "verificationItems": [dict(item) for item in result.get("verificationItems") or []],
        "limitations": list(result.get("limitations") or []),
    }
    excluded = (result.get("target") or {}).get("excluded")
    if excluded:
        properties["excluded"] = dict(excluded)
    if "gate" in result:
        properties["gate"] = dict(result["gate"])
    version = str((result.get("tool") or {}).get("version") or "0")
    return _log(_driver(version, rule_ids, rule_properties), results, properties)


def findings_sarif(bundle: Mapping[str, Any], *, tool_version: str, path_prefix: str = "") -> dict[str, Any]:
    """The SARIF log of an Evidence Bundle's findings (a scan: no disposition)."""
    findings = list(bundle.get("findings") or [])
    rule_ids = sorted({str(f["ruleId"]) for f in findings})
    prints = fingerprints([(str(f["ruleId"]), str(f.get("message"))) for f in findings])
    results: list[dict[str, Any]] = []
    for finding, fp in zip(findings, prints, strict=True):
        locations = [_physical(path_prefix, loc) for loc in finding.get("locations") or [] if loc.get("path")]
        entry: dict[str, Any] = {
            "ruleId": finding["ruleId"],
            "ruleIndex": rule_ids.index(str(finding["ruleId"])),
            "level": _SEVERITY_LEVEL.get(str(finding.get("severity")), "warning"),
            "message": {"text": str(finding.get("message"))},
            "locations": locations[:1] or _fallback_location(path_prefix),
            "partialFingerprints": {FINGERPRINT_KEY: fp},
            "properties": {"severity": finding.get("severity"), "category": finding.get("category")},
        }
        if len(locations) > 1:
            entry["relatedLocations"] = [{"id": n, **loc} for n, loc in enumerate(locations[1:], start=1)]
        results.append(entry)
    severities: dict[str, str] = {}
    for finding in findings:
        current = severities.get(str(finding["ruleId"]))
        severity = str(finding.get("severity"))
        if current is None or _score(severity) > _score(current):
            severities[str(finding["ruleId"])] = severity
    rule_properties = {
        rid: {"tags": ["security", "ai-agent"], "security-severity": _SECURITY_SEVERITY.get(sev, "2.0")}
        for rid, sev in severities.items()
    }
    properties = {
        "contentHash": bundle.get("contentHash"),
        "limitations": list(bundle.get("limitations") or []),
    }
    return _log(_driver(tool_version, rule_ids, rule_properties), results, properties)
