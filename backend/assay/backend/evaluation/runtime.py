"""Runtime evidence read as what the system was seen doing: tool calls, agent runs and gates.

The input is the ingested batches of a membership (docs/intake.md), each with the id of the evidence
item it came from: normalized records, or the stored content of an OTLP traces batch, whose spans are
read directly with only the attributes named here. Spans of several vocabularies describe a tool call; all of them become one
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

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from assay.backend.intake.adapters import otlp_traces

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


# Evidence references kept per observed tool (the first in trace order); counts are always whole.
REFS_PER_TOOL = 10


@dataclass(slots=True)
class ToolStats:
    """Every call of one tool name: counted as read, the first references kept."""

    count: int = 0
    errors: int = 0
    vocabularies: set[str] = field(default_factory=set)
    # Action classes shown by spans under its calls (semantic-convention attributes).
    classes: set[str] = field(default_factory=set)
    refs: list[str] = field(default_factory=list)


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

    tools: dict[str, ToolStats] = field(default_factory=dict)
    gates: list[ObservedGate] = field(default_factory=list)
    # The declared scenarios' state names, and per trace the ones seen, in trace order with their
    # evidence refs: tool calls by tool name and structured ``state`` records, for the scenario snapshot.
    states: frozenset[str] = frozenset()
    steps: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    calls: int = 0
    agent_runs: int = 0
    spans: int = 0
    records: int = 0

    @property
    def present(self) -> bool:
        return self.records > 0

    def add_call(
        self, tool: str, ref: Callable[[], str], trace: str, error: bool, vocabulary: str, classes: set[str] | None
    ) -> None:
        self.calls += 1
        stats = self.tools.get(tool)
        if stats is None:
            stats = self.tools[tool] = ToolStats()
        stats.count += 1
        stats.errors += error
        stats.vocabularies.add(vocabulary)
        if classes:
            stats.classes |= classes
        if len(stats.refs) < REFS_PER_TOOL:
            stats.refs.append(ref())
        if tool in self.states:
            self.add_step(trace, tool, ref())

    def add_step(self, trace: str, name: str, ref: str) -> None:
        if name not in self.states:
            return
        steps = self.steps.get(trace)
        if steps is None:
            steps = self.steps[trace] = []
        steps.append((name, ref))

    def state_sequences(self) -> dict[str, list[tuple[str, str]]]:
        """Per trace (sorted by id), the states seen in trace order as (name, evidence ref)."""
        return dict(sorted(self.steps.items()))


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


_ACTION_KEYS = frozenset(key for key, _ in _ACTION_ATTRIBUTES)
# The attributes that can make a span a tool call, an agent run or a guardrail: a span with none of them
# (most spans of a trace: HTTP, database, model calls) is only walked for its place in the tree.
_ROLE_KEYS = frozenset({"gen_ai.operation.name", "mcp.method.name", "openinference.span.kind", "traceloop.span.kind"})


def _action_classes(attrs: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for key, action_class in _ACTION_ATTRIBUTES:
        value = attrs.get(key)
        if value is None:
            continue
        if action_class == "db.write" and isinstance(value, str) and value.lstrip().upper().startswith(_READ_VERBS):
            found.add("db.read")
        else:
            found.add(action_class)
    return found


def _trace_order(spans: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """A trace's spans depth first from its roots, siblings in evidence order: (span index, parent's
    position in the returned order, or -1 for a root)."""
    by_id: dict[Any, int] = {}
    for i, span in enumerate(spans):
        by_id.setdefault(span.get("spanId"), i)
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, span in enumerate(spans):
        parent = by_id.get(span.get("parentSpanId"))
        if parent is None or parent == i:
            roots.append(i)
        else:
            children.setdefault(parent, []).append(i)
    out: list[tuple[int, int]] = []
    seen: set[int] = set()
    stack: list[tuple[int, int]] = [(r, -1) for r in reversed(roots)]
    while stack:
        index, parent_position = stack.pop()
        if index in seen:  # a cycle in parent ids: each span once
            continue
        seen.add(index)
        position = len(out)
        out.append((index, parent_position))
        below = children.get(index)
        if below:
            stack.extend((c, position) for c in reversed(below))
    if len(out) < len(spans):  # spans on a cycle of parents: no root reaches them; keep evidence order
        out.extend((i, -1) for i in range(len(spans)) if i not in seen)
    return out


# Every span attribute the reader looks at (below and in _ACTION_ATTRIBUTES); a span's other attributes
# are never read from stored OTLP content.
_READ_KEYS = frozenset(
    {
        *_ROLE_KEYS,
        *_ACTION_KEYS,
        "gen_ai.tool.name",
        "mcp.tool.name",
        "tool.name",
        "traceloop.entity.name",
        "error.type",
        "gen_ai.guardrail.decision",
        "gen_ai.guardrail.verdict",
        "guardrail.verdict",
        "guardrail.decision",
        "gen_ai.guardrail.target",
        "guardrail.target",
    }
)
# Span names that make a span a tool call or a guardrail without any of those attributes.
_NAMED = ("execute_tool", "run_guardrail")

Batch = list[dict[str, Any]] | bytes


def read_runtime(batches: Iterable[tuple[str, Batch]], states: frozenset[str] = frozenset()) -> RuntimeEvidence:
    """Runtime evidence from ``(evidenceId, batch)`` pairs in membership order, a batch being its normalized
    records or the stored content of an OTLP traces batch (read span by span, only the attributes above);
    ``states`` are the declared scenarios' state names, the only steps kept for the scenario snapshot."""
    evidence = RuntimeEvidence(states=states)
    traces: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}

    for evidence_id, batch in batches:
        read: Iterable[tuple[str, dict[str, Any]]]
        if isinstance(batch, bytes):
            read = otlp_traces.span_views(batch, _READ_KEYS, _NAMED)
        else:
            read = _spans_of_records(evidence, evidence_id, batch)
        for trace, span in read:
            evidence.records += 1
            entry = traces.get(trace)
            if entry is None:
                entry = traces[trace] = ([], [])
            entry[0].append(evidence_id)
            entry[1].append(span)
    memo: dict[Any, _Role] = {}
    for trace in sorted(traces):
        evidence_ids, spans = traces[trace]
        evidence.spans += len(spans)
        _read_trace(evidence, trace, evidence_ids, spans, memo)
    return evidence


