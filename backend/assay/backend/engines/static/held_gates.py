"""The gates that hold before a tool when its function is given to a model more than once.

A function listed by several agents, or registered on several (``agent.tool_plain(requires_approval=True)(f)``
on a local and on a remote agent), runs behind what each listing holds before it. A gate holds over the tool
when every listing runs it; and when every listing holds a gate of one kind (each registration asks its own
person), a gate of that kind holds on every path from the tool, though which one depends on the path: those
gates are kept. A listing with no gate of a kind leaves that kind unheld.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def held_on_every_listing(listings: Sequence[frozenset[str]], kind_of: Callable[[str], str | None]) -> frozenset[str]:
    """Of the gates each listing holds before the tool, those that hold on every path from it."""
    if not listings:
        return frozenset()
    common = frozenset.intersection(*listings)
    if len(listings) == 1 or not all(listings):
        return common
    kinds = set.intersection(*({kind_of(g) for g in listing} for listing in listings)) - {None}
    return common | {g for listing in listings for g in listing if kind_of(g) in kinds}
