"""What one function body knows while the analyzer walks it, and the taint values it holds."""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.backend.engines.static.facts import (
    ActionSite,
    CallFact,
    GateSite,
    TaintOrigin,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.syntax import child_nodes
from assay.backend.scans.bundle import Location

NO_TAINT: frozenset[TaintOrigin] = frozenset()
MODULE_PARAMS: list[str] = []


@dataclass(slots=True)
class Branch:
    """The facts one named branch of a function added: ``[start, end)`` of its calls and actions."""

    name: str
    location: Location
    calls: tuple[int, int]
    actions: tuple[int, int]


@dataclass(slots=True)
class Scope:
    """What one function body knows while it is walked."""

    qualname: str
    params: list[str]
    types: dict[str, str] = field(default_factory=dict)
    taint: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    gate_vars: dict[str, tuple[str, str]] = field(default_factory=dict)  # var -> (gate id, polarity)
    # Names holding the yes/no answer of a check of this file (``ok, why = is_safe(cmd)``): the gates
    # that hold when the answer is yes (``GateLogic._verdict``).
    verdict_vars: dict[str, frozenset[str]] = field(default_factory=dict)
    # What the helper whose answer a verdict name holds refuses with (``path is None``), when it hands back a
    # value or refuses (``GateLogic._refused``); empty for a yes/no answer.
    refusals: dict[str, frozenset[object]] = field(default_factory=dict)
    # Names holding the answer of a helper of this file that hands back a message when a check fails and nothing
    # when it passes (``error = validate_sql(sql)``): the gates that hold when the name is empty.
    errors: dict[str, frozenset[str]] = field(default_factory=dict)
    # Gates that hold from the point they are reached, even when their result is only assigned.
    unconditional: set[str] = field(default_factory=set)
    gate_ids: set[str] = field(default_factory=set)
    # ``if ".." in path: return``: path containment only where no other containment check of the function
    # holds as well (beside ``resolved.is_relative_to(root)`` the step test decides nothing more).
    step_checks: set[str] = field(default_factory=set)
    # What the value a check of a value tests may carry (``if agg not in {...}: return``): allow-list and
    # path containment gate id -> the taint origins of the names its test reads (``GateLogic._note_checked``).
    checked: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    # What the function gave each callee whose result is a ``call_return`` origin (its arguments' and
    # receiver's taint, over every call of it here, from the function's first check of a value on): what that
    # result may be made of (``checked.reached``).
    given: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    # Gates that hold once the current statement is done, met inside an expression (``interrupt(...)["ok"]``).
    pending: set[str] = field(default_factory=set)
    # What held at each ``return`` of a value, recorded only while a helper is summarised (``_exit_gates``).
    # Each with whether the return is a message (``return f"Error: {p}"``), a refusal to a helper that hands
    # back a value (``_refusing_sites``).
    exits: list[tuple[frozenset[str], bool]] | None = None
    # Names bound in enclosing functions (closures), and bare callees already reported unresolved.
    outer: frozenset[str] = frozenset()
    reported: set[str] = field(default_factory=set)
    calls: list[CallFact] = field(default_factory=list)
    actions: list[ActionSite] = field(default_factory=list)
    gates: list[GateSite] = field(default_factory=list)
    returns: set[TaintOrigin] = field(default_factory=set)
    # Variables holding a library tool instance (``search = SerperDevTool()``): the call and its name.
    library_vars: dict[str, tuple[ast.Call, str]] = field(default_factory=dict)
    # Variables holding a list a tools argument may name (``tools = [f]; tools.append(g)``): its elements.
    list_vars: dict[str, list[ast.expr]] = field(default_factory=dict)
    # Loop and comprehension variables, and lists filtered from another (``[t for t in tools if ...]``):
    # the iterable each draws from, read when a tool is named after a field of it (``name=t["method"]``).
    iterables: dict[str, ast.expr] = field(default_factory=dict)
    # Names a ``for`` binds from a tuple element (``for func, schema in pairs:``): the iterable.
    loop_items: dict[str, ast.expr] = field(default_factory=dict)
    # Tainted values stored in the instance's fields (``self.command = command``): field key -> origins.
    field_writes: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    # A graph node's state parameter and its state class (``def node(state: State)``), else None
    # (``graph_state.py``): its keys read and written are fields of that class.
    state: tuple[str, str] | None = None
    # Locals the function declares with an annotation naming a class (``creds: Credentials | None = None``): the
    # class, which a later binding to that class's factory (``Credentials.from_authorized_user_file(p)``) or to
    # nothing known keeps.
    declared: dict[str, str] = field(default_factory=dict)
    # What each ``return`` of a value gives, as a package class it constructs (None: something else).
    return_types: set[str | None] = field(default_factory=set)
    # The package classes the items of a returned tuple construct (``return chain, db``).
    return_items: set[str] = field(default_factory=set)
    # Files opened for writing (``with open(f"{pid}.py", "w") as f:``): the handle -> the names its path
    # is made of, which carry what is written to it (``f.write(code)``) to whatever names that path later.
    written_files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Paths spelled as literals that the function wrote what a value carries to (``open("gen.py", "w")``): a
    # literal naming one later (``subprocess.run(["python", "gen.py"])``) carries it (``taint.written_path``).
    literal_paths: tuple[str, ...] = ()
    # Named branches (``if name == NAME:``, ``case NAME:``) and the facts each added (``dispatch.py``).
    branches: list[Branch] = field(default_factory=list)
    # Whether the body defines functions or classes (``_walk_block`` meets every one ``definitions``
    # finds): most do not, and need no search for them.
    defines: bool = False
    # The function this scope walks (None for a module or class body): what its own statements bind is
    # read from it when asked (``local_constant``).
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None


NO_CALLEE: tuple[None, None, None, bool] = (None, None, None, False)
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BLOCK_KINDS = frozenset({ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While})
DEFINITION_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def definitions(body: Sequence[ast.stmt]) -> list[Definition]:
    """The functions and classes a block defines, including those under ``if``/``try``/``with``/loops
    (``if TYPE_CHECKING:``, ``try: ... except ImportError: def f(): ...``), not those inside them."""
    found: list[Definition] = []
    _add_definitions(body, found)
    return found


def _add_definitions(body: Sequence[ast.stmt], found: list[Definition]) -> None:
    for stmt in body:
        kind = type(stmt)
        if kind in DEFINITION_KINDS:
            found.append(stmt)  # type: ignore[arg-type]
        elif kind in _BLOCK_KINDS:
            for name in ("body", "orelse", "finalbody"):
                _add_definitions(getattr(stmt, name, ()), found)
            for handler in getattr(stmt, "handlers", ()):
                _add_definitions(handler.body, found)
        elif kind is ast.Match:
            for case in stmt.cases:  # type: ignore[attr-defined]
                _add_definitions(case.body, found)


@functools.lru_cache(maxsize=1 << 12)
def param_taint(name: str, index: int) -> frozenset[TaintOrigin]:
    """A parameter's own taint (shared: parameter names and positions repeat across a tree)."""
    return frozenset({TaintOrigin(kind="param", param=name, index=index)})


@functools.lru_cache(maxsize=1 << 16)
def call_return(callee: str) -> frozenset[TaintOrigin]:
    """The taint of a value returned by ``callee`` (shared: callees repeat across a tree)."""
    return frozenset({TaintOrigin(kind="call_return", callee=callee)})


def model_output(location: Location) -> frozenset[TaintOrigin]:
    """The taint of what the model call at ``location`` answers (made without validation: every field given)."""
    return frozenset(
        {trusted(TaintOrigin, kind="model_output", location=location, param=None, index=None, callee=None)}
    )


def origin_key(origin: TaintOrigin) -> tuple[str, int, int, str, str]:
    loc = origin.location
    return (origin.kind, loc.line if loc else 0, loc.column if loc else 0, origin.param or "", origin.callee or "")


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@functools.lru_cache(maxsize=256)
def _local_constants(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """The names ``fn``'s own statements bind only ever to one string literal (``name = "pkg.mod"``, once
    or always the same), and nothing else: a loop target, an augmented assignment, a ``with ... as``, a
    walrus, a ``global`` or ``nonlocal`` declaration or another value makes a name not constant."""
    values: dict[str, str | None] = {}
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                values[name] = None
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.value if isinstance(node.value, ast.Constant) else None
            name = node.targets[0].id
            text = value if isinstance(value, str) else None
            values[name] = text if values.get(name, text) == text and text is not None else None
            stack.append(node.value)
            continue
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            values[node.id] = None
        stack.extend(child_nodes(node))
    return {name: text for name, text in values.items() if text is not None}


def local_constant(scope: Scope, name: str) -> str | None:
    """The one string literal a local of the function ``scope`` walks is ever bound to, if so."""
    return _local_constants(scope.function).get(name) if scope.function is not None else None
