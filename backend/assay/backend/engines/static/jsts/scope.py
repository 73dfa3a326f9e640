"""What the analyzer knows inside one function while it walks it: bindings, taint, gates, facts so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from tree_sitter import Node

from assay.backend.engines.static.facts import ActionSite, ArgTaint, CallFact, GateSite, TaintOrigin

Taint = frozenset[TaintOrigin]
EMPTY: Taint = frozenset()


# Taint origins are frozen values: the same parameter or callee is the same origin wherever it occurs,
# so one instance is shared instead of building (and validating) a model for every occurrence.
# The name a path spelled as a literal is carried under in ``Scope.taint`` (no identifier holds a NUL).
LITERAL_PATH = "\x00path:"


@lru_cache(maxsize=8192)
def param_taint(param: str, index: int) -> Taint:
    """What a function's parameter ``param`` (at position ``index``) carries on entry."""
    return frozenset({TaintOrigin(kind="param", param=param, index=index)})


@lru_cache(maxsize=8192)
def call_return_taint(callee: str) -> Taint:
    """What a call to the function ``callee`` of the tree returns."""
    return frozenset({TaintOrigin(kind="call_return", callee=callee)})


@lru_cache(maxsize=8192)
def callback_origin(callee: str, index: int) -> Taint:
    """What the function ``callee`` of the tree passes to the function its callers give at argument
    ``index`` when it calls it (a ``field`` origin the linker gathers, under ``<callee>|callback:<index>``)."""
    return frozenset({TaintOrigin(kind="field", callee=f"{callee}|callback:{index}")})


@dataclass(frozen=True, slots=True)
class Cond:
    """What a condition proves: gates passed when it is true (``t``) or false (``f``), and the names
    it allow-lists in each case (``t_clean``/``f_clean``: their values are no longer model-chosen)."""

    t: frozenset[str] = frozenset()
    f: frozenset[str] = frozenset()
    t_clean: frozenset[str] = frozenset()
    f_clean: frozenset[str] = frozenset()

    def negate(self) -> Cond:
        return Cond(t=self.f, f=self.t, t_clean=self.f_clean, f_clean=self.t_clean)

    def both(self, other: Cond) -> Cond:
        """``self && other``."""
        return Cond(
            t=self.t | other.t,
            f=self.f & other.f,
            t_clean=self.t_clean | other.t_clean,
            f_clean=self.f_clean & other.f_clean,
        )

    def either(self, other: Cond) -> Cond:
        """``self || other``."""
        return self.negate().both(other.negate()).negate()

    def __bool__(self) -> bool:
        return bool(self.t or self.f or self.t_clean or self.f_clean)


NO_COND = Cond()


