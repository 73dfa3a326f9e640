"""LangGraph.js ``interrupt(...)`` (issue 13): the graph pauses until a human answers, so it gates what
follows it in the same block in any expression form (a declaration, inside an await or a call), and only
there (not after the ``if`` it sits in)."""

from __future__ import annotations

from jsfix import expected, fixture, gated, gates


def test_interrupt_gates_what_follows_it() -> None:
    facts = fixture("interrupt.ts")
    assert gates(facts) == expected("interrupt.ts").gates
    assert gated(facts) == expected("interrupt.ts").gated
