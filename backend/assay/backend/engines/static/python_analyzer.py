"""Python analyzer: one file's source -> ``FileFacts``, with the standard library's ``ast`` only.

The code is parsed, never imported or executed. One walk per function body resolves call names
through imports and simple variable types (``client = OpenAI()`` makes ``client.chat.completions.create``
the OpenAI API), matches them against the rule pack, tracks which gates dominate each point
(structured dominance over statements: straight-line order, ``if``/``else``, early ``return``/``raise``,
loops and ``try``), and which values carry model-chosen data (model outputs and parameters).
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    ArgTaint,
    CallFact,
    FileFacts,
    FrontierSite,
    FunctionFacts,
    GateSite,
    ModelSite,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.pyast.conditions import NOTHING, Condition, Outcome, gate_when, meet
from assay.backend.engines.static.pyast.literals import (
    annotation_type,
    bound_names,
    class_attr_str,
    constructed_type,
    docstring,
    is_literal,
    kwarg,
    kwarg_str,
    literal_dict,
    literal_str,
    mend_surrogates,
    name_text,
    opens_for_writing,
    schema_params,
    string_text,
    tool_annotations,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.rules import CallProfile, compile_rules, display_name
from assay.backend.engines.static.python_syntax import (
    breadth_first,
    imports_breadth_first,
    node_fields,
    statements_breadth_first,
)
from assay.backend.engines.static.rulepack import Rule, RulePack
from assay.backend.scans.bundle import FrontierKind, Location

_SQL_WRITE = re.compile(r"^\s*(insert|update|delete|drop|alter|create|replace|truncate|merge|upsert)\b", re.I)
_SQL_GRANT = re.compile(r"^\s*(grant|revoke)\b", re.I)
_NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "wrapper", "config", "callbacks"})
_NO_TAINT: frozenset[TaintOrigin] = frozenset()
# Expressions that bind names of their own: lambdas and comprehensions.
_SCOPED_EXPRESSIONS = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
# Expressions whose only child is ``value``, read for it alone. (``_expr`` reads an f-string's
# ``{x}`` the same way when it has no format spec.)
_WRAPPERS = frozenset({ast.Attribute, ast.Await, ast.Starred})
# Every expression node class (``isinstance(x, ast.expr)`` as a set lookup on the exact type), and
# the fields of each that may hold nodes.
_EXPRESSIONS = frozenset(cls for cls in vars(ast).values() if isinstance(cls, type) and issubclass(cls, ast.expr))
_EXPRESSION_FIELDS = {cls: node_fields(cls) for cls in _EXPRESSIONS}
# A dict literal defines a tool (``_dict_tool``) only with one of these keys.
_TOOL_DICT_KEYS = frozenset({"type", "input_schema"})


def module_name(path: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``."""
    parts = path.removesuffix(".pyi").removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


@dataclass(slots=True)
class _Scope:
    """What one function body knows while it is walked."""

    qualname: str
    params: list[str]
    types: dict[str, str] = field(default_factory=dict)
    taint: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    gate_vars: dict[str, tuple[str, str]] = field(default_factory=dict)  # var -> (gate id, polarity)
    # Gates that hold from the point they are reached, even when their result is only assigned.
    unconditional: set[str] = field(default_factory=set)
    gate_ids: set[str] = field(default_factory=set)
    # Names bound in enclosing functions (closures), and bare callees already reported unresolved.
    outer: frozenset[str] = frozenset()
    reported: set[str] = field(default_factory=set)
    calls: list[CallFact] = field(default_factory=list)
    actions: list[ActionSite] = field(default_factory=list)
    gates: list[GateSite] = field(default_factory=list)
    returns: set[TaintOrigin] = field(default_factory=set)
    # Whether the body defines functions or classes (``_walk_block`` meets every one ``_definitions``
    # finds): most do not, and need no search for them.
    defines: bool = False


