"""What a branch condition guarantees, for structured gate dominance.

A test such as ``not approved(x) or user not in ALLOWED_USERS`` is read into the gates that hold when
it is true and when it is false (and the variables it proves allow-listed on each side), composed
through ``not``, ``and`` and ``or`` the way the language evaluates them: ``a and b`` true means both
held; ``a or b`` true means only what both sides guarantee.

A block's outcome is the set of gates that dominate the point after it, or ``None`` when control
never falls out of it (it returns, raises, breaks or continues on every path).
"""

from __future__ import annotations

from typing import NamedTuple

Outcome = frozenset[str] | None


class Condition(NamedTuple):
    """Gate ids (and allow-listed variable names) guaranteed when a test is true or false.

    A named tuple rather than a frozen dataclass: one is made for every gate test, and a tuple is
    made several times faster."""

    when_true: frozenset[str] = frozenset()
    when_false: frozenset[str] = frozenset()
    clean_true: frozenset[str] = frozenset()
    clean_false: frozenset[str] = frozenset()

    def negate(self) -> Condition:
        return Condition(self.when_false, self.when_true, self.clean_false, self.clean_true)

    def both(self, other: Condition) -> Condition:
        """``self and other``: true when both are true; false when either is false."""
        return Condition(
            self.when_true | other.when_true,
            self.when_false & other.when_false,
            self.clean_true | other.clean_true,
            self.clean_false & other.clean_false,
        )

    def either(self, other: Condition) -> Condition:
        """``self or other``: true when either is true; false when both are false."""
        return self.negate().both(other.negate()).negate()

    @property
    def empty(self) -> bool:
        return not (self.when_true or self.when_false or self.clean_true or self.clean_false)


NOTHING = Condition()


def gate_when(gate_id: str, passes_when: bool) -> Condition:
    """A single gate test: it passes when the test is ``passes_when``."""
    one = frozenset({gate_id})
    return Condition(when_true=one) if passes_when else Condition(when_false=one)


def meet(*outcomes: Outcome) -> Outcome:
    """Where control paths join: gates on every path that falls through; ``None`` if none does."""
    live = [o for o in outcomes if o is not None]
    if not live:
        return None
    joined = live[0]
    for outcome in live[1:]:
        joined &= outcome
    return joined
