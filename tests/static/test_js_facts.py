"""JS/TS analyzer facts, through ``analyze_javascript``: model providers, tool frameworks, action classes."""

from __future__ import annotations

from jsfix import actions, expected, fixture


def test_model_providers_and_lines() -> None:
    facts = fixture("providers.ts")
    assert {(m.provider, m.location.line) for m in facts.models} == expected("providers.ts").models
    # Model API calls are model uses, not network egress; a plain fetch is egress.
    assert actions(facts) == expected("providers.ts").actions


def test_model_api_names() -> None:
    facts = fixture("providers.ts")
    apis = {m.api for m in facts.models}
    assert {
        "openai.chat.completions.create",
        "openai.AzureOpenAI.chat.completions.create",
        "@anthropic-ai/sdk.messages.create",
        "@google/generative-ai.GoogleGenerativeAI.getGenerativeModel.generateContent",
        "@aws-sdk/client-bedrock-runtime.ConverseCommand",
        "@aws-sdk/client-bedrock-runtime.InvokeModelCommand",
        "ai.generateText",
        "@langchain/openai.ChatOpenAI",
        "fetch",
    } <= apis
    assert {m.via for m in facts.models if m.api == "fetch"} == {"http"}


def test_vercel_tools_named_by_key_with_schema_parameters() -> None:
    facts = fixture("tools_vercel.ts", "src/tools_vercel.ts")
    got = {
        (t.name, t.framework, t.location.line, t.function, tuple(t.parameters))
        for t in facts.tools
        if t.ref is None  # (uses of values held elsewhere, ``execute: runShell``: joined by the linker)
    }
    assert got == {
        ("weather", "vercel-ai", 6, "src/tools_vercel#tool:weatherTool", ("city", "unit")),
        ("shell", "vercel-ai", 14, "src/tools_vercel#tool:shell", ("command",)),
        ("run", "vercel-ai", 19, "src/tools/shell#runShell", ("line",)),
    }
    qualnames = {f.qualname for f in facts.functions}
    assert {"src/tools_vercel#tool:weatherTool", "src/tools_vercel#tool:shell"} <= qualnames
    assert actions(facts) == {("network.egress", 9), ("shell.exec", 17)}


def test_agents_langchain_and_mcp_tools() -> None:
    facts = fixture("tools_frameworks.ts", "src/tools.ts")
    got = {
        (t.name, t.framework, t.location.line, t.function, tuple(t.parameters), tuple(sorted(t.annotations.items())))
        for t in facts.tools
    }
    assert got == {
        ("refund", "openai-agents", 7, "src/tools#tool:refund", ("orderId",), ()),
        ("search", "langchain", 15, "src/tools#tool:search", ("q",), ()),
        ("calc", "langchain", 17, "src/tools#tool:calc", ("a", "b"), ()),
        ("wipe", "langchain", 24, "src/tools#WipeTool._call", ("dir",), ()),
        ("echo", "mcp", 36, "src/tools#tool:echo", ("text",), ()),
        (
            "delete_file",
            "mcp",
            38,
            "src/tools#tool:delete_file",
            ("path",),
            (("destructiveHint", True), ("readOnlyHint", False)),
        ),
    }
    descriptions = {t.name: t.description for t in facts.tools}
    assert descriptions["delete_file"] == "Delete one file"
    assert descriptions["echo"] == "Echo the text"
    assert actions(facts) == {("file.delete", 12), ("file.delete", 29), ("file.delete", 47)}


def test_approval_flag_gates_the_handler_and_annotations_do_not() -> None:
    facts = fixture("tools_frameworks.ts", "src/tools.ts")
    by_name = {f.qualname: f for f in facts.functions}
    refund = by_name["src/tools#tool:refund"]
    assert [(g.kind, g.ruleId, g.location.line) for g in refund.gates] == [
        ("human_approval", "JS-GATE-APPROVAL-002", 11)
    ]
    assert refund.actions[0].dominatingGates == [refund.gates[0].id]
    delete = by_name["src/tools#tool:delete_file"]
    assert delete.gates == [] and delete.actions[0].dominatingGates == []
    (tool,) = [t for t in facts.tools if t.name == "delete_file"]
    assert tool.annotations == {"readOnlyHint": False, "destructiveHint": True}


def test_literal_tools_are_dispatched_at_run_time() -> None:
    facts = fixture("tools_literals.js")
    got = {(t.name, t.framework, t.location.line, t.function, tuple(t.parameters)) for t in facts.tools}
    assert got == {
        ("get_weather", "openai", 2, None, ("city",)),
        ("lookup_order", "openai", 7, None, ("id",)),
        ("search_docs", "anthropic", 8, None, ("query",)),
    }
    assert {(f.kind, f.location.line) for f in facts.frontier if f.location} == {
        ("dynamic_dispatch", 2),
        ("dynamic_dispatch", 7),
        ("dynamic_dispatch", 8),
    }


def test_every_action_class_typescript() -> None:
    facts = fixture("actions.ts")
    assert actions(facts) == expected("actions.ts").actions
    impacts = {a.actionClass: a.impact for f in facts.functions for a in f.actions}
    assert impacts == {
        "shell.exec": "critical",
        "code.exec": "critical",
        "payment": "critical",
        "file.delete": "high",
        "db.write": "high",
        "message.send": "high",
        "cloud.change": "high",
        "privilege.change": "high",
        "file.write": "medium",
        "network.egress": "medium",
        "secret.access": "medium",
        "credential.read": "medium",
        "sql.exec": "high",
        "db.read": "low",
    }


def test_action_targets_are_resolved_library_names() -> None:
    facts = fixture("actions.ts")
    targets = {a.target for f in facts.functions for a in f.actions}
    assert {
        "child_process.exec",
        "child_process.execFileSync",
        "execa.execa",
        "fs.writeFileSync",
        "fs/promises.rm",
        "pg.Pool.query",
        "@prisma/client.PrismaClient.user.update",
        "stripe.refunds.create",
        "@aws-sdk/client-ec2.RunInstancesCommand",
        "@aws-sdk/client-iam.AttachRolePolicyCommand",
        "@aws-sdk/client-ssm.GetParameterCommand",
    } <= targets


def test_commonjs_requires() -> None:
    facts = fixture("actions_cjs.js", "lib/ops.js")
    assert actions(facts) == expected("actions_cjs.js").actions
    assert {f.qualname for f in facts.functions} >= {"lib/ops#run", "lib/ops#save"}


def test_literal_tools_resolved_through_a_handler_map_or_a_switch() -> None:
    facts = fixture("literal_dispatch.ts", "src/agent.ts")
    assert {(t.name, t.framework, t.function) for t in facts.tools if t.ref is None} == {
        ("run_shell", "openai", "src/agent#runShell"),
        ("lookup_order", "openai", "src/orders#lookupOrder"),
        ("mystery", "openai", None),
        ("delete_file", "anthropic", "src/agent#claudeLoop.case:delete_file"),  # the branch that calls removeFile
    }
    # Only the unresolved literal and the handler looked up by a run-time key stay on the frontier.
    assert {(f.kind, f.location.line) for f in facts.frontier if f.location} == {
        ("dynamic_dispatch", 20),
        ("dynamic_dispatch", 25),
    }
