"""Query builders (issue 20): a chain's statement verb says whether it writes or reads, whatever object
the builder hangs from (a typed Kysely, a transaction's ``trx``, a helper's result, a builder held in a
variable), and the statement runs where its executor is called."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree

# Line -> class, for every call of fixtures/js/query_builders/tools.ts that reaches the database.
EXPECTED = {
    11: "db.read",  # tx.selectFrom(...).executeTakeFirst(), tx typed Transaction
    18: "db.write",  # db.insertInto(...).values(...).execute()
    19: "network.egress",  # db.transaction().execute(...): the general rule for an SDK's other calls
    20: "db.write",  # trx.updateTable(...): trx untyped, the verb decides
    23: "db.write",  # getDb().deleteFrom(...): a helper's result from another file
    27: "db.write",  # insertInto(...).expression(subquery): the subquery builder is never run itself
    28: "db.write",  # TypeORM createQueryBuilder().update(...).execute()
    29: "db.read",  # TypeORM createQueryBuilder(...).getMany()
    30: "db.read",  # recent.execute(): the builder bound to a variable and refined first
    35: "db.write",  # seed(): no tool reaches it
}


def test_builder_chains_are_classified_by_their_first_verb_where_they_run() -> None:
    bundle = scan_tree(FIXTURES / "query_builders")
    found = {a.location.line: a.actionClass for a in bundle.actions if a.location.path == "tools.ts"}
    assert found == EXPECTED
    # The select composed for the insert (line 26) and the unexecuted filter (line 25) are no actions.
    assert not {25, 26} & found.keys()
    reached = {a.location.line for a in bundle.actions if a.reachedFrom}
    assert reached == set(EXPECTED) - {35}
