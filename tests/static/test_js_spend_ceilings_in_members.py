"""Issue 20, a spend ceiling held by an object: ``if (cost > state.maxCost) return stop()`` compares what is spent with
a ceiling named as one (``max*``, ``MAX_*``, ``*budget*``...) as ``cost > MAX_COST`` does; the ceiling's name is the
member's. A ceiling named for an amount of data (``opts.maxBytes``, ``this.maxLength``) bounds what is read, not
what is spent."""

from __future__ import annotations

from pyfix import analyse

CODE = """const state = { maxCost: 1, maxBytes: 10 };
const config = { MAX_SPEND: 5 };

export async function loop(cost: number, total: number, bytes: number) {
  if (cost > state.maxCost) {
    return stop();
  }
  if (total >= config.MAX_SPEND) {
    throw new Error('over budget');
  }
  if (bytes > state.maxBytes) {
    return stop();
  }
  return 0;
}

function stop() {
  return 1;
}
"""


def test_a_ceiling_an_object_holds_is_a_spend_limit() -> None:
    linked = analyse({"loop.ts": CODE})
    assert sorted((g.kind, g.location.line) for g in linked.gates) == [("spend_limit", 5), ("spend_limit", 8)]