@dataclass(slots=True)
class Scope:
    """One function's state. Inline callbacks get a ``child`` that shares the facts lists (their calls
    and actions belong to the enclosing function) but has its own bindings and return values."""

    qualname: str
    params: list[str]
    cls: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    taint: dict[str, Taint] = field(default_factory=dict)
    gate_vars: dict[str, Cond] = field(default_factory=dict)
    consts: dict[str, str] = field(default_factory=dict)
    # Names bound to ``value ?? "literal"`` / ``value || "literal"``: the literal, the default a model
    # option falls back to (``model: process.env.MODEL ?? "gpt-5"``).
    fallbacks: dict[str, str] = field(default_factory=dict)
    # Names bound to a client built for a model host (``new OpenAI({ baseURL: "http://localhost:11434/v1" })``):
    # the provider serving that host, whose calls the client makes.
    hosts: dict[str, str] = field(default_factory=dict)
    # Names bound to a choice between string literals (``const m = multi ? "updateMany" : "updateOne"``):
    # the literals, the methods a ``collection[m](...)`` may call.
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Names bound to a template whose substitutions are not constant: its text, each unknown value a
    # ``*`` (``const url = `${base}/orders/${id}/capture``` -> ``*/orders/*/capture``), read as a URL.
    shapes: dict[str, str] = field(default_factory=dict)
    # Callback parameters that are the elements of a list of records (``tools(ctx).forEach((tool) =>
    # ...)``, ``tools`` a function of the tree returning object literals): the list's name.
    elements: dict[str, str] = field(default_factory=dict)
    # Loop variables over a collection typed by a type of the tree (``for (const tool of this.tools)`` with
    # ``tools: Tool[]``): the type (``tool_classes`` ``note_elements``).
    element_types: dict[str, str] = field(default_factory=dict)
    # Paths spelled as literals that the function wrote what a value carries to (``writeFileSync("gen.js", code)``):
    # a literal naming one later (``execSync("node gen.js")``) carries it (``calls.written_to``).
    literal_paths: tuple[str, ...] = ()
    locals: dict[str, str] = field(default_factory=dict)
    dispatch_vars: set[str] = field(default_factory=set)
    # Names bound to a value found by a tool's name (``const tool = tools.get(name)``): ``tool_classes``.
    # Immutable, so child scopes share it without a copy (it is rarely written).
    found_vars: frozenset[str] = frozenset()
    calls: list[CallFact] = field(default_factory=list)
    actions: list[ActionSite] = field(default_factory=list)
    gates: list[GateSite] = field(default_factory=list)
    gate_ids: set[str] = field(default_factory=set)
    # What the value a check of a value tests may carry (``if (!ALLOWED.includes(cmd)) throw``): allow-list
    # and path containment gate id -> the taint of the names its condition reads (``checked.reached``).
    checked: dict[str, Taint] = field(default_factory=dict)
    # What the function gave each call of the tree whose result is a ``call_return`` origin (its arguments'
    # and receiver's taint, over every call of it here, from the function's first check of a value on): what
    # that result may be made of.
    given: dict[str, Taint] = field(default_factory=dict)
    # Checks met while ``holding`` (a value bound to a name, a ternary's condition): their sites wait here
    # until the check decides a path (``if (!ok) return``), and are never reported otherwise.
    pending: dict[str, GateSite] = field(default_factory=dict)
    holding: bool = False
    # Gates that hold where a name has one of some values: (name, values, gates), from ``if
    # (COLLECTION_OPS.includes(op)) { validate(c) }`` over a literal list (read by ``case "query":``).
    keyed: list[tuple[str, frozenset[str], frozenset[str]]] = field(default_factory=list)
    reported: set[str] = field(default_factory=set)
    returns: set[TaintOrigin] = field(default_factory=set)
    # Tainted values stored in the instance's fields (``this.command = command``): field key -> taint.
    field_writes: dict[str, Taint] = field(default_factory=dict)
    # A graph node's state parameter and its state type (``(state: typeof StateAnnotation.State)``), else
    # None (``graph_state.py``): the keys it reads and returns are fields of that state.
    state: tuple[str, str] | None = None
    # A promise executor's resolve parameter -> what the executor passes it (the promise's value); shared
    # with the callbacks inside it (``stream.on("end", () => resolve(data))``).
    settled: dict[str, set[TaintOrigin]] = field(default_factory=dict)
    # The resolved types of what the function returns (``return sandbox``, ``return new Client()``).
    return_types: set[str] = field(default_factory=set)
    # The top level's scope: its callbacks read its bindings through ``outer`` instead of copying them
    # (a file with thousands of top-level names and route handlers would otherwise copy quadratically).
    root: bool = False
    outer: dict[str, Taint] | None = None
    # The parameters of the innermost function being walked, when it is a callback analysed in place
    # (``params`` are then those of the function that owns the facts).
    inner_params: list[str] | None = None
    # Gates of calls that pause for a human (``interrupt(...)``) met in the statement being walked.
    pauses: list[str] = field(default_factory=list)
    # Every pause met in this scope, in order (``pauses`` is emptied by the block that moves past one).
    pause_log: list[str] = field(default_factory=list)
    # The gates that hold at every ``return`` walked so far (None: no return yet), and at every return
    # of a success result (``return { ok: true, ... }``).
    exits: frozenset[str] | None = None
    ok_exits: frozenset[str] | None = None
    # ... and at every return of a value (not ``null``, ``undefined`` or nothing).
    value_exits: frozenset[str] | None = None
    # Names bound to a value built from others (a template, a concatenation, a member): not a parameter
    # or a call's result passed on unchanged (see ``SiteLogic.value_shape``).
    assembled: set[str] = field(default_factory=set)
    # Names bound to text the code spells out piece by piece, though no one constant: an array every
    # element and push of which is such text, a lookup in an object of string literals (``text_maps``).
    # Shared with callbacks, so that a push of other text anywhere takes the name out.
    fixed: set[str] = field(default_factory=set)
    text_maps: set[str] = field(default_factory=set)
    # Lists that collect what failed a check (``if (!allowed(p)) refused.push(p)``): the gates that hold for
    # every value the list does not hold, so all of them where it is empty (``refused.length === 0``); a
    # list pushed to anywhere else is ``spoiled``. Shared with callbacks, as ``fixed`` is.
    failures: dict[str, frozenset[str]] = field(default_factory=dict)
    spoiled: set[str] = field(default_factory=set)
    # Walking a branch taken when a list is empty (``if (config.allowedPaths.length === 0) return { ok: true }``):
    # nothing is configured or there is nothing to check, so a success returned there says nothing of the checks.
    vacuous: bool = False
    # The function's parameters whose type the code does not say (none, ``any``, ``unknown``).
    opaque_params: frozenset[str] = frozenset()
    # What every ``return`` gives, while they agree (``returned`` says whether one was walked).
    return_shape: ArgTaint | None = None
    returned: bool = False
    # The top level's scope or one of its callbacks' (asked for every declaration: computed once).
    is_module: bool = field(init=False)

    def __post_init__(self) -> None:
        self.is_module = self.qualname.endswith("#<module>")

    def child(self) -> Scope:
        fresh = self.root
        return Scope(
            qualname=self.qualname,
            params=self.params,
            cls=self.cls,
            types={} if fresh else dict(self.types),
            taint={} if fresh else dict(self.taint),
            outer=self.taint if fresh else self.outer,
            gate_vars={} if fresh else dict(self.gate_vars),
            consts={} if fresh else dict(self.consts),
            fallbacks={} if fresh or not self.fallbacks else dict(self.fallbacks),
            hosts={} if fresh or not self.hosts else dict(self.hosts),
            choices={} if fresh or not self.choices else dict(self.choices),
            shapes={} if fresh or not self.shapes else dict(self.shapes),
            elements={} if fresh or not self.elements else dict(self.elements),
            element_types={} if fresh or not self.element_types else dict(self.element_types),
            literal_paths=() if fresh else self.literal_paths,
            locals={} if fresh else dict(self.locals),
            dispatch_vars=set() if fresh else set(self.dispatch_vars),
            found_vars=frozenset() if fresh else self.found_vars,
            assembled=set() if fresh else set(self.assembled),
            fixed=set() if fresh else self.fixed,
            text_maps=set() if fresh else self.text_maps,
            failures={} if fresh else self.failures,
            spoiled=set() if fresh else self.spoiled,
            vacuous=self.vacuous,
            opaque_params=self.opaque_params,
            calls=self.calls,
            actions=self.actions,
            gates=self.gates,
            gate_ids=self.gate_ids,
            checked=self.checked,
            given=self.given,
            pending=self.pending,
            reported=self.reported,
            field_writes=self.field_writes,
            settled=self.settled,
        )

    def detached(self, qualname: str, params: list[str]) -> Scope:
        """A function of its own inside this one (a tool's branch of a dispatch): this scope's bindings,
        its own facts, ``params`` as its parameters."""
        fresh = self.root
        return Scope(
            qualname=qualname,
            params=params,
            cls=self.cls,
            types={} if fresh else dict(self.types),
            taint={} if fresh else dict(self.taint),
            outer=self.taint if fresh else self.outer,
            gate_vars={} if fresh else dict(self.gate_vars),
            consts={} if fresh else dict(self.consts),
            fallbacks={} if fresh or not self.fallbacks else dict(self.fallbacks),
            hosts={} if fresh or not self.hosts else dict(self.hosts),
            choices={} if fresh or not self.choices else dict(self.choices),
            shapes={} if fresh or not self.shapes else dict(self.shapes),
            elements={} if fresh or not self.elements else dict(self.elements),
            element_types={} if fresh or not self.element_types else dict(self.element_types),
            literal_paths=() if fresh else self.literal_paths,
            locals={} if fresh else dict(self.locals),
            dispatch_vars=set() if fresh else set(self.dispatch_vars),
            found_vars=frozenset() if fresh else self.found_vars,
            assembled=set() if fresh else set(self.assembled),
            fixed=set() if fresh else set(self.fixed),
            text_maps=set() if fresh else set(self.text_maps),
            checked=dict(self.checked),
            given=dict(self.given),
        )

    def declared(self, name: str) -> bool:
        return (
            name in self.taint
            or name in self.locals
            or name in self.types
            or (self.outer is not None and name in self.outer)
        )

    def taint_of(self, name: str) -> Taint:
        found = self.taint.get(name)
        if found is None and self.outer is not None:
            found = self.outer.get(name)
        return found if found is not None else EMPTY

    def add_gate(self, gate: GateSite) -> str:
        if gate.id not in self.gate_ids:
            self.gate_ids.add(gate.id)
            self.gates.append(gate)
        return gate.id

    def check_site(self, gate: GateSite) -> str:
        """A check's site: reported now, or held in ``pending`` while ``holding``."""
        if self.holding:
            if gate.id not in self.gate_ids:
                self.pending.setdefault(gate.id, gate)
            return gate.id
        return self.add_gate(gate)

    def commit(self, cond: Cond) -> None:
        """The held sites of a check that now decides a path are reported."""
        for gate in (*cond.t, *cond.f):
            site = self.pending.pop(gate, None)
            if site is not None:
                self.add_gate(site)


@dataclass(frozen=True, slots=True)
class Pending:
    """A function to analyse after the current one: its node, names, and gates that hold on entry."""

    node: Node
    qualname: str
    name: str
    cls: str | None = None
    gates: tuple[GateSite, ...] = ()
    # The typed names of the function it is created in (a closure), when that is not the top level.
    types: dict[str, str] | None = None
    # The functions declared in the function it is created in (name -> qualname), likewise.
    locals: dict[str, str] | None = None
