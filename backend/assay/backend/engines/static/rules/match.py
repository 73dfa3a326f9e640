"""Name patterns of the rule pack, compiled once and shared by the language analyzers."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

from assay.backend.engines.static.rules.pack import Rule


class Patterns:
    """A rule's name patterns: exact names in a set, ``*`` wildcards (any characters) in one regex."""

    def __init__(self, patterns: Iterable[str]) -> None:
        items = list(patterns)
        self.exact = frozenset(p for p in items if "*" not in p)
        wild = [fnmatch.translate(p) for p in items if "*" in p]
        self.regex = re.compile("|".join(wild)) if wild else None

    def matches(self, name: str) -> bool:
        return name in self.exact or (self.regex is not None and self.regex.match(name) is not None)

    @classmethod
    def union(cls, many: Iterable[Patterns]) -> Patterns:
        """One set of patterns matching every name any of ``many`` matches: a name it does not match
        is known, at the cost of one probe and at most one regex, to match none of them."""
        items = list(many)
        merged = cls(())
        merged.exact = frozenset().union(*(p.exact for p in items))
        wild = [p.regex.pattern for p in items if p.regex is not None]
        merged.regex = re.compile("|".join(wild)) if wild else None
        return merged


def first_match(rules: Sequence[tuple[Rule, Patterns]], name: str) -> Rule | None:
    """The first rule whose patterns match ``name``, in rule-pack order."""
    for rule, patterns in rules:
        if patterns.matches(name):
            return rule
    return None


class RuleTable:
    """Rules with their name patterns, in rule-pack order, with each name's answer memoised: names
    repeat heavily across a tree (``subprocess.run``, ``client.chat.completions.create``...), so a
    lookup costs one dict probe per call site after the first."""

    def __init__(self, entries: Iterable[tuple[Rule, Patterns]]) -> None:
        self.entries = tuple(entries)
        self._first: dict[str, Rule | None] = {}
        self._all: dict[str, tuple[Rule, ...]] = {}

    def __bool__(self) -> bool:
        return bool(self.entries)

    def first(self, name: str) -> Rule | None:
        """The first rule whose patterns match ``name`` (as ``first_match``)."""
        try:
            return self._first[name]
        except KeyError:
            found = self._first[name] = first_match(self.entries, name)
            return found

    def all(self, name: str) -> tuple[Rule, ...]:
        """Every rule whose patterns match ``name``, in rule-pack order."""
        try:
            return self._all[name]
        except KeyError:
            found = self._all[name] = tuple(rule for rule, patterns in self.entries if patterns.matches(name))
            return found
