"""Checks a qualified scan submission must pass before it is stored (contract 2.7, 4.4).

Pure and synchronous (no I/O), so the route runs it in a worker thread: schema validation of a large
bundle takes real CPU time. Every failure is a 400 INVALID_REQUEST naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay.backend.canonical import canonical_bytes, digest_bytes
from assay.backend.errors import ApiError
from assay.backend.scans.bundle import EvidenceBundle, content_hash
from assay.backend.scans.bundle_schema import bundle_json_schema
from assay.backend.schemas import QualifiedScanSubmission
from assay.backend.web.http_io import describe_validation_error, validate_model

if TYPE_CHECKING:
    import jsonschema

# Member names that carry source text. Compared after lowercasing and dropping '_' and '-'. A member
# with one of these names holding a string (or strings) is raw source or a snippet, which the service
# never accepts; objects under such names (a taint flow's ``source`` location) are fine.
RAW_SOURCE_NAMES = frozenset(
    {
        "source",
        "sourcecode",
        "sourcetext",
        "rawsource",
        "code",
        "codesnippet",
        "snippet",
        "snippets",
        "content",
        "contents",
        "filecontent",
        "filecontents",
    }
)


@dataclass(frozen=True, slots=True)
class AcceptedSubmission:
    """A submission that passed every check, with the stored form of its bundle."""

    submission: QualifiedScanSubmission
    bundle: EvidenceBundle
    bundle_json: str
    bundle_digest: str


def _carries_text(value: Any) -> bool:
    if isinstance(value, str):
        return value != ""
    if isinstance(value, list):
        return any(_carries_text(item) for item in value)
    return False


def _walk(value: Any, path: str) -> Iterator[tuple[str, str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from _walk(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def find_raw_source(body: dict[str, Any]) -> str | None:
    """The path of the first member that carries source text, or None."""
    for parent, key, value in _walk(body, ""):
        normalised = key.lower().replace("_", "").replace("-", "")
        if normalised in RAW_SOURCE_NAMES and _carries_text(value):
            return f"{parent}.{key}" if parent else key
    return None


@cache
def _bundle_validator() -> jsonschema.Draft202012Validator:
    # Imported on first use: jsonschema's import is costly (it compiles format grammars), and only scan
    # submissions need it.
    import jsonschema

    schema = bundle_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _invalid(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


def _schema_error_message(error: jsonschema.ValidationError) -> str:
    where = "bundle" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    # ``error.message`` can quote the offending value; name the rule instead so no input is echoed.
    return f"The bundle does not match Evidence Bundle v1.0.0 at {where}: fails '{error.validator}'."


def check_submission(body: dict[str, Any]) -> AcceptedSubmission:
    """Validate a submission fully; raise 400 INVALID_REQUEST on the first problem found."""
    raw = find_raw_source(body)
    if raw is not None:
        raise _invalid(f"Raw source files or snippets are not accepted (member {raw}).")
    submission = validate_model(QualifiedScanSubmission, body)
    bundle_dict = submission.bundle
    import jsonschema  # on first use, as in _bundle_validator: its import is costly

    error = jsonschema.exceptions.best_match(_bundle_validator().iter_errors(bundle_dict))
    if error is not None:
        raise _invalid(_schema_error_message(error))
    try:
        bundle = EvidenceBundle.model_validate(bundle_dict)
    except ValidationError as exc:
        raise _invalid(f"The bundle is not a valid Evidence Bundle: {describe_validation_error(exc)}.") from exc
    try:
        recomputed = content_hash(bundle_dict)
        stored = canonical_bytes(bundle_dict)
    except ValueError as exc:  # rfc8785 refuses numbers outside the interoperable range
        raise _invalid("The bundle cannot be canonicalised: it holds a number outside the RFC 8785 range.") from exc
    if recomputed != bundle.contentHash:
        raise _invalid("The bundle's contentHash does not match its content.")
    if bundle.producer.id != submission.producerId:
        raise _invalid("producerId does not match the bundle's producer.id.")
    if submission.sourceIdentity.model_dump() != bundle.sourceIdentity.model_dump():
        raise _invalid("sourceIdentity does not match the bundle's sourceIdentity.")
    identity = bundle.sourceIdentity
    commit, claimed = identity.gitCommit, submission.commitSha
    if commit is not None and claimed is not None and not commit.lower().startswith(claimed.lower()):
        raise _invalid("commitSha does not match the bundle's sourceIdentity.gitCommit.")
    if submission.branch is not None and identity.branch is not None and submission.branch != identity.branch:
        raise _invalid("branch does not match the bundle's sourceIdentity.branch.")
    return AcceptedSubmission(
        submission=submission,
        bundle=bundle,
        bundle_json=stored.decode("utf-8"),
        bundle_digest=digest_bytes(stored),
    )
