"""What a tool answers: one compact JSON text, at most ``ANSWER_BUDGET`` bytes by default.

A tool result reaches the model once, as text: clients hand the model a result's ``content`` (SEP-2200), and
some drop ``content`` when ``structuredContent`` is present, so the same document in both channels is read
twice by some and half by others. One compact JSON text block is read whole by every client.

A document too large for one answer is never cut mid-text. :func:`fit` leaves out its largest members
(whole) and lists each under ``omitted`` with its size and how to read it; :func:`item_pages` splits a list of
whole items into pages that each fit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import orjson

# Bytes of one answer's text (16 KB = 16,384: the rest is the JSON-RPC envelope's).
ANSWER_BUDGET = 16_000
# What a fitted document may use: the rest is for `omitted`, paging and the next step.
DOCUMENT_BUDGET = 12_000


def _encode(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:  # integers past 64 bits: the standard encoder writes them
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def dumps(value: Any) -> str:
    """The compact JSON (UTF-8, nothing escaped that need not be) every answer is written in."""
    return _encode(value).decode("utf-8")


def size(value: Any) -> int:
    """Bytes of ``value``'s compact JSON (UTF-8)."""
    return len(_encode(value))


def _members(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list):
        return [(str(n), v) for n, v in enumerate(value)]
    return []


# An array longer than this loses its tail (in order); a shorter one loses its largest entry, left as null.
LONG_ARRAY = 8


class _Sizes:
    """JSON sizes of the parts of one document, each measured once until a part inside it changes."""

    def __init__(self) -> None:
        self._known: dict[int, int] = {}
        self._kept: list[Any] = []  # parts left out stay alive, so no new object reuses their id

    def of(self, value: Any) -> int:
        if not isinstance(value, dict | list):
            return size(value)
        key = id(value)
        if key not in self._known:
            self._known[key] = size(value)
        return self._known[key]

    def changed(self, containers: list[Any], removed: Any) -> None:
        self._kept.append(removed)
        for container in containers:
            self._known.pop(id(container), None)


def _largest(value: Any, budget: int, sizes: _Sizes) -> tuple[list[Any], str, str]:
    """The member to leave out next: the largest one (a long array's last), inside the largest member that
    cannot fit on its own. The containers down to it, its key and its container's dotted path."""
    chain, path = [value], ""
    while True:
        container = chain[-1]
        if isinstance(container, list) and len(container) > LONG_ARRAY:
            key, member = str(len(container) - 1), container[-1]
        else:
            key, member = max(_members(container), key=lambda kv: sizes.of(kv[1]))
        if sizes.of(member) > budget and len(_members(member)) > 1:
            chain.append(member)
            path = f"{path}.{key}" if path else key
            continue
        return chain, key, path


def fit(document: Any, budget: int, read: Callable[[str], str]) -> tuple[Any, dict[str, dict[str, Any]]]:
    """``document`` with members left out, largest first, until its JSON fits ``budget`` bytes; and what was
    left out: ``{dotted.path: {"bytes": n, "read": read(path)}}``. A long array keeps its head and loses its
    tail (path ``array.N-``, the entries from N on); a short one keeps its length, the entry left out as null.
    Nothing is cut inside a text."""
    fitted = orjson.loads(_encode(document))
    omitted: dict[str, dict[str, Any]] = {}
    tails: dict[str, tuple[int, int]] = {}  # long array's path -> (first index cut, bytes cut)
    sizes = _Sizes()
    while sizes.of(fitted) > budget and _members(fitted):
        chain, key, path = _largest(fitted, budget, sizes)
        container = chain[-1]
        member = f"{path}.{key}" if path else key
        if isinstance(container, list) and len(container) > LONG_ARRAY:
            removed = container.pop()
            sizes.changed(chain, removed)
            tails[path] = (len(container), tails.get(path, (0, 0))[1] + size(removed))
            continue
        if isinstance(container, list):
            removed, container[int(key)] = container[int(key)], None
        else:
            removed = container.pop(key)
        sizes.changed(chain, removed)
        if removed is None:
            break  # nothing left to leave out
        # An array whose tail went first, then the array itself: one entry, of its whole size.
        inside = [p for p in tails if p == member or p.startswith(member + ".")]
        cut = sum(tails.pop(p)[1] for p in inside)
        omitted[member] = {"bytes": size(removed) + cut, "read": read(member)}
    for path, (first, cut) in tails.items():
        tail = f"{path}.{first}-" if path else f"{first}-"
        omitted[tail] = {"bytes": cut, "read": read(tail)}
    return fitted, dict(sorted(omitted.items()))


def select(document: Any, path: str) -> Any:
    """The member of ``document`` at the dotted ``path``: object members by name, array entries by index,
    and ``N-`` for an array's entries from index N on; KeyError when absent."""
    value = document
    for key in path.split("."):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, list) and key.endswith("-") and key[:-1].isdigit() and int(key[:-1]) < len(value):
            value = value[int(key[:-1]) :]
        else:
            raise KeyError(path)
    return value


def item_pages(items: Sequence[Any], budget: int) -> list[range]:
    """Consecutive pages of whole ``items`` whose JSON together stays within ``budget`` bytes (a page always
    holds at least one item, however large); the same items always give the same pages."""
    pages: list[range] = []
    start, used = 0, 2
    for n, item in enumerate(items):
        cost = size(item) + 1
        if n > start and used + cost > budget:
            pages.append(range(start, n))
            start, used = n, 2
        used += cost
    pages.append(range(start, len(items)))
    return pages
