"""Runtime evidence read as what the system was seen doing: tool calls, agent runs and gates.

The input is the normalized records of ingested batches (docs/intake.md), each with the id of the
evidence item it came from. Spans of several vocabularies describe a tool call; all of them become one
``ToolCall``:

- OpenTelemetry GenAI: ``gen_ai.operation.name = execute_tool`` (or a span named ``execute_tool NAME``)
  with ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``, ``error.type``;
- MCP: ``mcp.method.name = tools/call`` with ``gen_ai.tool.name`` (or ``mcp.tool.name``, or the span name
  ``tools/call NAME``);
- OpenInference: ``openinference.span.kind = TOOL`` with ``tool.name`` and ``tool.parameters``;
- OpenLLMetry: ``traceloop.span.kind = tool`` with ``traceloop.entity.name``.

Agent runs are ``invoke_agent`` spans (or OpenInference ``AGENT``). Guardrail spans (``run_guardrail``, or
OpenInference ``GUARDRAIL``) and recorded approvals are observed gates. Structured records with
``type``/``kind`` of ``tool_call``, ``approval`` or ``guardrail`` say the same in plain fields.

Order comes from the trace's structure, never from timestamps: a trace's spans in depth-first order from
its roots, siblings in the order the evidence holds them (the order the producer exported them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# The OpenTelemetry semantic conventions whose presence on a span says which class of action it performed.
# A span under a tool call carrying one of these is direct evidence that the tool performed that class.
_ACTION_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("process.command", "shell.exec"),
    ("process.command_line", "shell.exec"),
    ("process.executable.name", "shell.exec"),
    ("db.query.text", "db.write"),
    ("db.statement", "db.write"),
    ("messaging.system", "message.send"),
    ("http.request.method", "network.egress"),
    ("http.method", "network.egress"),
)
_READ_VERBS = ("SELECT", "WITH", "SHOW", "DESCRIBE", "EXPLAIN")


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call seen at run time."""

    tool: str
    evidence_ref: str
    trace: str
    error: str | None
    vocabulary: str
    arguments: str | None = None
    # Action classes evidenced by spans under this call (semantic-convention attributes), sorted.
    action_classes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ObservedGate:
    """A check seen at run time: a guardrail verdict or a recorded approval."""

    kind: str  # "guardrail" or "human_approval"
    verdict: str
    target: str | None
    evidence_ref: str
    trace: str


@dataclass(slots=True)
class RuntimeEvidence:
    """What the runtime records of a membership show, in trace order."""

    calls: list[ToolCall] = field(default_factory=list)
    gates: list[ObservedGate] = field(default_factory=list)
    # (trace, state name, evidence ref) in trace order: every tool call (its tool name) and every
    # structured ``state`` record, for the scenario snapshot.
    steps: list[tuple[str, str, str]] = field(default_factory=list)
    agent_runs: int = 0
    spans: int = 0
    records: int = 0

    @property
    def present(self) -> bool:
        return self.records > 0

    def add_call(self, call: ToolCall) -> None:
        self.calls.append(call)
        self.steps.append((call.trace, call.tool, call.evidence_ref))

    def state_sequences(self) -> dict[str, list[tuple[str, str]]]:
        """Per trace (sorted by id), the states seen in trace order as (name, evidence ref)."""
        grouped: dict[str, list[tuple[str, str]]] = {}
        for trace, name, ref in self.steps:
            grouped.setdefault(trace, []).append((name, ref))
        return dict(sorted(grouped.items()))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return str(value)


