"""Valid Evidence Bundles built from the bundle models, for submission tests."""

from __future__ import annotations

import copy
from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.scans.bundle import (
    Action,
    AnalysedFile,
    Coverage,
    EvidenceBundle,
    FileSet,
    Location,
    Producer,
    RulePackRef,
    SourceIdentity,
    Tool,
    content_hash,
)


def make_bundle(
    *, commit: str | None = "0123456789abcdef0123456789abcdef01234567", branch: str | None = "main"
) -> dict[str, Any]:
    """A small, valid bundle as a JSON dict, with a correct contentHash."""
    identity = SourceIdentity(
        gitRemote="https://example.com/acme/ops-agent.git",
        gitCommit=commit,
        branch=branch,
        dirty=False,
        workspaceDigest=digest_json(["workspace", commit]),
        pathSetDigest=digest_json(["agent.py"]),
    )
    files = FileSet(count=1, digest=digest_json([["agent.py", digest_json("agent")]]))
    location = Location(path="agent.py", line=12, column=5)
    bundle = EvidenceBundle(
        producer=Producer(
            engineVersion="1.0.0", rulePack=RulePackRef(id="assay-core", version="1.0.0", digest=digest_json("rules"))
        ),
        sourceIdentity=identity,
        coverage=Coverage(
            discovered=files,
            analysed=files,
            skipped=FileSet(count=0, digest=digest_json([])),
            files=[AnalysedFile(path="agent.py", language="python", digest=digest_json("agent"), lines=40)],
            skippedFiles=[],
            languages={"python": 1},
            parseErrors=0,
            complete=True,
        ),
        models=[],
        tools=[
            Tool(id="tool-1", name="run_shell", framework="openai-agents", ruleId="py.tool.agents", location=location)
        ],
        actions=[
            Action(
                id="act-1",
                actionClass="shell.exec",
                impact="critical",
                ruleId="py.sink.subprocess",
                target="subprocess.run",
                location=Location(path="agent.py", line=20, column=9),
            )
        ],
        gates=[],
        taintFlows=[],
        declaration=None,
        frontier=[],
        findings=[],
        limitations=["Static analysis only: nothing was executed."],
        contentHash="sha256:" + "0" * 64,
    )
    body = bundle.to_json_dict()
    body["contentHash"] = content_hash(body)
    return body


def rehash(bundle: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``bundle`` with its contentHash recomputed (after a test edited it)."""
    body = copy.deepcopy(bundle)
    body["contentHash"] = content_hash(body)
    return body


def make_submission(ai_system_id: str, bundle: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
    """A valid QualifiedScanSubmission for ``ai_system_id``."""
    bundle = bundle if bundle is not None else make_bundle()
    body: dict[str, Any] = {
        "aiSystemId": ai_system_id,
        "producerId": "ci-cd-scanner",
        "origin": "ci",
        "sourceIdentity": copy.deepcopy(bundle["sourceIdentity"]),
        "bundle": bundle,
        "commitSha": bundle["sourceIdentity"]["gitCommit"],
        "branch": bundle["sourceIdentity"]["branch"],
    }
    body.update(overrides)
    return body
