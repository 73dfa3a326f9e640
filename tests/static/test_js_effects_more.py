"""Actions by effect beyond the first packs (issue 20): vector stores, search engines, key-value stores and
warehouses as database reads and writes, payment SDKs beyond Stripe as ``payment``, more mail/SMS/chat
SDKs as ``message.send``, each reached from the tool that calls it with the model's arguments."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree

# Line -> class, for every call of fixtures/js/effects_more/tools.ts that leaves the process.
EXPECTED = {
    34: "db.write",  # Pinecone index.upsert
    35: "db.read",  # Pinecone index.query
    36: "db.write",  # Qdrant upsert
    37: "db.read",  # Qdrant search
    39: "db.write",  # Chroma collection.add
    40: "db.read",  # Chroma collection.query
    41: "db.write",  # Upstash Redis set
    42: "db.read",  # Upstash Redis get, after a set on the same client
    43: "db.write",  # Vercel KV set
    44: "db.write",  # Elasticsearch index
    45: "db.read",  # Elasticsearch search
    46: "db.write",  # ClickHouse insert
    47: "db.write",  # Firestore web SDK setDoc
    48: "db.read",  # Firestore web SDK getDoc
    51: "payment",  # Braintree transaction.sale
    52: "payment",  # Braintree transaction.refund
    53: "payment",  # Square payments.create
    54: "payment",  # Square refunds.refundPayment
    55: "payment",  # Razorpay payments.capture
    56: "payment",  # Razorpay payments.refund
    57: "payment",  # PayPal OrdersController.captureOrder
    60: "message.send",  # Vonage sms.send
    61: "message.send",  # LINE pushMessage
}


def test_more_packages_per_action_class_are_reached_from_their_tools() -> None:
    bundle = scan_tree(FIXTURES / "effects_more")
    names = {t.id: t.name for t in bundle.tools}
    found = {a.location.line: a.actionClass for a in bundle.actions}
    assert found == EXPECTED
    reached = {a.location.line: {names[p.toolId] for p in a.reachedFrom} for a in bundle.actions}
    assert {line: r for line, r in reached.items() if line >= 51} == {
        **{line: {"pay"} for line in range(51, 58)},
        60: {"notify"},
        61: {"notify"},
    }
    assert all(reached[line] == {"remember"} for line in range(34, 49) if line in reached)
    # The model's arguments reach the payment calls.
    assert {f.sink.line for f in bundle.taintFlows if f.actionClass == "payment"} == set(range(51, 58))