def _spans_of_records(
    evidence: RuntimeEvidence, evidence_id: str, records: list[dict[str, Any]]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The span records of a batch of records with their trace ids; its other records read as they come
    (counted here, the spans by the caller)."""
    for record in records:
        if record.get("kind") == "span":
            yield str(record.get("traceId") or ""), record
        else:
            evidence.records += 1
            _structured(evidence, evidence_id, record)


# What one span is to the reader: (kind, first, second, error, shows an action class). kind "agent"; "tool"
# with the tool's name, the vocabulary and whether the call failed; "guardrail" with verdict and target;
# "" for a span that is none of them (walked only for its place in the tree).
_Role = tuple[str, str | None, str | None, bool, bool]


def _role(span: dict[str, Any]) -> _Role:
    attrs = span.get("attributes") or {}
    acts = not _ACTION_KEYS.isdisjoint(attrs)
    if _ROLE_KEYS.isdisjoint(attrs) and not str(span.get("name") or "").startswith(_NAMED):
        return "", None, None, False, acts
    if _is_agent(span):
        return "agent", None, None, False, acts
    tool = _tool_of(span)
    if tool is not None:
        return "tool", tool[0], tool[1], _error(span) is not None, acts
    guard = _guardrail(span)
    if guard is not None:
        return "guardrail", guard[0], guard[1], False, acts
    return "", None, None, False, acts


def _roles(spans: list[dict[str, Any]], memo: dict[Any, _Role]) -> list[_Role]:
    """Each span's role. A role depends only on the span's name, status code and attributes: spans alike
    in those (the calls of one tool) are classified once."""
    roles = []
    for span in spans:
        attrs = span.get("attributes") or {}
        key = (span.get("name"), (span.get("status") or {}).get("code"), *attrs.items())
        try:
            role = memo.get(key)
        except TypeError:  # a list value: not hashable, classified on its own
            roles.append(_role(span))
            continue
        if role is None:
            role = memo[key] = _role(span)
        roles.append(role)
    return roles


def _counted_unordered(evidence: RuntimeEvidence, roles: list[_Role]) -> bool:
    """Count a trace's agent runs and tool calls without ordering it, when its order cannot change what is
    kept: no span shows an action class, it has no guardrail, and every tool it calls has its evidence
    references already and is no scenario state. False (nothing counted) otherwise."""
    agents = 0
    calls: list[tuple[ToolStats, str, bool]] = []
    for kind, first, second, error, acts in roles:
        if acts or kind == "guardrail":
            return False
        if kind == "agent":
            agents += 1
        elif kind == "tool":
            assert first is not None and second is not None
            stats = evidence.tools.get(first)
            if stats is None or len(stats.refs) < REFS_PER_TOOL or first in evidence.states:
                return False
            calls.append((stats, second, error))
    evidence.agent_runs += agents
    evidence.calls += len(calls)
    for stats, vocabulary, error in calls:
        stats.count += 1
        stats.errors += error
        stats.vocabularies.add(vocabulary)
    return True


def _read_trace(
    evidence: RuntimeEvidence,
    trace: str,
    evidence_ids: list[str],
    spans: list[dict[str, Any]],
    memo: dict[Any, _Role],
) -> None:
    roles = _roles(spans, memo)
    if _counted_unordered(evidence, roles):
        return
    order = _trace_order(spans)
    # Action classes shown by the spans strictly below each position (children come after their parent
    # in depth-first order, so one backward pass carries each span's own classes and its descendants' up).
    below: dict[int, set[str]] = {}
    for position in range(len(order) - 1, -1, -1):
        index, parent = order[position]
        own = _action_classes(spans[index].get("attributes") or {}) if roles[index][4] else None
        mine = below.get(position)
        if own:
            mine = own if mine is None else mine | own
        if mine and parent >= 0:
            below.setdefault(parent, set()).update(mine)
    for position, (index, _) in enumerate(order):
        kind, first, second, error, _ = roles[index]
        if kind == "agent":
            evidence.agent_runs += 1
        elif kind == "tool":
            assert first is not None and second is not None
            evidence.add_call(
                first,
                partial(_span_ref, evidence_ids[index], trace, spans[index]),
                trace,
                error,
                second,
                below.get(position),
            )
        elif kind == "guardrail":
            assert first is not None
            ref = _span_ref(evidence_ids[index], trace, spans[index])
            evidence.gates.append(ObservedGate("guardrail", first, second, ref, trace))


def _span_ref(evidence_id: str, trace: str, span: dict[str, Any]) -> str:
    return f"{evidence_id}#span:{trace}:{span.get('spanId')}"


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
            tool,
            lambda: ref,
            f"record:{trace}",
            bool(fields.get("error") or fields.get("error.type")),
            "structured",
            {classes} if isinstance(classes, str) else None,
        )
    elif kind in ("state", "transition") and _text(fields.get("state")):
        evidence.add_step(f"record:{trace}", str(_text(fields.get("state"))), ref)
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
