"""Interprocedural taint over the resolved call graph: which model-chosen values reach each action.

A tool's parameters are model-chosen; model outputs are model-chosen. Both flow through call arguments
into callee parameters and out through return values, summarised per function (see ``Taint``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.backend.engines.static.facts import ArgTaint, CallFact, TaintOrigin, ToolDef
from assay.backend.engines.static.link.graph import MAX_DEPTH, NON_TOOL_PARAMS, Fn
from assay.backend.engines.static.link.sqlflow import param_for
from assay.backend.scans.bundle import Location

# Distinct sources kept per parameter: enough for every real tool graph, a bound for generated ones.
MAX_SOURCES = 32


@dataclass(frozen=True, slots=True)
class Source:
    kind: Literal["model_output", "tool_argument"]
    location: Location
    path: tuple[Location, ...]
    # Identifies the source (kind and location) whatever the path it came by; read very often.
    key: tuple[str, str, int, int]

    @classmethod
    def at(cls, kind: Literal["model_output", "tool_argument"], location: Location) -> Source:
        return cls(kind, location, (), (kind, location.path, location.line, location.column))

    def through(self, call: Location) -> Source:
        return Source(self.kind, self.location, (*self.path, call), self.key)


Sources = dict[tuple[str, str, int, int], Source]


class Taint:
    """Interprocedural taint over the resolved call graph.

    1. Return summaries, to a fixpoint: the sources each function returns whatever its callers pass
       (``direct``), and the parameters whose values reach its return (``through``).
    2. Parameter sources, over a worklist: tool parameters, then every tainted call argument into the
       callee's parameter, read in the caller's context (its own parameters' sources, and each
       ``call_return`` through the summaries with the arguments of that caller's calls).
    3. Every action's taint origins, read in its function's context.
    """

    def __init__(self, functions: dict[str, Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None]) -> None:
        self.functions = functions
        self.order = sorted(functions)
        self.direct: dict[str, Sources] = {fid: {} for fid in functions}
        self.through: dict[str, frozenset[str]] = {fid: frozenset() for fid in functions}
        self.params: dict[str, dict[str, Sources]] = {}
        # What methods store in instance fields (``self.command = command``), by field key.
        self.fields: dict[str, Sources] = {}
        # What a function's reads depend on besides the fixed summaries: its parameters' sources (a
        # count of the times they grew, per function) and the fields' (one count), so that a call
        # argument is read again only when one of them grew (``_passed``).
        self.grown: dict[str, int] = {}
        self.fields_grown = 0
        self.read_fields = False  # whether a read visited a field's sources
        self._passing: dict[str, list[tuple[str, Location, str, list[TaintOrigin]]]] = {}
        self._passed: dict[tuple[str, int], tuple[int, int, Sources]] = {}
        # ``_returned_args`` by (function, callee), once the summaries (``through``) are settled.
        self._returned: dict[tuple[str, str], list[tuple[CallFact, ArgTaint]]] | None = None
        # Model outputs as sources, by their whole location: made once, read by every ``_read`` that meets them.
        self._model_outputs: dict[tuple[str, int, int, int | None], Source] = {}
        for tool in tools:
            fid = tool_fn.get(tool.id)
            if fid is None:
                continue
            env = self.params.setdefault(fid, {})
            fn = functions[fid]
            # A JS/TS tool handler's first parameter is what the model sends, whatever its name
            # (``execute: async (context) => ...``); later ones (``ctx``, ``options``) are the framework's.
            first = fn.language != "python"
            for index, param in enumerate(fn.params):
                if (index == 0 and first) or param not in NON_TOOL_PARAMS:
                    source = Source.at("tool_argument", tool.location)
                    env.setdefault(param, {}).setdefault(source.key, source)
            if not first and tool.parameters and all(param in NON_TOOL_PARAMS for param in fn.params):
                # ``def run(self)`` of a tool class whose declared fields are the model's arguments (``self.command``).
                owner = fn.facts.qualname.rsplit(".", 1)[0]
                source = Source.at("tool_argument", tool.location)
                for field in tool.parameters:
                    self.fields.setdefault(f"{owner}.{field}", {}).setdefault(source.key, source)

    def flows(self) -> list[tuple[str, Source, bool]]:
        """Every (action site, source) flow, and whether it reaches a SQL sink through its SQL text
        (``sqlParam``) rather than through bound values."""
        self._summaries()
        self._returned = {}
        self._propagate()
        out: dict[tuple[str, tuple[str, str, int, int]], tuple[Source, bool]] = {}
        for fid in self.order:
            fn = self.functions[fid]
            env = self.params.get(fid, {})
            for site in fn.actions:
                if site.sqlParam is not None:
                    text = [o for o in site.taint if o.kind == "param" and o.param == site.sqlParam]
                    for source in self._read(fid, text, env).values():
                        out.setdefault((site.id, source.key), (source, True))
                for source in self._read(fid, site.taint, env).values():
                    out.setdefault((site.id, source.key), (source, False))
        return [(action_id, *out[(action_id, key)]) for action_id, key in sorted(out)]

    # ----- summaries ------------------------------------------------------------------------------

    def _summaries(self) -> None:
        """Return summaries over a worklist: a function is read again only when one it calls changed.
        Summaries only grow, so this terminates; the budget is a guard for pathological graphs."""
        callers: dict[str, set[str]] = {}
        for fid in self.order:
            for target, _call in self.functions[fid].edges:
                callers.setdefault(target, set()).add(fid)
        pending = [fid for fid in self.order if self.functions[fid].returns]
        queue = deque(pending)
        queued = set(pending)
        budget = 4 * MAX_DEPTH * max(len(pending), 1)
        while queue and budget > 0:
            budget -= 1
            fid = queue.popleft()
            queued.discard(fid)
            fn = self.functions[fid]
            through = self._params_reaching(fid, fn.returns, set())
            direct = self._read(fid, fn.returns, {})
            if through != self.through[fid] or direct.keys() != self.direct[fid].keys():
                self.through[fid] = through
                self.direct[fid] = direct
                for caller in sorted(callers.get(fid, ())):
                    if caller not in queued and self.functions[caller].returns:
                        queue.append(caller)
                        queued.add(caller)

    def _params_reaching(self, fid: str, origins: Iterable[TaintOrigin], seen: set[str]) -> frozenset[str]:
        out: set[str] = set()
        fn = self.functions[fid]
        for origin in origins:
            if origin.kind == "param" and origin.param is not None:
                out.add(origin.param)
            elif origin.kind == "call_return" and origin.callee and origin.callee not in seen:
                seen.add(origin.callee)
                for _call, arg in self._returned_args(fn, origin.callee):
                    out |= self._params_reaching(fid, arg.origins, seen)
        return frozenset(out)

    # ----- reading origins in a function's context ---------------------------------------------------

    def _returned_args(self, fn: Fn, callee: str) -> Iterable[tuple[CallFact, ArgTaint]]:
        """The arguments of ``fn``'s calls to ``callee`` whose values come back in its return value:
        those bound to a parameter the callee returns, or all of them for code outside the tree (kept
        once the summaries are settled)."""
        if self._returned is None:
            return self._returning(fn, callee)
        found = self._returned.get((fn.id, callee))
        if found is None:
            found = self._returned[(fn.id, callee)] = list(self._returning(fn, callee))
        return found

    def _returning(self, fn: Fn, callee: str) -> Iterator[tuple[CallFact, ArgTaint]]:
        target = fn.targets.get(callee)
        for call in fn.by_callee.get(callee, ()):
            for arg in call.args:
                if target is None:
                    yield call, arg
                else:
                    name = param_for(self.functions[target], arg)
                    if name is not None and name in self.through[target]:
                        yield call, arg

    def _read(self, fid: str, origins: Iterable[TaintOrigin], env: dict[str, Sources]) -> Sources:
        out: Sources = {}
        self._read_into(fid, origins, env, out, set())
        return out

    def _read_into(
        self, fid: str, origins: Iterable[TaintOrigin], env: dict[str, Sources], out: Sources, seen: set[str]
    ) -> None:
        fn = self.functions[fid]
        for origin in origins:
            if origin.kind == "model_output" and origin.location is not None:
                source = self._model_output(origin.location)
                out.setdefault(source.key, source)
            elif origin.kind == "param" and origin.param is not None:
                for key, source in env.get(origin.param, {}).items():
                    out.setdefault(key, source)
            elif origin.kind == "field" and origin.callee:
                self.read_fields = True
                for key, source in self.fields.get(origin.callee, {}).items():
                    out.setdefault(key, source)
            elif origin.kind == "call_return" and origin.callee and origin.callee not in seen:
                seen.add(origin.callee)
                model_call = fn.model_calls.get(origin.callee)
                if model_call is not None:
                    source = self._model_output(model_call)
                    out.setdefault(source.key, source)
                calls = fn.by_callee.get(origin.callee, ())
                at = calls[0].location if calls else None
                target = fn.targets.get(origin.callee)
                if target is not None:
                    for key, source in self.direct[target].items():
                        out.setdefault(key, source.through(at) if at is not None else source)
                for call, arg in self._returned_args(fn, origin.callee):
                    inner: Sources = {}
                    self._read_into(fid, arg.origins, env, inner, seen)
                    for key, source in inner.items():
                        out.setdefault(key, source.through(call.location) if target is not None else source)

    def _model_output(self, location: Location) -> Source:
        """``Source.at("model_output", location)``, made once per location (sources are immutable)."""
        whole = (location.path, location.line, location.column, location.endLine)
        found = self._model_outputs.get(whole)
        if found is None:
            found = self._model_outputs[whole] = Source.at("model_output", location)
        return found

    # ----- parameters ---------------------------------------------------------------------------------

    def _propagate(self) -> None:
        """Parameter sources to a fixpoint, then what methods store in fields; again while a field grows
        (a value stored by one method reaches the sinks of another: ``self.command`` set in
        ``__init__``, run in ``run``). Fields only grow, bounded by ``MAX_SOURCES``."""
        writers = [fid for fid in self.order if self.functions[fid].facts.fieldWrites]
        for _ in range(MAX_DEPTH):
            self._propagate_params()
            if not writers or not self._store_fields(writers):
                return

    def _store_fields(self, writers: list[str]) -> bool:
        grew = False
        for fid in writers:
            env = self.params.get(fid, {})
            for write in self.functions[fid].facts.fieldWrites:
                sources = self._read(fid, write.origins, env)
                into = self.fields.setdefault(write.field, {})
                for key in sorted(sources):
                    if key not in into and len(into) < MAX_SOURCES:
                        into[key] = sources[key]
                        grew = True
        if grew:
            self.fields_grown += 1
        return grew

    def _propagate_params(self) -> None:
        queue = deque(self.order)
        queued = set(self.order)
        while queue:
            fid = queue.popleft()
            queued.discard(fid)
            env = self.params.get(fid)
            for position, (target, at, name, origins) in enumerate(self._passes(fid)):
                sources = self._passed_sources(fid, position, origins, env)
                if not sources:
                    continue
                into = self.params.setdefault(target, {}).setdefault(name, {})
                grew = False
                for key in sorted(sources):
                    if key not in into and len(into) < MAX_SOURCES:
                        into[key] = sources[key].through(at)
                        grew = True
                if grew:
                    self.grown[target] = self.grown.get(target, 0) + 1
                    if target not in queued:
                        queue.append(target)
                        queued.add(target)

    def _passes(self, fid: str) -> list[tuple[str, Location, str, list[TaintOrigin]]]:
        """What ``fid``'s calls into the tree pass that could carry taint: (callee, call site, the
        callee's parameter, the argument's origins) per argument with origins that binds a parameter."""
        found = self._passing.get(fid)
        if found is None:
            found = self._passing[fid] = []
            fn = self.functions[fid]
            for target, call in fn.edges:
                callee = self.functions[target]
                for arg in call.args:
                    if not arg.origins:
                        continue
                    name = param_for(callee, arg)
                    if name is not None:
                        found.append((target, call.location, name, arg.origins))
                if fn.language == "python" and callee.facts.qualname.startswith(fn.facts.qualname + "."):
                    # A closure the function calls (or hands to a runner) reads its parameters as they are here.
                    own = set(callee.params)
                    for index, param in enumerate(fn.params):
                        if param not in own and param not in NON_TOOL_PARAMS:
                            found.append((target, call.location, param, [_param(param, index)]))
        return found

    def _passed_sources(
        self, fid: str, position: int, origins: list[TaintOrigin], env: dict[str, Sources] | None
    ) -> Sources:
        """``_read`` of one argument ``_passes`` lists, in ``fid``'s parameters ``env`` (None: it had none
        when it was taken from the queue, read as none until it is taken again), again only when they
        grew since it was last read, or the fields did and the read visits one (the summaries are
        settled by then). Callers only read the answer."""
        if env is None:
            return self._read(fid, origins, {})
        grown = self.grown.get(fid, 0)
        known = self._passed.get((fid, position))
        if known is not None and known[0] == grown and known[1] in (-1, self.fields_grown):
            return known[2]
        self.read_fields = False
        sources = self._read(fid, origins, env)
        # (Which origins a read visits does not depend on the sources it finds.)
        self._passed[(fid, position)] = (grown, self.fields_grown if self.read_fields else -1, sources)
        return sources


def _param(name: str, index: int) -> TaintOrigin:
    """A parameter's own taint origin, as the analyzer writes it."""
    return TaintOrigin(kind="param", param=name, index=index)
