"""What each rule means, for readers of a SARIF log or a pull-request comment.

Two families: the disposition rules of the methodology (``BLOCK-00n``, ``REVIEW-00n``; docs/methodology.md),
whose reasons decide an Evaluation, and the finding rules of the static engine (``F-…``; docs/rule-pack.md),
which a scan reports without deciding anything. The texts here are the ones those documents give.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleHelp:
    """One rule: a short name, one sentence, and what to do about it."""

    id: str
    name: str
    short: str
    help: str
    document: str


_METHODOLOGY = "docs/methodology.md"
_RULE_PACK = "docs/rule-pack.md"

DISPOSITION_RULES: dict[str, RuleHelp] = {
    r.id: r
    for r in (
        RuleHelp(
            "BLOCK-001",
            "ModelOutputReachesExecution",
            "Model-chosen data (a model's output or a tool argument) reaches shell.exec or code.exec.",
            "Gates and declarations do not excuse this: break the flow (validate the value against an allowlist "
            "that stops the path before the call) or remove the capability from the tool, then assess again.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "BLOCK-002",
            "UngatedUndeclaredHighImpactAction",
            "A high-impact action reached from a tool is undeclared and no gate dominates it.",
            "High impact: shell.exec, code.exec, payment, file.delete, message.send, privilege.change. Add a human "
            "approval gate that dominates the call and declare the action (requires_approval = true) in assay.toml, "
            "or remove the capability.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-001",
            "UnresolvedReach",
            "Reach analysis could not resolve: dynamic dispatch, or tools registered from configuration or at run time.",
            "What the engine cannot see is never a pass. Make the tool set static, or provide evidence of what is "
            "registered at run time.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-002",
            "NotDeclared",
            "An action the declaration does not cover, or a tool missing from its tools list.",
            "Declare the action class for the tools that reach it (or the tool in `tools`) in assay.toml, or stop "
            "giving the capability to the model.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-003",
            "HighImpactWithoutAuthority",
            "A high-impact action whose POLICY_AUTHORIZED plane is not ESTABLISHED.",
            "Declare the action with the approval it needs and put that approval gate before the call.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-004",
            "JurisdictionNotAssessed",
            "A jurisdiction was requested: its controls are NOT_ASSESSED.",
            "No engine of this deployment assesses jurisdiction controls; they stay NOT_ASSESSED, never passed.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-005",
            "PartialCoverage",
            "Source coverage is partial: parse errors, skipped or unsupported source files.",
            "Fix the files that do not parse, or accept that what was not analysed is not assessed.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-006",
            "NoDeclaration",
            "No declaration file (or conflicting declarations): the declared reach is unknown.",
            "Add an assay.toml that declares the system's tools and the action classes each may perform "
            "(docs/declaration.md).",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-007",
            "NoAiCodeRecognised",
            "No AI code recognised (no model calls and no tools): zero findings is not evidence of safety.",
            "Check that the path is the AI system's source and that its framework is one the engine reads.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-008",
            "UnattributedHighImpactAction",
            "A critical or high impact action that no recognised tool reaches, in a system that calls models or "
            "gives them tools.",
            "Declaring its class does not excuse it: nothing in a static bundle proves the action is outside every "
            "tool's reach. Register the tool that reaches it in a framework the engine reads, or remove the action.",
            _METHODOLOGY,
        ),
        RuleHelp(
            "REVIEW-013",
            "AcceptedRisk",
            "Reasons are accepted as known risks by their owners: they no longer drive the disposition, which stays "
            "at least REVIEW.",
            "Each acceptance has an owner, a justification and an expiry; fix the reason, or renew or revoke the "
            "acceptance on the AI System's risk page before it expires.",
            _METHODOLOGY,
        ),
    )
}

FINDING_RULES: dict[str, RuleHelp] = {
    r.id: r
    for r in (
        RuleHelp(
            "F-TAINT-EXEC",
            "TaintToExecution",
            "A model's output or a model-chosen tool argument reaches shell.exec or code.exec.",
            "Validate the value against an allowlist before the call, or remove the capability from the tool.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-TAINT-SQL",
            "TaintToRawSql",
            "A model's output or a model-chosen tool argument reaches raw SQL text.",
            "Bind the value as a query parameter (or use the ORM) instead of building SQL text from it.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-UNGATED-HIGH-IMPACT",
            "UngatedHighImpactAction",
            "A high-impact action reached from a tool with no gate dominating it.",
            "Put a check (human approval, allowlist, authorization) on every path from the tool to the call.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-UNDECLARED-ACTION",
            "UndeclaredAction",
            "An action whose class the declaration does not give to any tool that reaches it.",
            "Declare the action class for the tools that reach it in assay.toml, or remove the capability.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-APPROVAL-NOT-ENFORCED",
            "ApprovalDeclaredNotEnforced",
            "Declared with requires_approval, but no human-approval gate dominates the call.",
            "Call the approval function, and return or raise when it is refused, before the action.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-DECLARED-NOT-FOUND",
            "DeclaredNotFound",
            "A declared action class the code never performs.",
            "Remove the stale declaration, or check why the engine does not see the action.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-UNDECLARED-TOOL",
            "UndeclaredTool",
            "A tool missing from the declaration's tools list.",
            "Add the tool to `tools` in assay.toml, or stop giving it to the model.",
            _RULE_PACK,
        ),
        RuleHelp(
            "F-UNRESOLVED-REACH",
            "UnresolvedReach",
            "Dynamic dispatch, or tools registered from configuration or at run time.",
            "Make the tool set static, or provide runtime evidence of what is registered.",
            _RULE_PACK,
        ),
    )
}


def rule_help(rule_id: str) -> RuleHelp:
    """The help of ``rule_id``; a rule this build does not know gets a plain entry (never a failure)."""
    known = DISPOSITION_RULES.get(rule_id) or FINDING_RULES.get(rule_id)
    if known is not None:
        return known
    return RuleHelp(rule_id, rule_id, f"Assay rule {rule_id}.", "See the Assay documentation.", _METHODOLOGY)