def _tool_of(span: dict[str, Any]) -> tuple[str, str] | None:
    """(tool name, vocabulary) when the span is a tool call."""
    attrs: dict[str, Any] = span.get("attributes") or {}
    name = _text(span.get("name")) or ""
    operation = _text(attrs.get("gen_ai.operation.name"))
    if operation == "execute_tool" or name.startswith("execute_tool "):
        tool = _text(attrs.get("gen_ai.tool.name")) or name.removeprefix("execute_tool ").strip()
        return (tool, "gen_ai") if tool and tool != "execute_tool" else None
    if _text(attrs.get("mcp.method.name")) == "tools/call":
        tool = (
            _text(attrs.get("gen_ai.tool.name"))
            or _text(attrs.get("mcp.tool.name"))
            or name.removeprefix("tools/call").strip()
        )
        return (tool, "mcp") if tool else None
    if _text(attrs.get("openinference.span.kind")) == "TOOL":
        tool = _text(attrs.get("tool.name")) or name
        return (tool, "openinference") if tool else None
    if _text(attrs.get("traceloop.span.kind")) == "tool":
        tool = _text(attrs.get("traceloop.entity.name")) or name
        return (tool, "openllmetry") if tool else None
    return None


def _arguments(span: dict[str, Any]) -> str | None:
    attrs: dict[str, Any] = span.get("attributes") or {}
    for key in ("gen_ai.tool.call.arguments", "tool.parameters", "traceloop.entity.input"):
        if attrs.get(key) is not None:
            return _text(attrs[key])
    return None


def _error(span: dict[str, Any]) -> str | None:
    attrs: dict[str, Any] = span.get("attributes") or {}
    if attrs.get("error.type") is not None:
        return _text(attrs["error.type"])
    status = span.get("status") or {}
    code = status.get("code")
    if code in (2, "ERROR", "STATUS_CODE_ERROR"):
        return _text(status.get("message")) or "error"
    return None


def _is_agent(span: dict[str, Any]) -> bool:
    attrs: dict[str, Any] = span.get("attributes") or {}
    return _text(attrs.get("gen_ai.operation.name")) in ("invoke_agent", "create_agent") or (
        _text(attrs.get("openinference.span.kind")) == "AGENT"
    )


def _guardrail(span: dict[str, Any]) -> tuple[str, str | None] | None:
    """(verdict, target) when the span is a guardrail run."""
    attrs: dict[str, Any] = span.get("attributes") or {}
    name = _text(span.get("name")) or ""
    if not (
        _text(attrs.get("gen_ai.operation.name")) == "run_guardrail"
        or name.startswith("run_guardrail")
        or _text(attrs.get("openinference.span.kind")) == "GUARDRAIL"
    ):
        return None
    verdict = next(
        (
            _text(attrs[k])
            for k in (
                "gen_ai.guardrail.decision",
                "gen_ai.guardrail.verdict",
                "guardrail.verdict",
                "guardrail.decision",
            )
            if attrs.get(k) is not None
        ),
        None,
    )
    target = next(
        (_text(attrs[k]) for k in ("gen_ai.guardrail.target", "guardrail.target", "gen_ai.tool.name") if attrs.get(k)),
        None,
    )
    return (verdict or "unknown").lower(), target


def _action_classes(span: dict[str, Any]) -> set[str]:
    attrs: dict[str, Any] = span.get("attributes") or {}
    found: set[str] = set()
    for key, action_class in _ACTION_ATTRIBUTES:
        value = attrs.get(key)
        if value is None:
            continue
        if action_class == "db.write" and _text(value) and _text(value).lstrip().upper().startswith(_READ_VERBS):  # type: ignore[union-attr]
            found.add("db.read")
        else:
            found.add(action_class)
    return found


def _trace_order(spans: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any], list[str]]]:
    """Spans of one trace depth first from its roots, siblings in evidence order, each with its
    ancestors' span ids (nearest first)."""
    by_id = {s.get("spanId"): i for i, (_, s) in enumerate(spans)}
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, (_, span) in enumerate(spans):
        parent = span.get("parentSpanId")
        if parent and parent in by_id and by_id[parent] != i:
            children.setdefault(by_id[parent], []).append(i)
        else:
            roots.append(i)
    out: list[tuple[str, dict[str, Any], list[str]]] = []
    seen: set[int] = set()
    stack: list[tuple[int, list[str]]] = [(r, []) for r in reversed(roots)]
    while stack:
        index, ancestors = stack.pop()
        if index in seen:  # a cycle in parent ids: each span once
            continue
        seen.add(index)
        ref, span = spans[index]
        out.append((ref, span, ancestors))
        below = [str(span.get("spanId")), *ancestors]
        stack.extend((c, below) for c in reversed(children.get(index, [])))
    return out


