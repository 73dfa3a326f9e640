"""The tree's functions as the linker sees them, and the resolution of callee names to them.

A ``Fn`` is one function of the tree with its calls, actions, returns and gates (a redefinition in the
same file adds to it); the linker fills its resolved ``edges`` and ``targets``. ``Resolver`` turns the
callee names the analyzers record into function ids (see ``link.py`` for the rules).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from assay.backend.engines.static.facts import (
    ActionSite,
    CallFact,
    FileFacts,
    FunctionFacts,
    GateSite,
    ModelSite,
    TaintOrigin,
)
from assay.backend.engines.static.link.sources import without_package
from assay.backend.engines.static.pyast.base import PROTOCOLS
from assay.backend.scans.bundle import Location

MAX_DEPTH = 12
# Project path aliases the JS/TS analyzer names as modules of the tree (``~/utils/x#name``).
TREE_ALIASES = ("@/", "~/")
# Parameters that never carry model-chosen values into a tool's function.
_RECEIVER_PARAMS = frozenset({"self", "cls"})
NON_TOOL_PARAMS = _RECEIVER_PARAMS | {"ctx", "context", "run_context", "config", "callbacks", "run_manager"}


@dataclass
class Fn:
    id: str
    facts: FunctionFacts
    path: str
    language: str
    calls: list[CallFact]
    actions: list[ActionSite]
    returns: list[TaintOrigin]
    gates: list[GateSite]
    # The function's parameters (its facts' ``params``, read very often).
    params: list[str]
    # Calls resolved to functions in the tree: (callee function id, the call).
    edges: list[tuple[str, CallFact]] = field(default_factory=list)
    # Calls by callee name, for reading ``call_return`` origins at their call sites.
    by_callee: dict[str, list[CallFact]] = field(default_factory=dict)
    targets: dict[str, str | None] = field(default_factory=dict)
    # Calls on a function's result that are model calls (``llm().invoke(...)`` with ``llm`` returning a chat
    # model): callee name -> where the first is made; their results are model output (see ``returned``).
    model_calls: dict[str, Location] = field(default_factory=dict)
    # Those calls as model uses (a model call through a helper's client is a model use where it is made).
    models: list[ModelSite] = field(default_factory=list)
    # Calls on a parameter that every call of the function in the tree gives one known type (``client.put_object``
    # with ``helper(s3, key)`` the only call, ``s3 = boto3.client("s3")``): read as calls on that type, no longer
    # unresolved (see ``returned``).
    typed: set[str] = field(default_factory=set)
    # Calls on a name bound to a conditional choice (``store.save`` with ``Store = A if x else B``): callee ->
    # the functions of the tree each alternative's call is (the first is ``targets``' own).
    also: dict[str, list[str]] = field(default_factory=dict)


def function_graph(files: Sequence[FileFacts]) -> dict[str, Fn]:
    """Functions by id; a redefinition in the same file (same id) adds its calls and actions."""
    functions: dict[str, Fn] = {}
    for facts in files:
        for function in facts.functions:
            known = functions.get(function.id)
            if known is None:
                functions[function.id] = Fn(
                    id=function.id,
                    facts=function,
                    path=facts.path,
                    language=facts.language,
                    calls=list(function.calls),
                    actions=list(function.actions),
                    returns=list(function.returns),
                    gates=list(function.gates),
                    params=function.params,
                )
            else:
                known.calls.extend(function.calls)
                known.actions.extend(function.actions)
                known.returns.extend(function.returns)
    return functions


class Resolver:
    """Callee names -> function ids, exactly or by a dotted suffix on a segment boundary, or through
    the modules that re-export a name (JS/TS ``export { X } from "./x"``, ``export * from``)."""

    def __init__(
        self,
        functions: dict[str, Fn],
        heads: frozenset[str] = frozenset(),
        reexports: dict[str, list[str]] | None = None,
        typed: dict[str, str] | None = None,
        values: Iterable[str] = (),
        bases: dict[str, list[str]] | None = None,
    ) -> None:
        self.heads = heads
        self.reexports = reexports or {}
        # Python names and class fields of the tree by the type they hold (``pkg.db.Deps.database`` ->
        # ``pkg.db.Database``): ``deps.database.run`` of a ``Deps`` from another module is ``Database.run``.
        self.typed = typed or {}
        # Python classes' bases by the class's qualname (``FileFacts.classBases``): a method a class does not
        # define is looked up in its bases, in order (``pkg.tools.DeleteTool._client`` -> ``pkg.base.Base._client``).
        self.bases = bases or {}
        self.exact: dict[str, str] = {}
        # Qualnames defined in several files: a method of an interface or base class, defined by each
        # implementing class (JS/TS), is called on all of them.
        self.every: dict[str, list[str]] = {}
        self.suffix: dict[str, list[str]] = {}
        for fid in sorted(functions):
            qualname = functions[fid].facts.qualname
            first = self.exact.setdefault(qualname, fid)
            if first != fid and "#" in qualname:
                self.every.setdefault(qualname, [first]).append(fid)
            if "#" in qualname:
                continue
            parts = qualname.split(".")
            for start in range(1, len(parts) - 1):
                self.suffix.setdefault(".".join(parts[start:]), []).append(fid)
        self.functions = functions
        # Modules of the tree (JS/TS), for names imported through a project path alias (``~/utils/x``):
        # those defining functions, re-exporting, or holding top-level values (``values``: ``export const
        # db = new PrismaClient()`` alone in ``src/utils/db``).
        self.modules = sorted(
            {q.partition("#")[0] for q in self.exact if "#" in q}
            | {n.partition("#")[0] for n in self.reexports}
            | {n.partition("#")[0] for n in values if "#" in n}
        )
        self._aliased: dict[str, str | None] = {}
        # ``resolve``'s answers that hold from any caller, by (callee, depth); ``_ranked`` counts the
        # times ``_closest`` chose among candidates by the caller's name.
        self._anywhere: dict[tuple[str, int], str | None] = {}
        self._ranked = 0
        # Callees found as a method a class inherits from a base (``Sub.close`` -> ``Base.close``): such a call names
        # the subclass, and runs no override of another subclass (``dispatched``).
        self.inherited: set[str] = set()
        # Whether the resolution under way went through a base, and the cached answers (``_anywhere``) that did.
        self._through_bases = False
        self._by_bases: set[tuple[str, int]] = set()
        # Python methods by the method of a base they override (``pkg.base.Base.run`` -> ``pkg.pg.Pg.run``, the
        # subclasses' subclasses too): a call on a value typed as the base runs whichever the value is.
        self.overrides: dict[str, list[str]] = self._overrides() if self.bases else {}

    def _overrides(self) -> dict[str, list[str]]:
        """Each method of a Python class with bases in the tree, under every method of its ancestors it overrides
        (each ancestor's nearest definition of the name, as ``resolve`` finds it through ``_inherited``)."""
        methods: dict[str, list[str]] = {}
        for fid in sorted(self.functions):
            fn = self.functions[fid]
            if fn.language == "python":
                owner, _, _ = fn.facts.qualname.rpartition(".")
                if owner in self.bases:
                    methods.setdefault(owner, []).append(fid)
        out: dict[str, list[str]] = {}
        for owner in sorted(methods):
            for fid in methods[owner]:
                name = self.functions[fid].facts.qualname.rpartition(".")[2]
                if name.startswith("__") and name.endswith("__"):
                    continue  # constructors and dunders are the class's own, never called through a base
                seen = {owner}
                queue = list(self.bases[owner])
                while queue:
                    base = queue.pop(0)
                    found = self.resolve(f"{base}.{name}", owner) if base not in seen else None
                    seen.add(base)
                    if found is None or found == fid:
                        continue
                    over = self.functions[found].facts.qualname
                    out.setdefault(found, []).append(fid)
                    queue.extend(self.bases.get(over.rpartition(".")[0], ()))
        protocols = sorted(c for c, bases in self.bases.items() if not PROTOCOLS.isdisjoint(bases))
        if protocols:
            self._implementations(protocols, out)
        return out

    def _implementations(self, protocols: list[str], out: dict[str, list[str]]) -> None:
        """A protocol's methods (``class Store(Protocol)``) under each method of the same name of every class of the
        tree defining all of them (whether or not it names the protocol as a base): the classes implementing it."""
        owners: dict[str, dict[str, str]] = {}
        for fid in sorted(self.functions):
            fn = self.functions[fid]
            if fn.language == "python" and fn.params[:1] == ["self"]:
                owner, _, name = fn.facts.qualname.rpartition(".")
                owners.setdefault(owner, {}).setdefault(name, fid)
        for protocol in protocols:
            wanted = {
                n: f for n, f in owners.get(protocol, {}).items() if not (n.startswith("__") and n.endswith("__"))
            }
            if not wanted:
                continue
            for owner in sorted(owners):
                methods = owners[owner]
                if owner == protocol or owner in protocols or not wanted.keys() <= methods.keys():
                    continue
                for name, fid in wanted.items():
                    found = out.setdefault(fid, [])
                    if methods[name] not in found:
                        found.append(methods[name])

    def dispatched(self, callee: str, target: str) -> list[str]:
        """The overrides a call of ``callee`` resolved to the method ``target`` also runs: every subclass's, when the
        call is on a value of the class defining ``target`` (typed so, or held in a field typed so); none when the call
        names a subclass that inherits ``target`` (``Sub().close()`` runs the base's ``close``, never a sibling's)."""
        found = self.overrides.get(target)
        return found if found and callee not in self.inherited else []

    def resolve(self, callee: str, caller: str, depth: int = 0) -> str | None:
        """The function ``callee`` names, as seen from the function or module ``caller``; failing
        that, the same name without the tree's own package name (``without_package``), or the name
        a re-exporting module stands for. An answer no caller could change (no candidates were ranked
        by the caller's name to find it: most callees, library calls above all) is kept per callee."""
        key = (callee, depth)
        if key in self._anywhere:
            self._through_bases = self._through_bases or key in self._by_bases
            return self._anywhere[key]
        ranked = self._ranked
        outer = self._through_bases
        self._through_bases = False
        found = self._resolve(callee, caller, depth)
        through = self._through_bases and found is not None
        if through:
            self._by_bases.add(key)
            if depth == 0:
                self.inherited.add(callee)
        if self._ranked == ranked:
            self._anywhere[key] = found
        self._through_bases = outer or through
        return found

    def _resolve(self, callee: str, caller: str, depth: int) -> str | None:
        for name in (callee, f"{callee}.__init__"):
            found = self.exact.get(name)
            if found is not None:
                return found
            candidates = self.suffix.get(name)
            if candidates:
                return self._closest(candidates, caller)
        if callee.startswith(TREE_ALIASES) and depth < 8:
            module, _, rest = callee.partition("#")
            found_module = self.aliased(module)
            return self.resolve(f"{found_module}#{rest}", caller, depth + 1) if found_module else None
        for stripped in without_package(callee, self.heads):
            return self.resolve(stripped, caller)
        if self.reexports and depth < 8:
            for name in self._reexported(callee) if "#" in callee else self._py_reexported(callee):
                found = self.resolve(name, caller, depth + 1)
                if found is not None:
                    return found
        if "#" not in callee and self.typed and depth < 8:
            held = self._field_typed(callee)
            if held is not None:
                found = self.resolve(held, caller, depth + 1)
                if found is not None:
                    return found
        if "#" not in callee and self.bases and depth < 8:
            for name in self._inherited(callee):
                found = self.resolve(name, caller, depth + 1)
                if found is not None:
                    self._through_bases = True
                    return found
        if "#" not in callee and "." in callee and depth == 0:
            # A module handed over where a function is expected (Strands ``tools=[calendar.create_event]``
            # with ``calendar/create_event.py``): the module's function of its own name.
            last = callee.rsplit(".", 1)[-1]
            return self.resolve(f"{callee}.{last}", caller, depth + 1)
        return None

    def _field_typed(self, callee: str) -> str | None:
        """``pkg.db.Deps.database.run`` where ``Deps.database`` is typed ``pkg.db.Database``: the method of
        the field's class (the longest typed prefix of the name that is not the whole of it)."""
        head = callee.rsplit(".", 1)[0]
        while "." in head:
            typed = self.typed.get(head)
            if typed is not None and typed != head:
                return typed + callee[len(head) :]
            head = head.rsplit(".", 1)[0]
        return None

    def _inherited(self, callee: str) -> list[str]:
        """``pkg.tools.DeleteTool._client.put_object`` where ``DeleteTool`` extends ``pkg.base.Base``: the same
        member of each base, in order (the longest prefix of the name that is a class with bases); a class with no
        constructor of its own is built by its bases' (``DeleteTool()`` runs ``Base.__init__``)."""
        return _carried_over(self.bases, callee, _first_segment(callee))

    def inherited_names(self, callee: str) -> list[str]:
        """``_inherited`` for the linker's other passes: the same member of each base of the class ``callee`` names,
        the package's among them (none when no class of the tree has bases)."""
        return self._inherited(callee) if self.bases and "#" not in callee else []

    def py_reexported(self, name: str) -> list[str]:
        """What the Python name ``name`` stands for through the packages that re-export it (none when no
        module re-exports a prefix of it)."""
        return self._py_reexported(name) if self.reexports else []

    def _py_reexported(self, callee: str) -> list[str]:
        """What ``pkg.root_agent.run`` names where ``pkg/__init__.py`` imports ``root_agent`` from
        ``pkg.agent`` (Python: the longest re-exported prefix of the dotted name)."""
        return _carried_over(self.reexports, callee, _first_segment(callee))

    def _reexported(self, callee: str) -> list[str]:
        """What ``types#Manager.cleanup`` names where ``types`` re-exports ``Manager`` from another module."""
        module, _, rest = callee.partition("#")
        found = _carried_over(self.reexports, callee, len(module))
        return found or [f"{t}{rest}" for t in self.reexports.get(f"{module}#*", ())]

    def aliased(self, module: str) -> str | None:
        """The module of the tree a path alias names (``~/utils/x`` -> ``src/utils/x``, as tsconfig
        ``paths`` map ``~/*`` or ``@/*`` to a source root): the module that is the rest of the path, or
        the only one ending with it; None when none or several do."""
        if module not in self._aliased:
            rest = module[2:]
            exact = [m for m in self.modules if m == rest]
            ending = exact or [m for m in self.modules if m.endswith(f"/{rest}")]
            self._aliased[module] = ending[0] if len(ending) == 1 else None
        return self._aliased[module]

    def origins(self, name: str, depth: int = 0) -> list[str]:
        """Every name a JS/TS name may stand for through path aliases and re-exports, nearest first
        (``mcp/tools#getDataTool`` -> ``mcp/tools/get-data-tool#getDataTool``), for joining tools."""
        if depth > 4 or "#" not in name:
            return []
        module, _, rest = name.partition("#")
        if module.startswith(TREE_ALIASES):
            found = self.aliased(module)
            out = [f"{found}#{rest}"] if found else []
        else:
            out = self._reexported(name) if self.reexports else []
        for each in list(out):
            out.extend(self.origins(each, depth + 1))
        return out

    def _closest(self, candidates: list[str], caller: str) -> str | None:
        if len(candidates) == 1:
            return candidates[0]
        self._ranked += 1
        origin = caller.split(".")
        scored: dict[int, list[str]] = {}
        for fid in candidates:
            parts = self.functions[fid].facts.qualname.split(".")
            shared = 0
            for mine, theirs in zip(origin, parts, strict=False):
                if mine != theirs:
                    break
                shared += 1
            scored.setdefault(shared, []).append(fid)
        best = scored[max(scored)]
        return best[0] if len(best) == 1 else None


def _carried_over(table: dict[str, list[str]], name: str, kept: int) -> list[str]:
    """What ``table`` holds for the longest prefix of the dotted ``name`` it has an entry for, among ``name`` and its
    prefixes cut at a dot that are longer than ``kept`` characters, with the rest of ``name`` carried over to each
    (``pkg.root_agent`` -> ``pkg.agent`` makes ``pkg.root_agent.run`` ``pkg.agent.run``); none when it holds no
    such prefix. ``kept``: a Python name's first segment (``_first_segment``), a JS/TS name's module."""
    head = name
    while len(head) > kept:
        targets = table.get(head)
        if targets:
            rest = name[len(head) :]
            # A namespace a JS/TS module re-exports (``export * as ns``) is a module: ``ns.x`` is its ``#x``.
            return [t + rest[1:] if t.endswith("#") and rest.startswith(".") else t + rest for t in targets]
        cut = head.rfind(".")
        if cut < 0:
            break
        head = head[:cut]
    return []


def _first_segment(name: str) -> int:
    """The length of a dotted name's first segment, the whole name when it has one only: a Python name is looked up
    by its prefixes that keep at least one dot (``pkg.mod``, never ``pkg`` alone)."""
    cut = name.find(".")
    return cut if cut >= 0 else len(name)
