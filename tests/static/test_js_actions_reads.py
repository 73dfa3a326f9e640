"""Issue 13's JS/TS actions: reads (file.read, db.read, credential.read from process.env and OAuth),
SQL text executed verbatim (sql.exec: postgres ``sql.unsafe``, DuckDB, a client given a value),
commands run in a Vercel sandbox (a sandbox gate), Stripe billing, HTTP to messaging APIs
(message.send), ``promisify(exec)`` and a long-lived shell fed through ``stdin.write``."""

from __future__ import annotations

from jsfix import actions, expected, fixture, gated, tainted


def test_every_new_action_is_found_at_its_sink() -> None:
    assert actions(fixture("actions_reads.ts")) == expected("actions_reads.ts").actions


def test_only_the_sandboxed_command_is_gated() -> None:
    assert gated(fixture("actions_reads.ts")) == expected("actions_reads.ts").gated


def test_model_chosen_values_reach_the_sinks() -> None:
    assert tainted(fixture("actions_reads.ts")) == expected("actions_reads.ts").tainted


def test_targets_name_the_wrapped_function_and_the_variable() -> None:
    facts = fixture("actions_reads.ts")
    targets = {(a.location.line, a.target) for f in facts.functions for a in f.actions}
    assert (16, "child_process.exec") in targets  # promisify(exec)
    assert (17, "child_process.spawn.stdin.write") in targets
    assert (28, "process.env.GITHUB_TOKEN") in targets


def test_a_method_of_an_indexed_element_is_not_dynamic_dispatch() -> None:
    facts = fixture("actions_reads.ts")
    assert [f for f in facts.frontier if f.kind == "dynamic_dispatch"] == []