def read_runtime(records: Iterable[tuple[str, dict[str, Any]]]) -> RuntimeEvidence:
    """Runtime evidence from ``(evidenceId, record)`` pairs in membership order."""
    evidence = RuntimeEvidence()
    traces: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for evidence_id, record in records:
        evidence.records += 1
        kind = record.get("kind")
        if kind == "span":
            evidence.spans += 1
            trace = str(record.get("traceId") or "")
            ref = f"{evidence_id}#span:{trace}:{record.get('spanId')}"
            traces.setdefault(trace, []).append((ref, record))
        else:
            _structured(evidence, evidence_id, record)
    for trace, spans in sorted(traces.items()):
        ordered = _trace_order(spans)
        classes_under: dict[str, set[str]] = {}
        for _, span, ancestors in ordered:
            found = _action_classes(span)
            if found:
                for ancestor in ancestors:
                    classes_under.setdefault(ancestor, set()).update(found)
        for ref, span, _ in ordered:
            if _is_agent(span):
                evidence.agent_runs += 1
            tool = _tool_of(span)
            if tool is not None:
                evidence.add_call(
                    ToolCall(
                        tool=tool[0],
                        evidence_ref=ref,
                        trace=trace,
                        error=_error(span),
                        vocabulary=tool[1],
                        arguments=_arguments(span),
                        action_classes=tuple(sorted(classes_under.get(str(span.get("spanId")), set()))),
                    )
                )
                continue
            guard = _guardrail(span)
            if guard is not None:
                evidence.gates.append(ObservedGate("guardrail", guard[0], guard[1], ref, trace))
    return evidence


def _structured(evidence: RuntimeEvidence, evidence_id: str, record: dict[str, Any]) -> None:
    """A structured or log record: ``type`` (or ``kind``/``eventType``) tool_call, approval or guardrail."""
    fields: dict[str, Any] = record.get("fields") if isinstance(record.get("fields"), dict) else record  # type: ignore[assignment]
    kind = _text(fields.get("type") or fields.get("eventType") or fields.get("kind")) or ""
    trace = _text(fields.get("traceId") or fields.get("sessionId") or fields.get("runId")) or ""
    index = record.get("index", evidence.records - 1)
    ref = f"{evidence_id}#record:{_text(fields.get('eventId')) or index}"
    tool = _text(fields.get("tool") or fields.get("toolName") or fields.get("gen_ai.tool.name"))
    if kind in ("tool_call", "tool.call", "execute_tool") and tool:
        classes = fields.get("actionClass")
        evidence.add_call(
            ToolCall(
                tool=tool,
                evidence_ref=ref,
                trace=f"record:{trace}",
                error=_text(fields.get("error") or fields.get("error.type")),
                vocabulary="structured",
                arguments=_text(fields.get("arguments")),
                action_classes=(str(classes),) if isinstance(classes, str) else (),
            )
        )
    elif kind in ("state", "transition") and _text(fields.get("state")):
        evidence.steps.append((f"record:{trace}", str(_text(fields.get("state"))), ref))
    elif kind in ("approval", "human_approval", "guardrail"):
        verdict = _text(fields.get("verdict") or fields.get("decision") or fields.get("outcome")) or "unknown"
        evidence.gates.append(
            ObservedGate(
                "guardrail" if kind == "guardrail" else "human_approval",
                verdict.lower(),
                tool or _text(fields.get("target")),
                ref,
                f"record:{trace}",
            )
        )
