"""Tools a library defines: given by instance (``tools=[SerperDevTool()]``), by a toolkit or a tool spec
(``FileManagementToolkit(selected_tools=[...]).get_tools()``, ``YahooFinanceToolSpec().to_tool_list()``),
each named as the library names it, with what it does and the gates it brings, as the rule pack says.
A toolkit or spec the pack does not describe is a frontier item: its tools are given, unseen."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    ArgTaint,
    CallFact,
    FrontierSite,
    FunctionFacts,
    GateSite,
    TaintOrigin,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.literals import kwarg, literal_str
from assay.backend.engines.static.pyast.rules import LibraryTool, Toolkit, display_name
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.sites import SiteLogic
from assay.backend.engines.static.rules.pack import Rule, RulePack

_INPUT = ArgTaint(index=0, origins=[TaintOrigin(kind="param", param="input", index=0)])


class LibraryLogic(SiteLogic):
    """Library tool instances, toolkits and tool specs, and where the model is given them."""

    def __init__(self, path: str, tree: ast.Module, rules: RulePack, text: str) -> None:
        super().__init__(path, tree, rules, text)
        self._library_done: set[str] = set()  # library tool functions made already (one per constructor)
        self._built: dict[str, list[ast.Call]] = {}  # constructor calls of the file, by constructed name

    def _library_tools(
        self,
        node: ast.Call,
        rule: Rule,
        specs: Sequence[LibraryTool],
        scope: Scope,
        gates: dict[str, str] | None = None,
        taken: ast.expr | None = None,
        checks_off: str | None = None,
        overrides: tuple[str, ...] = (),
    ) -> None:
        """Each tool a function of its own at the constructor, holding the action the library's tool
        performs behind the gates it brings (its own, like a sandbox, and those the constructor's
        keywords ask for, like ``root_dir=``). Taken later in the file (``spec.to_tool_list()`` after
        ``spec = Spec()``), the tools span from the constructor to where they are taken. The tools' own
        checks stand unless the constructor's ``checks_off`` keyword is anything but absent or ``True``
        (``safe_mode=False``, or a value the file does not settle). A subclass of the tree runs the methods it
        defines (``overrides``); one defining a method the tool runs through (``_run``) acts where that method
        hands the call to the library's (``super()._run(query)``), not at the constructor."""
        location = self.loc(node)
        if taken is not None and (taken.end_lineno or taken.lineno) > (location.endLine or location.line):
            location = location.model_copy(update={"endLine": taken.end_lineno or taken.lineno})
        kwarg_gates = [(key, kind) for key, kind in sorted((gates or {}).items()) if kwarg(node, key) is not None]
        switch = kwarg(node, checks_off) if checks_off else None
        own = switch is None or (isinstance(switch, ast.Constant) and switch.value is True)
        for spec in specs:
            name = spec.name
            qualname = f"{self.module}#library:{location.line}:{location.column}:{name}"
            if qualname in self._library_done:
                continue
            self._library_done.add(qualname)
            sites: list[GateSite] = []
            for detail, kind in ([(name, g) for g in spec.gates] if own else []) + kwarg_gates:
                gate_rule = self.rules.gate_by_kind.get(kind)
                if gate_rule is not None:
                    sites.append(
                        GateSite(
                            id=short_id("gate", self.path, location.line, location.column, kind, detail, name),
                            kind=gate_rule.gateKind or "permission_check",
                            ruleId=gate_rule.id,
                            location=location,
                            detail=f"{display_name(self.dotted(node.func, scope)[0] or name)}({detail}=...)"
                            if detail != name
                            else f"{name} runs in a sandbox"
                            if kind == "sandbox"
                            else f"{name} checks what the model gives it first ({kind}), as the library does",
                        )
                    )
            actions = []
            runs_own = any(m.rsplit(".", 1)[-1] in self.rules.library_run_methods for m in overrides)
            if spec.action_class is not None and not runs_own:
                actions.append(
                    ActionSite(
                        id=short_id("act", self.path, location.line, location.column, rule.id, name),
                        actionClass=spec.action_class,
                        impact=spec.impact or "medium",
                        ruleId=rule.id,
                        target=f"{display_name(self.dotted(node.func, scope)[0] or name)}:{name}",
                        location=location,
                        dominatingGates=sorted(g.id for g in sites),
                        # What the model gives the tool is what the library runs (``sql_db_query``'s SQL).
                        taint=[TaintOrigin(kind="param", param="input", index=0)],
                    )
                )
            self.functions.append(
                FunctionFacts(
                    id=short_id("fn", self.path, qualname),
                    qualname=qualname,
                    name=name,
                    location=location,
                    params=["input"],
                    actions=actions,
                    # What the model gives the tool is what the library hands the subclass's methods (``query``).
                    calls=[
                        CallFact(location=location, callee=m, resolved=True, dominatingGates=[], args=[_INPUT])
                        for m in overrides
                    ],
                    gates=sites,
                )
            )
            self.tools.append(ToolDef.found(rule, name, location, function=qualname, parameters=["input"]))

    def _listed_library_tools(self, elements: Sequence[ast.expr], scope: Scope) -> None:
        """Library tool instances listed (``[SerperDevTool()]``) or added to a list (``tools.append(...)``):
        constructed there, held by a variable, or a parameter of the library tool's type (``def build(tool:
        E2BPythonTool)``), then the instances the file constructs."""
        for element in elements:
            if isinstance(element, ast.Call):
                name, ok = self.dotted(element.func, scope)
                found, overrides = self._library_class(name)
                if found is not None:
                    self._library_tools(element, found[0], [found[1]], scope, overrides=overrides)
                elif ok and name and not name.startswith(self.module_prefix) and name.rsplit(".", 1)[-1][:1].isupper():
                    # A class of another module: a library tool when it extends one (the linker settles it).
                    self._subclassed_candidate(element, name)
            elif isinstance(element, ast.Name):
                if element.id in scope.library_vars:
                    call, name = scope.library_vars[element.id]
                    calls = [call]
                else:
                    name = scope.types.get(element.id) or self.module_types.get(element.id, "")
                    calls = self._constructions(name) if name in self.rules.library_tools else []
                found = self.rules.library_tools.get(name)
                if found is not None:
                    for call in calls:
                        self._library_tools(call, found[0], [found[1]], scope)

    def _subclassed_candidate(self, node: ast.Call, cls: str) -> None:
        """``tools.append(ReadOnlySQLTool(db=db))`` with the class imported from another module: a ``subclassed``
        candidate, the tool of the library tool the class extends (named as the library names it, run by the method
        through which the class runs it), or nothing when it extends none (``link/sources.py``)."""
        rule = next(iter(self.rules.library_tools.values()))[0]
        source = ToolSource(kind="subclassed", ref=cls)
        self.tools.append(ToolDef.found(rule, cls.rsplit(".", 1)[-1], self.loc(node), source=source))

    def _library_class(self, name: str | None) -> tuple[tuple[Rule, LibraryTool] | None, tuple[str, ...]]:
        """The library tool ``name`` constructs (``SerperDevTool``) or, for a class of this file, the one it extends
        (``class ReadOnlySQL(QuerySQLDataBaseTool)``), with the qualnames of the methods the subclass defines along
        the way (the library runs them: its ``_run`` override is the tool's run); ``(None, ())`` for anything else."""
        found = self.rules.library_tools.get(name) if name else None
        if found is not None or not name:
            return found, ()
        local = name.removeprefix(self.module_prefix)
        if local == name or local not in self.classes:
            return None, ()
        base = self._package_base(local)
        found = self.rules.library_tools.get(base) if base else None
        if found is None:
            return None, ()
        prefix = self.module_prefix
        owners = [local, *(b.removeprefix(prefix) for b in self._ancestors(local) if b.startswith(prefix))]
        methods = tuple(
            sorted(
                f"{prefix}{owner}.{method}"
                for owner in owners
                if owner in self.classes
                for method in self.classes[owner][0]
                if not method.startswith("__")
            )
        )
        return found, methods

    def _constructions(self, name: str) -> list[ast.Call]:
        """The calls of the file that construct ``name`` (read once per name, only when asked)."""
        found = self._built.get(name)
        if found is None:
            found = self._built[name] = [node for node in self.tree_calls if self.dotted(node.func, None)[0] == name]
        return found

    def _toolkit_use(self, node: ast.Call, scope: Scope) -> None:
        """A toolkit gives its tools where they are taken (``toolkit.get_tools()``, ``spec.to_tool_list()``)
        or where the toolkit is handed to an agent (``create_sql_agent(llm, toolkit=toolkit)``); one
        built for another purpose (its credentials, its API resource) gives the model nothing."""
        func = node.func
        taken = type(func) is ast.Attribute and func.attr in self.rules.toolkit_methods
        if not taken and not node.keywords:
            return  # most calls: neither taking tools nor handing a toolkit over
        given: list[ast.expr] = []
        if isinstance(func, ast.Attribute) and taken:
            given.append(func.value)
        given.extend(k.value for k in node.keywords if k.arg == "toolkit")
        for value in given:
            call, name = self._toolkit_of(value, scope)
            found = self.rules.toolkits.get(name) if name else None
            if call is not None and found is not None:
                # ``[t for t in tools if t.name != "sql_db_query"]`` in the same function: those are dropped.
                dropped = _names_filtered_out(scope.function) if scope.function is not None else frozenset()
                specs = tuple(t for t in _selected(call, found) if t.name not in dropped)
                self._library_tools(call, found.rule, specs, scope, found.gates, node, found.switch)
            elif taken and value is given[0]:
                self._unknown_toolkit(node, value, scope)

    def _toolkit_of(self, value: ast.expr, scope: Scope) -> tuple[ast.Call | None, str | None]:
        """The constructor call of the toolkit ``value`` holds, and its name: built there, held by a
        variable, or a class attribute read through ``self`` (``toolkit = Toolkit(...)`` in the body); in a
        class of the file extending a toolkit, ``super()`` is that toolkit (``super().get_tools()`` in its
        ``get_tools`` override: the library's tools, taken there)."""
        if isinstance(value, ast.Call) and type(value.func) is ast.Name and value.func.id == "super":
            return (value, self._package_base(self._class)) if self._class is not None else (None, None)
        if isinstance(value, ast.Call):
            return value, self.dotted(value.func, scope)[0]
        if isinstance(value, ast.Name):
            if value.id in scope.library_vars:
                return scope.library_vars[value.id]
            return None, self.dotted(value, scope)[0]
        if (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == "self"
            and self._class is not None
        ):
            for cls in self.module_defs:
                if isinstance(cls, ast.ClassDef) and cls.name == self._class:
                    for stmt in cls.body:
                        if (
                            isinstance(stmt, ast.Assign)
                            and isinstance(stmt.value, ast.Call)
                            and any(isinstance(t, ast.Name) and t.id == value.attr for t in stmt.targets)
                        ):
                            return stmt.value, self.dotted(stmt.value.func, None)[0]
        return None, self.dotted(value, scope)[0]

    def _unknown_toolkit(self, node: ast.Call, value: ast.expr, scope: Scope) -> None:
        """Tools taken from a library toolkit or tool spec the rule pack does not describe (or, for
        ``to_tool_list``, from a value of unknown type): given to the model, their reach unseen. The
        tree's own toolkit classes are not: their tools are recognised where they are defined."""
        rule = self.rules.unknown_toolkit
        func = node.func
        if rule is None or not isinstance(func, ast.Attribute):
            return
        name, resolved = self.dotted(value, scope)
        if resolved and name and is_user_callee(name, resolved, self):
            return
        if not (resolved and name) and func.attr == "get_tools":
            return
        callee = self.dotted(func, scope)[0]
        if callee and self.rules.profile(callee).frontier:
            return  # a rule names it already (``MultiServerMCPClient.get_tools``)
        location = self.loc(node)
        what = display_name(name) if resolved and name else "a value of unknown type"
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "config_registered_tools", self.path, location.line, location.column),
                kind="config_registered_tools",
                detail=f"tools taken with {func.attr}() from {what}, which the rule pack does not describe; "
                "their names and reach are not visible",
                location=location,
                ruleId=rule.id,
            )
        )


def _names_filtered_out(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The tool names a comprehension of ``fn`` leaves out of a list by the tools' names (``[t for t in tools if
    t.name != "sql_db_query"]``, ``... if t.name not in ("a", "b")``)."""
    out: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            continue
        for test in (t for generator in node.generators for t in generator.ifs):
            if not (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.left, ast.Attribute)
                and test.left.attr == "name"
            ):
                continue
            op, right = test.ops[0], test.comparators[0]
            if isinstance(op, ast.NotEq):
                out.update(n for n in [literal_str(right)] if n)
            elif isinstance(op, ast.NotIn) and isinstance(right, ast.List | ast.Tuple | ast.Set):
                out.update(n for n in (literal_str(e) for e in right.elts) if n)
    return frozenset(out)


def _selected(call: ast.Call, toolkit: Toolkit) -> tuple[LibraryTool, ...]:
    """The toolkit's tools, or those a literal selection names (``selected_tools=["read_file"]``)."""
    chosen = kwarg(call, toolkit.select) if toolkit.select else None
    if not isinstance(chosen, ast.List | ast.Tuple):
        return toolkit.tools
    names = {literal_str(e) for e in chosen.elts}
    return tuple(t for t in toolkit.tools if t.name in names)
