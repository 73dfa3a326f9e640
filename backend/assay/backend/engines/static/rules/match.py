"""Name patterns of the rule pack, compiled once and shared by the language analyzers."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Sequence

from assay.backend.engines.static.rules.pack import Rule

# Characters ``fnmatch`` reads as wildcards.
_WILDCARDS = "*?["


class Patterns:
    """A rule's name patterns (``*`` matches any characters). Each is matched in the cheapest form that
    matches exactly the names ``fnmatch.translate`` of it does: exact names in a set; patterns whose
    one ``*`` leads, trails or both (``*.unlink``, ``os.exec*``, ``*approval*``) as suffixes, prefixes
    and infixes, tested with ``str.endswith``, ``str.startswith`` and ``in``; the rest by the text they
    start with (``stripe.*.create``, tried only on names starting with that text) or, those that start
    with a wildcard, only on names holding one of their texts (``needles``: the longest text between the
    ``*`` of each, which every name the pattern matches contains, when no pattern has another wildcard,
    ``?`` or ``[``). A pattern whose only wildcard is ``*`` is matched by its texts (``_glob_matches``),
    without a regex: compiling the regexes of a rule pack's hundreds of such patterns cost more than
    every name tried on them. The few with ``?`` or ``[`` go to one regex per text they start with."""

    def __init__(self, patterns: Iterable[str]) -> None:
        items = list(patterns)
        wild = [p for p in items if "*" in p]
        self.exact = frozenset(p for p in items if "*" not in p)
        self.prefixes = tuple(p[:-1] for p in wild if _affix(p) == "prefix")
        self.suffixes = tuple(p[1:] for p in wild if _affix(p) == "suffix")
        self.infixes = tuple(p[1:-1] for p in wild if _affix(p) == "infix")
        self.headed = tuple(p for p in wild if _affix(p) is None and _head(p))
        self.headless = tuple(p for p in wild if _affix(p) is None and not _head(p))
        self.heads = tuple(_head(p) for p in self.headed)
        self.needles = _needles(self.headless)
        # Each name's answer: the same few hundred names (keywords, callees) are tried on a pattern set
        # at every call site of a tree, and a probe costs less than the affix tests.
        self._memo: dict[str, bool] = {}

    def matches(self, name: str) -> bool:
        try:
            return self._memo[name]
        except KeyError:
            found = self._memo[name] = self._matches(name)
            return found

    def _matches(self, name: str) -> bool:
        return (
            name in self.exact
            or name.startswith(self.prefixes)
            or name.endswith(self.suffixes)
            or any(map(name.__contains__, self.infixes))
            or (bool(self.headed) and name.startswith(self.heads) and self._headed_match(name))
            or (
                bool(self.headless)
                and (self.needles is None or any(map(name.__contains__, self.needles)))
                and _group_matches(self.headless_group, name)
            )
        )

    # Grouped when a name first needs them: most rules' own patterns are only ever tried on the few names
    # their table's union matches, and a union's parts never on their own.
    @functools.cached_property
    def headed_groups(self) -> tuple[tuple[int, ...], dict[str, _Group]]:
        """The patterns that start with text, by that text, and the lengths of those texts, shortest first."""
        by_head: dict[str, list[str]] = {}
        for head, pattern in zip(self.heads, self.headed, strict=True):
            by_head.setdefault(head, []).append(pattern)
        return tuple(sorted({len(head) for head in by_head})), {head: _group(group) for head, group in by_head.items()}

    @functools.cached_property
    def headless_group(self) -> _Group:
        return _group(self.headless)

    def _headed_match(self, name: str) -> bool:
        """Whether a pattern that starts with text matches ``name``: only those starting with a text that
        ``name`` starts with can."""
        lengths, groups = self.headed_groups
        for length in lengths:
            if length > len(name):
                break
            group = groups.get(name[:length])
            if group is not None and _group_matches(group, name):
                return True
        return False

    def compile(self) -> None:
        """Group the patterns and compile the regexes of those with ``?`` or ``[`` now (before worker
        processes fork, so that they inherit them)."""
        groups = [*self.headed_groups[1].values(), self.headless_group]
        for _, _, others in groups:
            if others:
                _regex(others)

    def wildcards(self) -> Patterns:
        """The same patterns without the exact names."""
        return Patterns._merged([self], exact=False)

    @classmethod
    def union(cls, many: Iterable[Patterns]) -> Patterns:
        """One set of patterns matching every name any of ``many`` matches: a name it does not match is
        known, at the cost of one probe, three affix tests and, for the few names starting with one of its
        texts or holding one, a test of the patterns that could match them, to match none of them. It is
        made ready at once (``compile``): a union is what is tried on every name."""
        merged = cls._merged(many, exact=True)
        merged.compile()
        return merged

    @classmethod
    def _merged(cls, many: Iterable[Patterns], *, exact: bool) -> Patterns:
        items = list(many)
        merged = cls(())
        merged.exact = frozenset().union(*(p.exact for p in items)) if exact else frozenset()
        merged.prefixes = tuple(prefix for p in items for prefix in p.prefixes)
        merged.suffixes = tuple(suffix for p in items for suffix in p.suffixes)
        merged.infixes = tuple(infix for p in items for infix in p.infixes)
        merged.headed = tuple(pattern for p in items for pattern in p.headed)
        merged.headless = tuple(pattern for p in items for pattern in p.headless)
        merged.heads = tuple(head for p in items for head in p.heads)
        merged.needles = _needles(merged.headless)
        return merged


def _affix(pattern: str) -> str | None:
    """``prefix`` for ``text*``, ``suffix`` for ``*text``, ``infix`` for ``*text*`` (``text`` free of
    wildcards); None for any other pattern."""
    core = pattern.strip("*")
    leading, trailing = pattern.startswith("*"), pattern.endswith("*")
    if any(c in core for c in _WILDCARDS) or len(pattern) - len(core) != leading + trailing:
        return None
    if leading:
        return "infix" if trailing else "suffix"
    return "prefix"


def _head(pattern: str) -> str:
    """The text a pattern starts with, up to its first wildcard."""
    return pattern[: min((i for i in (pattern.find(c) for c in _WILDCARDS) if i >= 0), default=len(pattern))]


def _needles(patterns: Sequence[str]) -> tuple[str, ...] | None:
    """A text each of ``patterns`` requires of a name it matches (the longest between its ``*``), bar
    those holding another (a name holding ``AllowedFor`` holds ``Allowed``); None when a pattern has a
    ``?`` or ``[`` (its texts are harder to read) or no text."""
    needles: set[str] = set()
    for pattern in patterns:
        if "?" in pattern or "[" in pattern:
            return None
        longest = max(pattern.split("*"), key=len)
        if not longest:
            return None
        needles.add(longest)
    return tuple(sorted(n for n in needles if not any(other != n and other in n for other in needles)))


@functools.cache
def _regex(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


# Patterns matched alike: the last texts of those whose only wildcard is ``*`` (every name one of them
# matches ends with its last text), those patterns as their texts between the ``*``, and the rest.
_Group = tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[str, ...]]


def _group(patterns: Sequence[str]) -> _Group:
    globs = tuple(tuple(p.split("*")) for p in patterns if "?" not in p and "[" not in p)
    others = tuple(p for p in patterns if "?" in p or "[" in p)
    return tuple(texts[-1] for texts in globs), globs, others


def _group_matches(group: _Group, name: str) -> bool:
    lasts, globs, others = group
    if name.endswith(lasts) and any(_glob_matches(texts, name) for texts in globs):
        return True
    return bool(others) and _regex(others).match(name) is not None


def _glob_matches(texts: tuple[str, ...], name: str) -> bool:
    """Whether ``name`` matches the pattern ``"*".join(texts)`` (two texts at least; ``*`` matches any
    characters, newlines included, as in ``fnmatch.translate``): it starts with the first text, ends
    with the last where the first ends or after, and holds the others in order between them. Taking each
    middle text where it first occurs leaves the most room for the rest, so it finds a match if any."""
    first, last = texts[0], texts[-1]
    end = len(name) - len(last)
    if end < len(first) or not name.startswith(first) or not name.endswith(last):
        return False
    at = len(first)
    for text in texts[1:-1]:
        found = name.find(text, at, end)
        if found < 0:
            return False
        at = found + len(text)
    return True


def first_match(rules: Sequence[tuple[Rule, Patterns]], name: str) -> Rule | None:
    """The first rule whose patterns match ``name``, in rule-pack order."""
    for rule, patterns in rules:
        if patterns.matches(name):
            return rule
    return None


class RuleTable:
    """Rules with their name patterns, in rule-pack order, with each name's answer memoised: names
    repeat heavily across a tree (``subprocess.run``, ``client.chat.completions.create``...), so a
    lookup costs one dict probe per call site after the first. The first lookup of a name that no
    rule's wildcard patterns match (most names) reads the rules that list it exactly from an index,
    rather than trying every rule."""

    def __init__(self, entries: Iterable[tuple[Rule, Patterns]]) -> None:
        self.entries = tuple(entries)
        listing: dict[str, list[Rule]] = {}
        for rule, patterns in self.entries:
            for name in patterns.exact:
                listing.setdefault(name, []).append(rule)
        self._listing = {name: tuple(rules) for name, rules in listing.items()}
        self._wildcards = Patterns.union(patterns.wildcards() for _, patterns in self.entries)
        self._first: dict[str, Rule | None] = {}
        self._all: dict[str, tuple[Rule, ...]] = {}

    def __bool__(self) -> bool:
        return bool(self.entries)

    def first(self, name: str) -> Rule | None:
        """The first rule whose patterns match ``name`` (as ``first_match``)."""
        try:
            return self._first[name]
        except KeyError:
            matched = self.all(name)
            found = self._first[name] = matched[0] if matched else None
            return found

    def all(self, name: str) -> tuple[Rule, ...]:
        """Every rule whose patterns match ``name``, in rule-pack order."""
        try:
            return self._all[name]
        except KeyError:
            if self._wildcards.matches(name):
                found = tuple(rule for rule, patterns in self.entries if patterns.matches(name))
            else:
                found = self._listing.get(name, ())
            self._all[name] = found
            return found