class _FileAnalyzer:
    def __init__(self, path: str, tree: ast.Module, rules: RulePack) -> None:
        self.path = path
        self.module = module_name(path)
        self.is_package = path.endswith("__init__.py")
        self.tree = tree
        self.rules = compile_rules(rules)
        self.aliases: dict[str, str] = {}
        self.local_defs: dict[str, str] = {}
        self.module_types: dict[str, str] = {}
        self.class_attr_types: dict[str, dict[str, str]] = {}
        self.functions: list[FunctionFacts] = []
        self.models: list[ModelSite] = []
        self.tools: list[ToolDef] = []
        self.frontier: list[FrontierSite] = []
        # Built on first use: only files with literal tool definitions need it.
        self._dispatch: dict[str, str] | None = None
        # ``if name == "tool": impl(...)`` and ``case "tool": impl(...)``: literal name -> callee.
        self.branch_dispatch: dict[str, str] = {}
        # Literal tool definitions wait for the whole file, whose later code may dispatch them.
        self._literal_tools: list[ToolDef] = []
        # Plain functions listed as tools (``ToolNode([f])``): kept unless ``f`` is a tool already.
        self._listed_tools: list[ToolDef] = []
        self._class: str | None = None
        self.module_bound: frozenset[str] = frozenset()
        # Class name -> (its method names, its bases defined in this file).
        self.classes: dict[str, tuple[frozenset[str], list[str]]] = {}
        self.class_bases: dict[str, list[str]] = {}
        self.extended: set[str] = set()  # classes of this file that other classes here extend
        self.star_import = False
        self.module_defs = _definitions(tree.body)
        self._user_callees: dict[tuple[str, bool], bool] = {}
        # The call ``_call`` resolved last, with its scope and callee (see ``_callee``).
        self._last_callee: tuple[ast.Call | None, _Scope | None, str | None, bool] = _NO_CALLEE

    # ----- names -------------------------------------------------------------------------------

    def loc(self, node: ast.expr | ast.stmt) -> Location:
        line = node.lineno
        return trusted(Location, path=self.path, line=line, column=node.col_offset + 1, endLine=node.end_lineno or line)

    def _collect_imports(self, nodes: Iterable[ast.Import | ast.ImportFrom]) -> None:
        package = self.module if self.is_package else self.module.rpartition(".")[0]
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        self.aliases[head] = head
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    keep = len(parts) - (node.level - 1)
                    prefix = ".".join(parts[: max(keep, 0)])
                    base = ".".join(p for p in (prefix, base) if p)
                for alias in node.names:
                    if alias.name == "*":
                        self.star_import = True
                    else:
                        self.aliases[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        for stmt in self.module_defs:
            self.local_defs[stmt.name] = f"{self.module}.{stmt.name}"

    def dotted(self, node: ast.AST, scope: _Scope | None) -> tuple[str | None, bool]:
        """The dotted name (or type) an expression denotes, and whether it was resolved."""
        if isinstance(node, ast.Name):
            name = node.id
            if scope is not None and name in scope.types:
                return scope.types[name], True
            if name in self.module_types:
                return self.module_types[name], True
            if name in self.aliases:
                return self.aliases[name], True
            if name in self.local_defs:
                return self.local_defs[name], True
            if name in _BUILTINS:
                return name, True
            return name, False
        if isinstance(node, ast.Attribute):
            # ``a.b.c``: the names after the base, innermost first, then the base resolved once.
            attrs: list[str] = []
            while True:
                value = node.value
                if isinstance(value, ast.Name) and value.id == "self" and self._class is not None:
                    base: str | None = self._self_attribute(self._class, node.attr)
                    ok = True
                    break
                attrs.append(node.attr)
                if not isinstance(value, ast.Attribute):
                    base, ok = self.dotted(value, scope)
                    break
                node = value
            if not base:
                return None, ok
            return (".".join([base, *reversed(attrs)]) if attrs else base), ok
        if isinstance(node, ast.Call):
            callee, ok = self.dotted(node.func, scope)
            return constructed_type(node, callee), ok
        if isinstance(node, ast.Await):
            return self.dotted(node.value, scope)
        if isinstance(node, ast.Subscript):
            return self.dotted(node.value, scope)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.dotted(node.left, scope)
        return None, False

    def _self_attribute(self, cls: str, attr: str) -> str:
        """What ``self.attr`` denotes in a method of ``cls``: an attribute's type, or a method."""
        attrs = self.class_attr_types.get(cls, {})
        if attr in attrs:
            return attrs[attr]
        owner = self._method_owner(cls, attr) or cls
        return f"{self.module}.{owner}.{attr}"

    def _callee(self, call: ast.Call, scope: _Scope) -> tuple[str | None, bool]:
        """``dotted(call.func, scope)``. Statements ask it of the call they have just walked, which
        ``_call`` resolved already: that answer is reused unless a name was bound since."""
        last, last_scope, name, resolved = self._last_callee
        if last is call and last_scope is scope:
            return name, resolved
        return self.dotted(call.func, scope)

    def _type_of(self, node: ast.expr, scope: _Scope) -> str | None:
        """``dotted(node, scope)``, through ``_callee`` for a call."""
        if type(node) is ast.Call:
            return constructed_type(node, self._callee(node, scope)[0])
        return self.dotted(node, scope)[0]

    # ----- entry -------------------------------------------------------------------------------

    def run(self) -> None:
        # Imports are statements: reading the statements alone finds them all, in ``ast.walk`` order.
        self._collect_imports(imports_breadth_first(self.tree))
        self._collect_classes()
        module_scope = _Scope(qualname=f"{self.module}.<module>", params=_MODULE_PARAMS)
        # Module-level variable types first, so functions see ``client = OpenAI()`` defined anywhere.
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Call | ast.BinOp):
                    name, _ = self.dotted(stmt.value, None)
                    if name:
                        self.module_types[target.id] = name
        self._walk_block(self.tree.body, module_scope, frozenset())
        self.module_bound = frozenset(module_scope.taint)
        self._finish(module_scope, ast.Module(body=[], type_ignores=[]), "<module>")
        self._visit_defs(self.module_defs, self.module)
        self._link_literal_tools()
        defined = {t.function for t in self.tools}
        for tool in self._listed_tools:
            if tool.function not in defined:
                defined.add(tool.function)
                self.tools.append(tool)

    def _visit_defs(self, defs: Sequence[_Definition], prefix: str, outer: frozenset[str] = frozenset()) -> None:
        for stmt in defs:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(stmt, f"{prefix}.{stmt.name}", outer)
            elif isinstance(stmt, ast.ClassDef):
                enclosing = self._class
                self._class = stmt.name
                self._collect_class_attrs(stmt)
                self._class_tool(stmt, f"{prefix}.{stmt.name}")
                # Methods do not see the class body's names, but do see the enclosing function's.
                self._visit_defs(_definitions(stmt.body), f"{prefix}.{stmt.name}", outer)
                self._class = enclosing

    def _collect_classes(self) -> None:
        """Methods and same-file bases of the module's classes, so ``self.m()`` finds an inherited ``m``."""
        for stmt in self.module_defs:
            if isinstance(stmt, ast.ClassDef):
                methods = frozenset(
                    d.name for d in _definitions(stmt.body) if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)
                )
                prefix = self.module + "."
                bases = [b for b in (self.dotted(base, None)[0] for base in stmt.bases) if b]
                local = [b.removeprefix(prefix) for b in bases if b.startswith(prefix)]
                self.classes[stmt.name] = (methods, local)
                self.class_bases[stmt.name] = bases
                self.extended.update(local)

    def _ancestors(self, cls: str) -> set[str]:
        """Every base of ``cls`` by dotted name, through the classes of this file."""
        out: set[str] = set()
        stack = [cls]
        seen: set[str] = set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            for base in self.class_bases.get(current, ()):
                out.add(base)
                local = base.removeprefix(self.module + ".")
                if local != base:
                    stack.append(local)
        return out

    def _method_owner(self, cls: str, method: str) -> str | None:
        """The class of this file whose ``method`` a ``cls`` instance runs: ``cls`` or a base, depth first."""
        seen: set[str] = set()
        stack = [cls]
        while stack:
            current = stack.pop()
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            methods, bases = self.classes[current]
            if method in methods:
                return current
            stack.extend(reversed(bases))
        return None

    def _collect_class_attrs(self, cls: ast.ClassDef) -> None:
        attrs: dict[str, str] = {}
        for node in statements_breadth_first(cls):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        name, _ = self.dotted(node.value, None)
                        if name:
                            attrs[target.attr] = name
        self.class_attr_types[cls.name] = attrs

    def _function(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, outer: frozenset[str] = frozenset()
    ) -> None:
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if fn.args.vararg:
            params.append(fn.args.vararg.arg)
        if fn.args.kwarg:
            params.append(fn.args.kwarg.arg)
        scope = _Scope(qualname=qualname, params=params, outer=outer)
        for index, name in enumerate(params):
            scope.taint[name] = _param_taint(name, index)
        for arg in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs):
            # ``def tool(db: Session)``: the annotation types the parameter like an assignment would.
            annotation = annotation_type(arg.annotation)
            if annotation is not None:
                typed, ok = self.dotted(annotation, None)
                if ok and typed:
                    scope.types[arg.arg] = typed
        entry = self._decorators(fn, qualname, scope)
        self._walk_block(fn.body, scope, entry)
        self._finish(scope, fn, fn.name)
        if scope.defines:
            self._visit_defs(_definitions(fn.body), qualname, outer | scope.taint.keys())

    def _finish(self, scope: _Scope, node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> None:
        if isinstance(node, ast.Module) and not (scope.calls or scope.actions or scope.gates):
            return
        location = self.loc(node) if not isinstance(node, ast.Module) else Location(path=self.path, line=1, column=1)
        self.functions.append(
            trusted(
                FunctionFacts,
                id=short_id("fn", self.path, scope.qualname),
                qualname=scope.qualname,
                name=name,
                location=location,
                params=list(scope.params),
                calls=scope.calls,
                actions=scope.actions,
                gates=sorted(scope.gates, key=lambda g: (g.location.line, g.location.column, g.id)),
                returns=sorted(scope.returns, key=_origin_key),
            )
        )

    # ----- decorators and tools ----------------------------------------------------------------

    def _decorators(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, scope: _Scope) -> frozenset[str]:
        entry: set[str] = set()
        for dec in fn.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name, _ = self.dotted(target, None)
            if not name:
                continue
            rule, gate_rules = self.rules.decorator(name)
            if rule is not None:
                self._add_tool(rule, fn, qualname, dec if isinstance(dec, ast.Call) else None, entry, scope)
            for gate_rule in gate_rules:
                entry.add(self._gate(scope, gate_rule, dec, name))
        return frozenset(entry)

    def _add_tool(
        self,
        rule: Rule,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        call: ast.Call | None,
        entry: set[str],
        scope: _Scope,
    ) -> None:
        name = fn.name
        description = docstring(fn)
        annotations: dict[str, bool] = {}
        if call is not None:
            literal = literal_str(call.args[0]) if call.args else None
            name = kwarg_str(call, "name") or kwarg_str(call, "name_override") or literal or name
            description = kwarg_str(call, "description") or description
            annotations = tool_annotations(call)
            for gate_rule, wanted in self.rules.gate_kwargs:
                for key, value in wanted.items():
                    kw = kwarg(call, key)
                    if isinstance(kw, ast.Constant) and kw.value == value:
                        entry.add(self._gate(scope, gate_rule, call, f"{key}={value}"))
            if annotations and self.rules.annotation_gate is not None:
                hints = [k for k in ("readOnlyHint", "destructiveHint") if k in annotations]
                if hints:
                    detail = ", ".join(f"{k}={annotations[k]}" for k in hints)
                    entry.add(self._gate(scope, self.rules.annotation_gate, call, detail))
        params = [p for p in scope.params if p not in _NON_TOOL_PARAMS]
        self.tools.append(
            trusted(
                ToolDef,
                id=short_id("tool", self.path, fn.lineno, name, rule.id),
                name=name,
                description=description,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=self.loc(fn),
                function=qualname,
                parameters=params,
                annotations=annotations,
            )
        )

    def _class_tool(self, cls: ast.ClassDef, qualname: str) -> None:
        bases = {self.dotted(b, None)[0] for b in cls.bases}
        if cls.name in self.class_bases:
            bases |= self._ancestors(cls.name)
        for rule, wanted in self.rules.tool_classes:
            if bases & wanted:
                method = rule.match.get("method", "_run")
                name = class_attr_str(cls, "name") or cls.name
                description = class_attr_str(cls, "description") or docstring(cls)
                impl = next(
                    (s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == method),
                    None,
                )
                function = f"{qualname}.{method}" if impl is not None else None
                owner = self._method_owner(cls.name, method) if impl is None and cls.name in self.classes else None
                if owner is not None:
                    # The implementation is inherited from a base class of this file.
                    function = f"{self.module}.{owner}.{method}"
                elif impl is None and cls.name in self.extended:
                    return  # an abstract intermediate base: its subclasses are the tools
                params = []
                if impl is not None:
                    params = [a.arg for a in impl.args.args if a.arg not in _NON_TOOL_PARAMS]
                self.tools.append(
                    ToolDef(
                        id=short_id("tool", self.path, cls.lineno, name, rule.id),
                        name=name,
                        description=description,
                        framework=rule.framework or "unknown",
                        ruleId=rule.id,
                        location=self.loc(cls),
                        function=function,
                        parameters=params,
                    )
                )
                return

    @property
    def dispatch(self) -> dict[str, str]:
        """``{"tool_name": function}`` tables link literal tool definitions to their implementations.

        Names in the tables resolve through imports and module-level definitions only (not through
        module variable types or the enclosing class), whenever the table is first needed."""
        if self._dispatch is None:
            module_types, self.module_types = self.module_types, {}
            current_class, self._class = self._class, None
            try:
                self._dispatch = {}
                self._collect_dispatch_tables(breadth_first(self.tree, (ast.Dict,)))
            finally:
                self.module_types, self._class = module_types, current_class
        return self._dispatch

    def _collect_dispatch_tables(self, nodes: Iterable[ast.AST]) -> None:
        assert self._dispatch is not None
        for node in nodes:
            if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        target, ok = self.dotted(value, None)
                        if ok and target and isinstance(value, ast.Name | ast.Attribute):
                            self._dispatch.setdefault(key.value, target)

    def _dict_tool(self, node: ast.Dict, scope: _Scope) -> None:
        if not any(type(key) is ast.Constant and key.value in _TOOL_DICT_KEYS for key in node.keys):
            return  # most dicts are data, not tool definitions: no need to read them
        data = literal_dict(node)
        if data is None:
            return
        for rule in self.rules.tool_dicts:
            kind = rule.match["dict_literal"]
            name: str | None = None
            description: str | None = None
            if kind == "openai_function" and data.get("type") == "function":
                inner = data.get("function")
                if isinstance(inner, dict):
                    name, description = inner.get("name"), inner.get("description")
                else:
                    name, description = data.get("name"), data.get("description")
            elif kind == "anthropic_tool" and "input_schema" in data and "name" in data:
                name, description = data.get("name"), data.get("description")
            if not isinstance(name, str):
                continue
            location = self.loc(node)
            self._literal_tools.append(
                ToolDef(
                    id=short_id("tool", self.path, location.line, name, rule.id),
                    name=name,
                    description=description if isinstance(description, str) else None,
                    framework=rule.framework or "unknown",
                    ruleId=rule.id,
                    location=location,
                    function=self.dispatch.get(name),
                    parameters=sorted(schema_params(data)),
                )
            )
            return

    def _link_literal_tools(self) -> None:
        """Literal tools not in a dispatch table take the function a name comparison dispatches them
        to; the rest are ``dynamic_dispatch`` frontier items."""
        for tool in self._literal_tools:
            if tool.function is None and tool.name in self.branch_dispatch:
                tool = tool.model_copy(update={"function": self.branch_dispatch[tool.name]})
            self.tools.append(tool)
            if tool.function is None and self.rules.dispatch_rule is not None:
                self.frontier.append(
                    FrontierSite(
                        id=short_id("fr", "dynamic_dispatch", self.path, tool.location.line, tool.name),
                        kind="dynamic_dispatch",
                        detail=f"tool {tool.name} is defined as a literal; its implementation is chosen at run time",
                        location=tool.location,
                        ruleId=self.rules.dispatch_rule.id,
                    )
                )

    def _if_dispatch(self, stmt: ast.If, scope: _Scope) -> None:
        """``if name == "get_weather": return get_weather(**args)`` names the tool's implementation."""
        test = stmt.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return
        literal = literal_str(test.comparators[0]) or literal_str(test.left)
        if literal is not None:
            self._dispatched(literal, stmt.body, scope)

    def _case_dispatch(self, subject: ast.expr, case: ast.match_case, scope: _Scope) -> None:
        del subject  # any subject: ``match call.name:`` and ``match name:`` alike
        pattern = case.pattern
        if isinstance(pattern, ast.MatchValue):
            literal = literal_str(pattern.value)
            if literal is not None:
                self._dispatched(literal, case.body, scope)

    def _dispatched(self, literal: str, body: Sequence[ast.stmt], scope: _Scope) -> None:
        if literal in self.branch_dispatch:
            return
        for stmt in body:
            value = stmt.value if isinstance(stmt, ast.Expr | ast.Return | ast.Assign) else None
            if isinstance(value, ast.Await):
                value = value.value
            if isinstance(value, ast.Call):
                name, resolved = self.dotted(value.func, scope)
                if name and resolved and _is_user_callee(name, resolved, self):
                    self.branch_dispatch[literal] = name
                    return

    # ----- statements ---------------------------------------------------------------------------

    def _walk_block(self, body: Sequence[ast.stmt], scope: _Scope, active: frozenset[str]) -> Outcome:
        """Walk statements in order; return the gates that dominate the point after the block, or
        ``None`` when control never falls out of it. Code after a ``return`` is still read (its
        calls and models exist) with the gates known before it."""
        outcome: Outcome = active
        for stmt in body:
            kind = type(stmt)
            if kind in _DEFINITION_KINDS:
                scope.defines = True
                if scope.params is not _MODULE_PARAMS:
                    # A nested definition is called by its local name: resolve it to its qualname.
                    name = stmt.name  # type: ignore[attr-defined]
                    scope.types[name] = f"{scope.qualname}.{name}"
                    self._last_callee = _NO_CALLEE
                    scope.taint.setdefault(name, _NO_TAINT)
                continue
            after = _STATEMENTS.get(kind, _FileAnalyzer._plain)(self, stmt, scope, active)
            if after is None:
                outcome = None
            else:
                active = after
                if outcome is not None:
                    outcome = after
        return outcome

    def _expression_statement(self, stmt: ast.Expr, scope: _Scope, active: frozenset[str]) -> Outcome:
        value = stmt.value
        self._expr(value, scope, active)
        gate = self._gate_of_expr(value, scope)
        # An unconditional approval/limit call: everything after it in the block is behind it.
        return active | {gate} if gate is not None else active

    def _return(self, stmt: ast.Return, scope: _Scope, active: frozenset[str]) -> Outcome:
        if stmt.value is not None:
            scope.returns |= self._expr(stmt.value, scope, active)
        return None

    def _raise(self, stmt: ast.Raise, scope: _Scope, active: frozenset[str]) -> Outcome:
        for part in (stmt.exc, stmt.cause):
            if part is not None:
                self._expr(part, scope, active)
        return None

    def _jump(self, stmt: ast.Continue | ast.Break, scope: _Scope, active: frozenset[str]) -> Outcome:
        return None

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, scope: _Scope, active: frozenset[str]) -> Outcome:
        head = stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test
        taint = self._expr(head, scope, active)
        if isinstance(stmt, ast.For | ast.AsyncFor):
            self._assign(stmt.target, taint, None, scope)
        # The body may run no times: nothing in it dominates what follows the loop.
        self._walk_block(stmt.body, scope, active)
        self._walk_block(stmt.orelse, scope, active)
        return active

    def _with(self, stmt: ast.With | ast.AsyncWith, scope: _Scope, active: frozenset[str]) -> Outcome:
        inside = active
        for item in stmt.items:
            taint = self._expr(item.context_expr, scope, active)
            gate = self._gate_of_expr(item.context_expr, scope) or self._context_gate(item.context_expr, scope)
            if gate is not None:
                # ``with Sandbox() as sbx:`` or ``with limiter:``: the body runs behind it.
                inside = inside | {gate}
            if item.optional_vars is not None:
                self._assign(item.optional_vars, taint, self._type_of(item.context_expr, scope), scope)
        after = self._walk_block(stmt.body, scope, inside)
        return None if after is None else active | (after - inside) | (after & inside & active)

    def _assert(self, stmt: ast.Assert, scope: _Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        condition = self._condition(stmt.test, scope)
        self._clean(condition.clean_true, scope)
        return active | condition.when_true

    def _plain(self, stmt: ast.stmt, scope: _Scope, active: frozenset[str]) -> Outcome:
        """Any other statement: the expressions it holds are read; it changes no gates."""
        for attr in node_fields(type(stmt)):
            value = getattr(stmt, attr)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, active)
        return active

    def _assignment(
        self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: _Scope, active: frozenset[str]
    ) -> Outcome:
        value = stmt.value
        if value is None:
            return active
        taint = self._expr(value, scope, active)
        name = self._type_of(value, scope) if type(value) is ast.Call or type(value) is ast.BinOp else None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        gate = self._gate_of_expr(value, scope)
        for target in targets:
            if isinstance(stmt, ast.AugAssign) and isinstance(target, ast.Name):
                taint = taint | scope.taint.get(target.id, _NO_TAINT)
            self._assign(target, taint, name, scope)
            if gate is not None and isinstance(target, ast.Name):
                scope.gate_vars[target.id] = (gate, "positive")
        if gate is not None and gate in scope.unconditional:
            # ``sbx = Sandbox()`` (code after it runs against the sandbox) and ``answer = interrupt(...)``
            # (the run pauses there until a human resumes it).
            return active | {gate}
        return active

    def _if(self, stmt: ast.If, scope: _Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        self._if_dispatch(stmt, scope)
        condition = self._condition(stmt.test, scope)
        if condition.empty:
            # Most tests prove nothing: both branches start from what held before.
            return meet(self._walk_block(stmt.body, scope, active), self._walk_block(stmt.orelse, scope, active))
        saved = self._clean(condition.clean_true, scope)
        after_body = self._walk_block(stmt.body, scope, active | condition.when_true)
        self._restore(saved, scope)
        saved = self._clean(condition.clean_false, scope)
        after_else = self._walk_block(stmt.orelse, scope, active | condition.when_false)
        self._restore(saved, scope)
        # A branch that never falls through leaves what the other branch proved for the code after.
        if after_body is None and after_else is not None:
            self._clean(condition.clean_false, scope)
        elif after_else is None and after_body is not None:
            self._clean(condition.clean_true, scope)
        return meet(after_body, after_else)

    def _try(self, stmt: ast.Try | ast.TryStar, scope: _Scope, active: frozenset[str]) -> Outcome:
        after_body = self._walk_block(stmt.body, scope, active)
        # A handler may start anywhere in the body: only what held before the ``try`` holds in it.
        handlers = [self._walk_block(h.body, scope, active) for h in stmt.handlers]
        after_else = self._walk_block(stmt.orelse, scope, after_body if after_body is not None else active)
        joined = meet(after_else if after_body is not None else None, *handlers)
        if not stmt.finalbody:
            return joined
        after_final = self._walk_block(stmt.finalbody, scope, joined if joined is not None else active)
        return None if joined is None or after_final is None else after_final

    def _match(self, stmt: ast.Match, scope: _Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.subject, scope, active)
        outcomes: list[Outcome] = []
        exhaustive = False
        for case in stmt.cases:
            if case.guard is not None:
                self._expr(case.guard, scope, active)
            elif isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None:
                exhaustive = True
            self._case_dispatch(stmt.subject, case, scope)
            outcomes.append(self._walk_block(case.body, scope, active))
        return meet(*outcomes) if exhaustive else meet(active, *outcomes)

    def _clean(self, names: frozenset[str], scope: _Scope) -> dict[str, frozenset[TaintOrigin]]:
        """After ``if x not in ALLOWED: raise``, ``x`` holds an allow-listed value, not free model text."""
        saved = {}
        for name in names:
            saved[name] = scope.taint.get(name, _NO_TAINT)
            scope.taint[name] = _NO_TAINT
        return saved

    def _restore(self, saved: dict[str, frozenset[TaintOrigin]], scope: _Scope) -> None:
        scope.taint.update(saved)

    def _assign(self, target: ast.expr, taint: frozenset[TaintOrigin], type_name: str | None, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self._last_callee = _NO_CALLEE  # the name may have been its receiver
            scope.taint[target.id] = taint
            scope.gate_vars.pop(target.id, None)
            if type_name:
                scope.types[target.id] = type_name
            else:
                scope.types.pop(target.id, None)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._assign(element, taint, None, scope)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, taint, None, scope)

    # ----- gates -------------------------------------------------------------------------------

    def _gate(self, scope: _Scope, rule: Rule, node: ast.expr, detail: str) -> str:
        """The id of the gate ``rule`` finds at ``node``, recorded in ``scope`` the first time."""
        location = self.loc(node)
        gate_id = short_id("gate", self.path, location.line, location.column, rule.gateKind, detail)
        if gate_id not in scope.gate_ids:
            scope.gate_ids.add(gate_id)
            scope.gates.append(
                trusted(
                    GateSite,
                    id=gate_id,
                    kind=rule.gateKind or "permission_check",
                    ruleId=rule.id,
                    location=location,
                    detail=detail,
                )
            )
        return gate_id

    def _gate_of_expr(self, node: ast.expr, scope: _Scope) -> str | None:
        """The id of the gate a call is (approval, permission, limit check, sandbox), if it is one."""
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call):
            return None
        name, _ = self._callee(node, scope)
        if not name:
            return None
        profile = self.rules.profile(name)
        # An action that runs in a sandbox is gated where it runs (``_call``), not after it.
        rule = profile.action_gate
        if rule is None:
            return None
        gate = self._gate(scope, rule, node, name)
        if profile.unconditional:
            scope.unconditional.add(gate)
        return gate

    def _context_gate(self, node: ast.expr, scope: _Scope) -> str | None:
        """A gate only as a ``with`` item: ``with RateLimiter(max_calls=5, period=60):``."""
        if not isinstance(node, ast.Call):
            return None
        name, _ = self._callee(node, scope)
        rule = self.rules.context_gates.first(name) if name else None
        return self._gate(scope, rule, node, name or "") if rule is not None else None

    def _gate_in_chain(self, node: ast.expr, scope: _Scope) -> str | None:
        """A gate call or gate variable under method calls and subscripts: ``input('ok?').strip().lower()``,
        ``answer['action']``."""
        while True:
            if isinstance(node, ast.Name):
                found = scope.gate_vars.get(node.id)
                return found[0] if found is not None else None
            gate = self._gate_of_expr(node, scope)
            if gate is not None:
                return gate
            if isinstance(node, ast.Await):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif isinstance(node, ast.Subscript | ast.Attribute):
                node = node.value
            else:
                return None

    def _condition(self, test: ast.expr, scope: _Scope) -> Condition:
        """The gates a test proves when true and when false."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._condition(test.operand, scope).negate()
        if isinstance(test, ast.BoolOp):
            parts = [self._condition(value, scope) for value in test.values]
            combined = parts[0]
            for part in parts[1:]:
                combined = combined.both(part) if isinstance(test.op, ast.And) else combined.either(part)
            return combined
        if isinstance(test, ast.Name):
            found = scope.gate_vars.get(test.id)
            return gate_when(found[0], found[1] == "positive") if found is not None else NOTHING
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._comparison(test, scope)
        gate = self._gate_of_expr(test, scope)
        return gate_when(gate, True) if gate is not None else NOTHING

    def _comparison(self, node: ast.Compare, scope: _Scope) -> Condition:
        op = type(node.ops[0])
        right = node.comparators[0]
        passes = _MEMBERSHIP.get(op)
        if passes is not None:
            ref = name_text(right)
            rule = self.rules.allowlist.first(ref) if ref else None
            if rule is not None:
                gate = self._gate(scope, rule, node, ref or "allowlist")
                condition = gate_when(gate, passes)
                if isinstance(node.left, ast.Name):
                    clean = frozenset({node.left.id})
                    condition = Condition(
                        condition.when_true,
                        condition.when_false,
                        clean if passes else frozenset(),
                        frozenset() if passes else clean,
                    )
                return condition
        over = _ORDERING.get(op)
        if over is not None:
            for side, side_over in ((right, over), (node.left, not over)):
                ref = name_text(side)
                rule = self.rules.spend.first(ref) if ref else None
                if rule is not None:
                    # ``amount > MAX`` is the failure test; ``amount <= MAX`` the passing one.
                    return gate_when(self._gate(scope, rule, node, ref or "limit"), not side_over)
        positive = _EQUALITY.get(op)
        if positive is not None:
            # ``input('ok? ') != 'y'``, ``answer.lower() in ('y', 'yes')``: a human's answer checked
            # against a literal. The literal side says nothing; the other side carries the gate.
            for side, other in ((node.left, right), (right, node.left)):
                if is_literal(other):
                    answer = self._gate_in_chain(side, scope)
                    if answer is not None:
                        return gate_when(answer, positive)
        return NOTHING

    # ----- expressions ------------------------------------------------------------------------

    def _expr(self, node: ast.expr, scope: _Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        """Record every call in ``node``; return the taint origins its value may carry."""
        kind = type(node)
        # ``a.b.c``, ``await x``, ``*x``, ``{x}``: one child, nothing of their own to record.
        while kind in _WRAPPERS or (kind is ast.FormattedValue and node.format_spec is None):  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
            kind = type(node)
        if kind is ast.Name:
            return scope.taint.get(node.id, _NO_TAINT)  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call(node, scope, active)  # type: ignore[arg-type]
        if kind is ast.Constant:
            return _NO_TAINT
        if kind in _SCOPED_EXPRESSIONS:
            return self._scoped(node, scope, active)
        if kind is ast.Dict:
            self._dict_tool(node, scope)  # type: ignore[arg-type]
        # Children in ``_fields`` order, as ``ast.iter_child_nodes`` gives them; names and constants
        # (half of all children) are read here rather than through a call each.
        taint = _NO_TAINT
        names = scope.taint
        for attr in _EXPRESSION_FIELDS[kind]:
            value = getattr(node, attr)
            for child in value if type(value) is list else (value,):
                child_kind = type(child)
                while child_kind in _WRAPPERS:
                    child = child.value
                    child_kind = type(child)
                if child_kind is ast.Name:
                    found = names.get(child.id, _NO_TAINT)
                elif child_kind is ast.Call:
                    found = self._call(child, scope, active)
                elif child_kind is ast.Constant or child_kind not in _EXPRESSIONS:
                    continue
                else:
                    found = self._expr(child, scope, active)
                if found:
                    taint = taint | found if taint else found
        return taint

    def _scoped(self, node: ast.expr, scope: _Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        """A lambda or comprehension: its loop variables and parameters are bound names, and the
        element is read before the loop variable is bound (``_fields`` order)."""
        for bound in bound_names(node):
            scope.taint.setdefault(bound, _NO_TAINT)
        taint = _NO_TAINT
        for attr in node_fields(type(node)):
            value = getattr(node, attr)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.expr):
                    found = self._expr(child, scope, active)
                elif isinstance(child, ast.comprehension):
                    found = self._expr(child.iter, scope, active)
                    if found:
                        taint = taint | found if taint else found
                    self._assign(child.target, taint, None, scope)
                    continue
                else:
                    continue
                if found:
                    taint = taint | found if taint else found
        return taint

    def _call(self, node: ast.Call, scope: _Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        func = node.func
        func_kind = type(func)
        receiver_taint = _NO_TAINT
        if func_kind is ast.Attribute:
            receiver_taint = self._expr(func.value, scope, active)  # type: ignore[attr-defined]
        elif func_kind is not ast.Name:
            receiver_taint = self._expr(func, scope, active)
        # The tainted arguments, by position or keyword, and the union of their taints.
        arg_taints: list[tuple[int | None, str | None, frozenset[TaintOrigin]]] = []
        all_args = _NO_TAINT
        names = scope.taint
        # Positional arguments first, so an operand's position is its index.
        operands: Sequence[ast.expr | ast.keyword] = [*node.args, *node.keywords] if node.keywords else node.args
        for position, operand in enumerate(operands):
            index: int | None
            if isinstance(operand, ast.keyword):
                index, keyword, value = None, operand.arg, operand.value
            else:
                index, keyword = position, None
                value = operand.value if isinstance(operand, ast.Starred) else operand
            # Most arguments are names or constants: read here rather than through ``_expr``.
            kind = type(value)
            if kind is ast.Name:
                found = names.get(value.id, _NO_TAINT)  # type: ignore[attr-defined]
            elif kind is ast.Constant:
                continue
            else:
                found = self._expr(value, scope, active)
            if found:
                arg_taints.append((index, keyword, found))
                all_args = all_args | found if all_args else found

        if func_kind is ast.Call or func_kind is ast.Subscript:
            self._dynamic_dispatch(node, scope)
        name, resolved = self.dotted(func, scope)
        self._last_callee = (node, scope, name, resolved)
        if not name:
            return all_args | receiver_taint
        profile = self.rules.profile(name)
        if profile.model is not None or profile.http_egress:
            model = self._model_call(node, name, profile)
            if model is not None:
                return model
        if profile.frontier:
            self._frontier_tools(node, name, profile.frontier)
        if profile.tool_call is not None:
            self._call_tool(node, profile.tool_call, scope)
        if profile.tool_list:
            self._tool_list(node, name, scope)
        if not resolved and func_kind is ast.Name:
            self._unresolved(node, func.id, profile, scope)  # type: ignore[attr-defined]

        action_rule = self._action_rule(node, profile) if profile.actions else None
        if action_rule is not None:
            tainted = all_args | receiver_taint
            self._action(node, name, profile, action_rule, tainted, scope, active)
            return tainted
        if self._user_callee(name, resolved):
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=name,
                    resolved=resolved,
                    dominatingGates=sorted(active),
                    args=[
                        trusted(ArgTaint, index=i, keyword=k, origins=sorted(t, key=_origin_key))
                        for i, k, t in arg_taints
                    ],
                )
            )
            return _call_return(name) | receiver_taint
        return all_args | receiver_taint

    def _user_callee(self, name: str, resolved: bool) -> bool:
        """``_is_user_callee``, memoised for the file: most calls in a file repeat a few names."""
        key = (name, resolved)
        found = self._user_callees.get(key)
        if found is None:
            found = self._user_callees[key] = _is_user_callee(name, resolved, self)
        return found

    def _model_call(self, node: ast.Call, name: str, profile: CallProfile) -> frozenset[TaintOrigin] | None:
        """A model API call (an SDK's or an HTTP call to a model host): recorded, and the origin of its
        value; ``None`` for other calls."""
        model_rule = profile.model
        if model_rule is None:
            http = self._http_model(node) if profile.http_egress else None
            if http is None:
                return None
            model_rule, provider = http
            location = self.loc(node)
            self._model(model_rule, provider, name, "http", location)
            return frozenset({TaintOrigin(kind="model_output", location=location)})
        provider = model_rule.match.get("providers", {}).get(name, model_rule.provider or "unknown")
        location = self.loc(node)
        self._model(model_rule, provider, name, "sdk", location)
        return frozenset({TaintOrigin(kind="model_output", location=location)})

    def _frontier_tools(self, node: ast.Call, name: str, rules: Sequence[Rule]) -> None:
        for rule in rules:
            location = self.loc(node)
            runtime = self.rules.frontier_runtime[rule.id]
            kind: FrontierKind = "runtime_registered_tools" if name in runtime else "config_registered_tools"
            self.frontier.append(
                FrontierSite(
                    id=short_id("fr", kind, self.path, location.line, location.column),
                    kind=kind,
                    detail=f"tools obtained at run time through {name}; their reach is not visible to analysis",
                    location=location,
                    ruleId=rule.id,
                )
            )

    def _action(
        self,
        node: ast.Call,
        name: str,
        profile: CallProfile,
        rule: Rule,
        tainted: frozenset[TaintOrigin],
        scope: _Scope,
        active: frozenset[str],
    ) -> None:
        location = self.loc(node)
        gates = sorted(active)
        sandbox = profile.gate
        if sandbox is not None and sandbox.gateKind == "sandbox":
            # ``client.containers.run(image, cmd)``: the execution target is the sandbox itself.
            gates = sorted({*gates, self._gate(scope, sandbox, node, name)})
        scope.actions.append(
            trusted(
                ActionSite,
                id=short_id("act", self.path, location.line, location.column, rule.id),
                actionClass=rule.actionClass or "network.egress",
                impact=rule.impact or "medium",
                ruleId=rule.id,
                target=profile.display,
                location=location,
                dominatingGates=gates,
                taint=sorted(tainted, key=_origin_key),
            )
        )

    def _model(self, rule: Rule, provider: str, name: str, via: Literal["sdk", "http"], location: Location) -> None:
        self.models.append(
            trusted(
                ModelSite,
                id=short_id("mdl", self.path, location.line, location.column, rule.id),
                provider=provider,
                api=display_name(name),
                via=via,
                ruleId=rule.id,
                location=location,
            )
        )

    def _http_model(self, node: ast.Call) -> tuple[Rule, str] | None:
        # ``*args`` as written (a starred string is not a URL argument).
        texts = [text for value in (*node.args, *(k.value for k in node.keywords)) if (text := string_text(value))]
        if not texts:
            return None
        for rule, hosts in self.rules.http_hosts:
            for host, provider in hosts.items():
                for text in texts:
                    if host in text:
                        return rule, provider
        return None

    def _action_rule(self, node: ast.Call, profile: CallProfile) -> Rule | None:
        display = profile.display
        for rule in profile.actions:
            match = rule.match
            if match.get("write_mode") and not opens_for_writing(node):
                continue
            if "nonliteral_arg" in match:
                index = match["nonliteral_arg"]
                if len(node.args) > index and isinstance(node.args[index], ast.Constant):
                    continue
            if match.get("sql_write"):
                sql = string_text(node.args[0]) if node.args else None
                if sql is not None and self.rules.sql_grant is not None and _SQL_GRANT.match(sql):
                    return self.rules.sql_grant
                if sql is not None and not _SQL_WRITE.match(sql):
                    continue
            excluded = match.get("exclude_services")
            if excluded and display.startswith("boto3.client:"):
                service = display.split(":", 1)[1].split(".", 1)[0]
                if service in excluded:
                    continue
            return rule
        return None

    def _call_tool(self, node: ast.Call, rule: Rule, scope: _Scope) -> None:
        func_node: ast.expr | None = None
        for wanted in rule.match.get("function_args", []):
            if isinstance(wanted, int) and len(node.args) > wanted:
                func_node = node.args[wanted]
            elif isinstance(wanted, str):
                func_node = kwarg(node, wanted)
            if func_node is not None:
                break
        function = self.dotted(func_node, scope)[0] if func_node is not None else None
        tool_name = kwarg_str(node, "name") or (function.rsplit(".", 1)[-1] if function else None)
        if not tool_name:
            return
        location = self.loc(node)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, tool_name, rule.id),
                name=tool_name,
                description=kwarg_str(node, "description"),
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                function=function,
            )
        )

    def _tool_list(self, node: ast.Call, name: str, scope: _Scope) -> None:
        """``ToolNode([search, run_shell])``, ``Agent(tools=[f])``: plain functions given as tools."""
        for rule, patterns, where in self.rules.tool_lists:
            if not patterns.matches(name):
                continue
            for spot in where:
                value = (node.args[spot] if isinstance(spot, int) and len(node.args) > spot else None) or (
                    kwarg(node, spot) if isinstance(spot, str) else None
                )
                if not isinstance(value, ast.List | ast.Tuple):
                    continue
                for element in value.elts:
                    if not isinstance(element, ast.Name | ast.Attribute):
                        continue
                    function, resolved = self.dotted(element, scope)
                    if not function or not resolved or not _is_user_callee(function, resolved, self):
                        continue
                    location = self.loc(element)
                    tool_name = function.rsplit(".", 1)[-1]
                    self._listed_tools.append(
                        ToolDef(
                            id=short_id("tool", self.path, location.line, tool_name, rule.id),
                            name=tool_name,
                            framework=rule.framework or "unknown",
                            ruleId=rule.id,
                            location=location,
                            function=function,
                        )
                    )
                return

    def _unresolved(self, node: ast.Call, name: str, profile: CallProfile, scope: _Scope) -> None:
        """One ``unresolved_call`` per function and name, for a bare name bound nowhere in the file."""
        rule = self.rules.unresolved_rule
        if (
            rule is None
            or self.star_import
            or name in scope.reported
            or name in scope.taint
            or name in scope.outer
            or name in self.module_bound
            or name in _PY_BUILTINS
            or name in self.rules.unresolved_skip
            or profile.gate is not None
        ):
            return
        scope.reported.add(name)
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "unresolved_call", self.path, scope.qualname, name),
                kind="unresolved_call",
                detail=f"{name} is not defined, imported or a builtin in this file; what it runs is not visible",
                location=location,
                ruleId=rule.id,
            )
        )

    def _dynamic_dispatch(self, node: ast.Call, scope: _Scope) -> None:
        rule = self.rules.dispatch_rule
        if rule is None:
            return
        func = node.func
        detail: str | None = None
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr":
            if len(func.args) >= 2 and not isinstance(func.args[1], ast.Constant):
                detail = "getattr(...) with a name chosen at run time is called"
        elif isinstance(func, ast.Subscript) and not isinstance(func.slice, ast.Constant):
            detail = f"{name_text(func.value) or 'a table'}[...] is called with a key chosen at run time"
        if detail is None:
            return
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "dynamic_dispatch", self.path, location.line, location.column),
                kind="dynamic_dispatch",
                detail=detail,
                location=location,
                ruleId=rule.id,
            )
        )


# ----- helpers -------------------------------------------------------------------------------------

_BUILTINS = frozenset({"eval", "exec", "compile", "open", "input", "__import__", "print", "getattr", "globals"})


_MODULE_PARAMS: list[str] = []
# Comparison operators, by what a true comparison says (``_comparison``): membership passes an
# allow-list check when true (``in``) or false (``not in``); an ordering is true when the left side
# is over the right (``>``, ``>=``) or under it; an equality or identity holds when true or false.
_MEMBERSHIP: dict[type[ast.cmpop], bool] = {ast.In: True, ast.NotIn: False}
_ORDERING: dict[type[ast.cmpop], bool] = {ast.Gt: True, ast.GtE: True, ast.Lt: False, ast.LtE: False}
_EQUALITY: dict[type[ast.cmpop], bool] = {
    ast.Eq: True, ast.NotEq: False, ast.In: True, ast.NotIn: False, ast.Is: True, ast.IsNot: False
}  # fmt: skip
# Statement class -> its walker (``_FileAnalyzer._walk_block``); others are ``_FileAnalyzer._plain``.
_STATEMENTS: dict[type[ast.stmt], Callable[[_FileAnalyzer, Any, _Scope, frozenset[str]], Outcome]] = {
    ast.If: _FileAnalyzer._if,
    ast.Expr: _FileAnalyzer._expression_statement,
    ast.Assign: _FileAnalyzer._assignment,
    ast.AnnAssign: _FileAnalyzer._assignment,
    ast.AugAssign: _FileAnalyzer._assignment,
    ast.Return: _FileAnalyzer._return,
    ast.Raise: _FileAnalyzer._raise,
    ast.Continue: _FileAnalyzer._jump,
    ast.Break: _FileAnalyzer._jump,
    ast.For: _FileAnalyzer._loop,
    ast.AsyncFor: _FileAnalyzer._loop,
    ast.While: _FileAnalyzer._loop,
    ast.Try: _FileAnalyzer._try,
    ast.TryStar: _FileAnalyzer._try,
    ast.With: _FileAnalyzer._with,
    ast.AsyncWith: _FileAnalyzer._with,
    ast.Match: _FileAnalyzer._match,
    ast.Assert: _FileAnalyzer._assert,
}
_NO_CALLEE: tuple[None, None, None, bool] = (None, None, None, False)
_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_PY_BUILTINS = frozenset(dir(builtins))
_BLOCK_KINDS = frozenset({ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While})
_DEFINITION_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def _definitions(body: Sequence[ast.stmt]) -> list[_Definition]:
    """The functions and classes a block defines, including those under ``if``/``try``/``with``/loops
    (``if TYPE_CHECKING:``, ``try: ... except ImportError: def f(): ...``), not those inside them."""
    found: list[_Definition] = []
    _add_definitions(body, found)
    return found


def _add_definitions(body: Sequence[ast.stmt], found: list[_Definition]) -> None:
    for stmt in body:
        kind = type(stmt)
        if kind in _DEFINITION_KINDS:
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
def _param_taint(name: str, index: int) -> frozenset[TaintOrigin]:
    """A parameter's own taint (shared: parameter names and positions repeat across a tree)."""
    return frozenset({TaintOrigin(kind="param", param=name, index=index)})


@functools.lru_cache(maxsize=1 << 16)
def _call_return(callee: str) -> frozenset[TaintOrigin]:
    """The taint of a value returned by ``callee`` (shared: callees repeat across a tree)."""
    return frozenset({TaintOrigin(kind="call_return", callee=callee)})


def _origin_key(origin: TaintOrigin) -> tuple[str, int, int, str, str]:
    loc = origin.location
    return (origin.kind, loc.line if loc else 0, loc.column if loc else 0, origin.param or "", origin.callee or "")


def _is_user_callee(name: str, resolved: bool, analyzer: _FileAnalyzer) -> bool:
    """Calls the linker may resolve to code in the repository (not the standard library or SDKs)."""
    if name in _BUILTINS:
        return False
    head = name.split(".", 1)[0]
    if name.startswith(analyzer.module + ".") or head in analyzer.local_defs:
        return True
    if not resolved:
        return "." not in name or name.count(".") <= 3
    return head not in _STDLIB_HEADS


_STDLIB_HEADS = frozenset(
    {
        "os", "sys", "json", "re", "time", "datetime", "math", "random", "subprocess", "shutil", "pathlib",
        "logging", "typing", "collections", "itertools", "functools", "asyncio", "io", "csv", "uuid",
        "hashlib", "base64", "urllib", "http", "socket", "threading", "tempfile", "textwrap", "string",
        "dataclasses", "enum", "copy", "pickle", "sqlite3", "requests", "httpx", "aiohttp", "openai",
        "anthropic", "boto3", "stripe", "smtplib", "pydantic", "langchain", "langchain_core", "langgraph",
        "agents", "crewai", "autogen", "pydantic_ai", "smolagents", "llama_index", "mcp", "fastmcp",
    }
)  # fmt: skip


def analyze_python(path: str, source: bytes, digest: str, rules: RulePack) -> FileFacts:
    """Analyse one Python file. Never raises for bad code: a parse failure is recorded in the facts."""
    text = source.decode("utf-8", errors="replace")
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    module = module_name(path)
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None) or 1
        message = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}"
        return FileFacts(
            path=path,
            language="python",
            digest=digest,
            lines=lines,
            module=module,
            parseError=message,
            frontier=[
                FrontierSite(
                    id=short_id("fr", "parse_error", path),
                    kind="parse_error",
                    detail=f"not parsed ({message}); nothing in this file was analysed",
                    location=Location(path=path, line=max(int(line), 1), column=1),
                )
            ],
        )
    mend_surrogates(tree, source)
    analyzer = _FileAnalyzer(path, tree, rules)
    try:
        analyzer.run()
    except RecursionError:
        return FileFacts(
            path=path,
            language="python",
            digest=digest,
            lines=lines,
            module=module,
            parseError="RecursionError: nesting too deep to analyse",
            frontier=[
                FrontierSite(
                    id=short_id("fr", "parse_error", path),
                    kind="parse_error",
                    detail="nesting too deep to analyse; nothing in this file was analysed",
                    location=Location(path=path, line=1, column=1),
                )
            ],
        )

    def loc_key(item: Any) -> tuple[int, int, str]:
        return (item.location.line, item.location.column, item.id)

    return FileFacts(
        path=path,
        language="python",
        digest=digest,
        lines=lines,
        module=module,
        functions=sorted(analyzer.functions, key=lambda f: (f.location.line, f.location.column, f.qualname)),
        models=sorted(_unique(analyzer.models), key=loc_key),
        tools=sorted(_unique(analyzer.tools), key=loc_key),
        frontier=sorted(_unique(analyzer.frontier), key=lambda f: (f.location.line if f.location else 0, f.id)),
    )


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())
