"""Name patterns of the rule pack, compiled once and shared by the language analyzers."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

from assay.backend.engines.static.rulepack import Rule


class Patterns:
    """A rule's name patterns: exact names in a set, ``*`` wildcards (any characters) in one regex."""

    def __init__(self, patterns: Iterable[str]) -> None:
        items = list(patterns)
        self.exact = frozenset(p for p in items if "*" not in p)
        wild = [fnmatch.translate(p) for p in items if "*" in p]
        self.regex = re.compile("|".join(wild)) if wild else None

    def matches(self, name: str) -> bool:
        return name in self.exact or (self.regex is not None and self.regex.match(name) is not None)


def first_match(rules: Sequence[tuple[Rule, Patterns]], name: str) -> Rule | None:
    """The first rule whose patterns match ``name``, in rule-pack order."""
    for rule, patterns in rules:
        if patterns.matches(name):
            return rule
    return None
