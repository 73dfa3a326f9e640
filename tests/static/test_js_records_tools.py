"""Tools written as data (issue 20): a list of records (``[{ method: "capture_payment", description,
parameters }, ...]`` returned by a function of the tree) whose elements a toolkit registers with a
model by a field (``catalog(ctx).filter(...).forEach((entry) => server.tool(entry.method, ...))``) is
one tool per record, named and located by that field, implemented by what the dispatch on the same name
calls (``switch (method) { case "capture_payment": return capturePayment(input) }``). A payment API's
money-moving endpoint called over HTTP is ``payment``, its other endpoints ``network.egress``."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree


def test_records_registered_by_field_are_tools_reaching_their_dispatch_branch() -> None:
    bundle = scan_tree(FIXTURES / "records_toolkit")
    tools = {t.name: t for t in bundle.tools}
    assert {name: (t.location.path, t.location.line) for name, t in tools.items()} == {
        "capture_payment": ("defs/catalog.ts", 5),
        "show_order": ("defs/catalog.ts", 11),  # a template literal without substitutions
        "archive_order": ("defs/catalog.ts", 17),
    }
    reached = {
        (a.location.path, a.location.line, a.actionClass): {
            t.name for t in bundle.tools if t.id in {p.toolId for p in a.reachedFrom}
        }
        for a in bundle.actions
    }
    assert reached == {
        ("api/calls.ts", 7, "payment"): {"capture_payment"},  # POST .../orders/${id}/capture, URL bound to a const
        ("api/calls.ts", 11, "network.egress"): {"show_order"},
    }
    # The dispatcher has no case for archive_order: a tool the model is offered that does nothing.
    assert tools["archive_order"].function is None
    # A tool named by a value that is no record's field stays a frontier item, never a silent miss.
    assert [(f.kind, f.location.line) for f in bundle.frontier if f.location is not None] == [("dynamic_dispatch", 18)]


def test_records_registration_whose_records_cannot_be_found_is_a_frontier_item_naming_the_call() -> None:
    # ``catalog.forEach((entry) => server.tool(entry.method, ...))`` over records read at run time: no tool
    # can be named, and the registration says so where it is made, never a silent zero.
    bundle = scan_tree(FIXTURES / "records_unlisted")
    assert bundle.tools == []
    assert [(f.kind, f.path, f.location.line if f.location else None) for f in bundle.frontier] == [
        ("runtime_registered_tools", "server/mcp.ts", 7)
    ]
    assert "catalog[method]" in bundle.frontier[0].detail
