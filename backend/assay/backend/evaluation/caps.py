"""What one Evaluation holds at most: the documented caps (docs/methodology.md, "Caps").

An Evaluation grows with the evidence: a tree of tens of thousands of tools made payloads of hundreds of
megabytes, mostly lists of every action and messages naming every tool that reaches a call. The
disposition, the reasons and every count (``byClass``, the authority summary) are computed on all of the
evidence first; only then are the lists below cut to their caps, keeping their first entries in their
usual order, and each cut is stated as a limitation with the numbers, so nothing is dropped silently.
Evaluations under the caps are unchanged, byte for byte.
"""

from __future__ import annotations

from typing import Any

# Tool names written into one message (a reason, a verification item): the first ones, then "and N more".
MAX_NAMES_IN_TEXT = 10
# (path in the payload, what the list holds, cap).
LIST_CAPS: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (("reasons",), "reasons", 1000),
    (("verificationItems",), "verification items", 1000),
    (("fourQuestions", "proofBoundary", "nextEvidence"), "next-evidence entries", 1000),
    (("fourQuestions", "proofBoundary", "unresolved"), "unresolved proof-boundary entries", 1000),
    (("fourQuestions", "reach", "codeCapable", "actions"), "code-capable actions", 1000),
    (("fourQuestions", "reach", "codeCapable", "tools"), "code-capable tools", 1000),
    (("fourQuestions", "reach", "codeCapable", "models"), "model uses", 1000),
    (("fourQuestions", "reach", "unresolved", "items"), "unresolved reach items", 1000),
    (("fourQuestions", "authority", "actions"), "actions in the authority table", 1000),
)


def bounded_names(names: list[str], template: str = "`{}`", limit: int = MAX_NAMES_IN_TEXT) -> str:
    """``names`` joined for a message: at most ``limit`` of them, then how many more there are."""
    shown = ", ".join(template.format(n) for n in names[:limit])
    more = len(names) - limit
    return f"{shown} and {more} more" if more > 0 else shown


def apply_caps(data: dict[str, Any]) -> list[str]:
    """Cut the lists of ``data`` to their caps in place; the limitations that say what was left out."""
    limitations: list[str] = []
    for path, what, cap in LIST_CAPS:
        parent: Any = data
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict):
            continue
        items = parent.get(path[-1])
        if not isinstance(items, list) or len(items) <= cap:
            continue
        parent[path[-1]] = items[:cap]
        limitations.append(
            f"{len(items) - cap} of {len(items)} {what} are not listed ({'.'.join(path)}): an Evaluation holds the "
            f"first {cap}. The disposition, the reasons and the counts were computed on all of them."
        )
    return limitations
