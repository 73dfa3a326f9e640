"""JavaScript / TypeScript analyzer: one file's source -> ``FileFacts``, parsed with tree-sitter.

The same facts as the Python analyzer, from the maintained tree-sitter grammars (never regexes over
text, never executed): names resolved through ``import``/``require`` and simple variable types
(``const client = new OpenAI()``), rules matched on those names, gates with structured dominance over
statements, and taint from model outputs and tool handler parameters.

Names: library calls are ``<package>.<member...>`` (``child_process.exec``, ``openai.chat.completions.create``
for a default-imported client); functions in the tree are ``<module path without extension>#<name>``
(``src/tools/shell#runCommand``, ``src/agent#Agent.step``, an inline tool handler ``src/agent#tool:searchDocs``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser

from assay.backend.bundle import FrontierKind, Location
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
from assay.backend.engines.static.rulematch import Patterns, first_match
from assay.backend.engines.static.rulepack import Rule, RuleKind, RulePack

JsLanguage = Literal["javascript", "typescript", "tsx"]

_SQL_WRITE = re.compile(r"^\s*(insert|update|delete|drop|alter|create|replace|truncate|merge|upsert)\b", re.I)
_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "function",
    }
)
_TERMINATORS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
_BUILTINS = frozenset(
    {
        "eval",
        "Function",
        "fetch",
        "require",
        "console",
        "JSON",
        "Math",
        "Object",
        "Array",
        "Promise",
        "String",
        "Number",
        "Boolean",
        "Date",
        "Error",
        "Set",
        "Map",
        "parseInt",
    }
)
_EXTENSIONS = (".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")


@cache
def _parser(language: JsLanguage) -> Parser:
    if language == "javascript":
        grammar = tree_sitter_javascript.language()
    elif language == "tsx":
        grammar = tree_sitter_typescript.language_tsx()
    else:
        grammar = tree_sitter_typescript.language_typescript()
    return Parser(TSLanguage(grammar))


def module_path(path: str) -> str:
    """``src/tools/shell.ts`` -> ``src/tools/shell``; ``src/lib/index.ts`` stays ``src/lib/index``."""
    for ext in _EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def _package(spec: str) -> str:
    return spec.removeprefix("node:")


@dataclass(frozen=True)
class _Rules:
    models: list[tuple[Rule, Patterns]]
    model_commands: list[tuple[Rule, Patterns]]
    http_hosts: list[tuple[Rule, dict[str, str]]]
    actions: list[tuple[Rule, Patterns]]
    action_commands: list[tuple[Rule, Patterns]]
    gate_calls: list[tuple[Rule, Patterns]]
    gate_names: list[tuple[Rule, Patterns]]
    allowlist: list[tuple[Rule, Patterns]]
    spend: list[tuple[Rule, Patterns]]
    annotation_gate: Rule | None
    tool_property_gate: Rule | None
    object_tools: list[tuple[Rule, Patterns]]
    fn_tools: list[tuple[Rule, Patterns]]
    mcp_tools: list[tuple[Rule, frozenset[str]]]
    literal_tools: list[Rule]
    frontier_tools: list[tuple[Rule, Patterns, frozenset[str]]]
    dispatch_rule: Rule | None


_COMPILED: dict[str, _Rules] = {}


def _compile(rules: RulePack) -> _Rules:
    cached = _COMPILED.get(rules.digest)
    if cached is not None:
        return cached

    def of(kind: RuleKind) -> list[Rule]:
        return rules.for_language("javascript", kind)

    def pats(items: list[Rule], key: str) -> list[tuple[Rule, Patterns]]:
        return [(r, Patterns(r.match[key])) for r in items if key in r.match]

    actions = of("action")
    gates = of("gate")
    tools = of("tool")
    frontier = of("frontier")
    compiled = _Rules(
        models=pats(of("model"), "calls"),
        model_commands=pats(of("model"), "commands"),
        http_hosts=[(r, dict(r.match["http_hosts"])) for r in of("model") if "http_hosts" in r.match],
        actions=pats(actions, "calls"),
        action_commands=pats(actions, "commands") + pats(actions, "command_patterns"),
        gate_calls=pats(gates, "calls"),
        gate_names=pats(gates, "name_patterns"),
        allowlist=pats(gates, "membership_names"),
        spend=pats(gates, "comparison_names"),
        annotation_gate=next((r for r in gates if "annotation_hints" in r.match), None),
        tool_property_gate=next((r for r in gates if "tool_property" in r.match), None),
        object_tools=pats(tools, "object_tool_calls"),
        fn_tools=pats(tools, "fn_tool_calls"),
        mcp_tools=[(r, frozenset(r.match["mcp_server_types"])) for r in tools if "mcp_server_types" in r.match],
        literal_tools=[r for r in tools if "object_literal" in r.match],
        frontier_tools=[
            (r, Patterns(r.match["calls"]), frozenset(r.match.get("runtime", [])))
            for r in frontier
            if "calls" in r.match
        ],
        dispatch_rule=next((r for r in frontier if r.match.get("dynamic_dispatch")), None),
    )
    _COMPILED[rules.digest] = compiled
    return compiled


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _string_value(node: Node | None) -> str | None:
    """The value of a string literal, or the constant text of a template string."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))
    if node.type == "template_string":
        return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")
    return None


def _unwrap(node: Node | None) -> Node | None:
    while node is not None and node.type in (
        "parenthesized_expression",
        "await_expression",
        "as_expression",
        "non_null_expression",
        "satisfies_expression",
        "type_assertion",
    ):
        node = node.named_children[0] if node.named_children else None
    return node


def _props(obj: Node) -> dict[str, Node]:
    """Properties of an object literal by key (``pair`` values, shorthand names, method definitions)."""
    out: dict[str, Node] = {}
    for child in obj.named_children:
        if child.type == "pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            name = _string_value(key) if key is not None and key.type == "string" else _text(key)
            if value is not None and name:
                out[name] = value
        elif child.type == "shorthand_property_identifier":
            out[_text(child)] = child
        elif child.type == "method_definition":
            out[_text(child.child_by_field_name("name"))] = child
    return out


@dataclass
class _Scope:
    qualname: str
    params: list[str]
    types: dict[str, str] = field(default_factory=dict)
    taint: dict[str, frozenset[TaintOrigin]] = field(default_factory=dict)
    gate_vars: dict[str, tuple[str, str]] = field(default_factory=dict)
    calls: list[CallFact] = field(default_factory=list)
    actions: list[ActionSite] = field(default_factory=list)
    gates: list[GateSite] = field(default_factory=list)
    returns: set[TaintOrigin] = field(default_factory=set)
    entry_gates: frozenset[str] = frozenset()


class _FileAnalyzer:
    def __init__(self, path: str, root: Node, rules: RulePack) -> None:
        self.path = path
        self.module = module_path(path)
        self.root = root
        self.rules = _compile(rules)
        self.aliases: dict[str, str] = {}
        self.local_defs: dict[str, str] = {}
        self.module_types: dict[str, str] = {}
        self.functions: list[FunctionFacts] = []
        self.models: list[ModelSite] = []
        self.tools: list[ToolDef] = []
        self.frontier: list[FrontierSite] = []
        self._pending: list[tuple[Node, str, str, frozenset[str]]] = []  # (function node, qualname, name, gates)
        self._handled: set[int] = set()
        # Gates that belong to a tool's handler (needsApproval, MCP annotations), by handler qualname.
        self.tool_gates: dict[str, list[GateSite]] = {}

    def loc(self, node: Node) -> Location:
        return Location(
            path=self.path,
            line=node.start_point[0] + 1,
            column=node.start_point[1] + 1,
            endLine=node.end_point[0] + 1,
        )

    # ----- names -------------------------------------------------------------------------------

    def _resolve_spec(self, spec: str) -> tuple[str, bool]:
        """A module specifier -> (name prefix, is a file of the tree)."""
        if spec.startswith("."):
            base = posixpath.dirname(self.path)
            return module_path(posixpath.normpath(posixpath.join(base, spec))), True
        return _package(spec), False

    def _member(self, spec: str, name: str) -> str:
        prefix, local = self._resolve_spec(spec)
        return f"{prefix}#{name}" if local else f"{prefix}.{name}"

    def _collect_imports(self) -> None:
        for node in self.root.named_children:
            target = node
            if node.type == "export_statement":
                decl = node.child_by_field_name("declaration")
                if decl is not None:
                    target = decl
            if target.type == "import_statement":
                source = _string_value(target.child_by_field_name("source"))
                if source is None:
                    continue
                for clause in target.named_children:
                    if clause.type != "import_clause":
                        continue
                    for part in clause.named_children:
                        if part.type == "identifier":
                            prefix, local = self._resolve_spec(source)
                            self.aliases[_text(part)] = f"{prefix}#default" if local else prefix
                        elif part.type == "namespace_import":
                            ident = next((c for c in part.named_children if c.type == "identifier"), None)
                            if ident is not None:
                                prefix, local = self._resolve_spec(source)
                                self.aliases[_text(ident)] = f"{prefix}#" if local else prefix
                        elif part.type == "named_imports":
                            for spec in part.named_children:
                                if spec.type != "import_specifier":
                                    continue
                                name = _text(spec.child_by_field_name("name"))
                                alias = _text(spec.child_by_field_name("alias")) or name
                                self.aliases[alias] = self._member(source, name)
            elif target.type in ("lexical_declaration", "variable_declaration"):
                for decl in target.named_children:
                    if decl.type == "variable_declarator":
                        self._require(decl)
            if target.type in ("function_declaration", "class_declaration", "generator_function_declaration"):
                name = _text(target.child_by_field_name("name"))
                if name:
                    self.local_defs[name] = f"{self.module}#{name}"
            elif target.type in ("lexical_declaration", "variable_declaration"):
                for decl in target.named_children:
                    value = _unwrap(decl.child_by_field_name("value"))
                    name_node = decl.child_by_field_name("name")
                    if value is not None and value.type in _FUNCTIONS and name_node is not None:
                        self.local_defs[_text(name_node)] = f"{self.module}#{_text(name_node)}"

    def _require(self, decl: Node) -> None:
        value = _unwrap(decl.child_by_field_name("value"))
        if value is None or value.type != "call_expression":
            return
        func = value.child_by_field_name("function")
        if _text(func) != "require":
            return
        args = value.child_by_field_name("arguments")
        spec = _string_value(args.named_children[0]) if args is not None and args.named_children else None
        if spec is None:
            return
        name = decl.child_by_field_name("name")
        if name is None:
            return
        if name.type == "identifier":
            prefix, local = self._resolve_spec(spec)
            self.aliases[_text(name)] = f"{prefix}#" if local else prefix
        elif name.type == "object_pattern":
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    self.aliases[_text(part)] = self._member(spec, _text(part))
                elif part.type == "pair_pattern":
                    key = _text(part.child_by_field_name("key"))
                    self.aliases[_text(part.child_by_field_name("value"))] = self._member(spec, key)

    def dotted(self, node: Node | None, scope: _Scope | None) -> tuple[str | None, bool]:
        node = _unwrap(node)
        if node is None:
            return None, False
        kind = node.type
        if kind in ("identifier", "this"):
            name = _text(node)
            if scope is not None and name in scope.types:
                return scope.types[name], True
            if name in self.module_types:
                return self.module_types[name], True
            if name in self.aliases:
                return self.aliases[name], True
            if name in self.local_defs:
                return self.local_defs[name], True
            return name, name in _BUILTINS
        if kind == "member_expression":
            base, ok = self.dotted(node.child_by_field_name("object"), scope)
            prop = _text(node.child_by_field_name("property"))
            if base is None:
                return None, False
            return (f"{base}{prop}" if base.endswith("#") else f"{base}.{prop}"), ok
        if kind in ("call_expression", "new_expression"):
            field_name = "function" if kind == "call_expression" else "constructor"
            return self.dotted(node.child_by_field_name(field_name), scope)
        if kind == "subscript_expression":
            return self.dotted(node.child_by_field_name("object"), scope)
        return None, False

    # ----- entry -------------------------------------------------------------------------------

    def run(self) -> None:
        self._collect_imports()
        module_scope = _Scope(qualname=f"{self.module}#<module>", params=[])
        self._block(self.root.named_children, module_scope, frozenset())
        self._emit(module_scope, None, "<module>")
        done: set[int] = set()
        while self._pending:
            node, qualname, name, gates = self._pending.pop(0)
            if node.id in done:
                continue
            done.add(node.id)
            self._function(node, qualname, name, gates)

    def _function(self, node: Node, qualname: str, name: str, entry: frozenset[str]) -> None:
        params = self._params(node)
        scope = _Scope(qualname=qualname, params=params, entry_gates=entry)
        for index, param in enumerate(params):
            scope.taint[param] = frozenset({TaintOrigin(kind="param", param=param, index=index)})
        body = node.child_by_field_name("body")
        if body is None:
            return
        if body.type == "statement_block":
            self._block(body.named_children, scope, entry)
        else:  # an arrow function's expression body is its return value
            scope.returns |= self._expr(body, scope, entry)
        self._emit(scope, node, name)

    def _params(self, node: Node) -> list[str]:
        params_node = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params_node is None:
            return []
        if params_node.type == "identifier":
            return [_text(params_node)]
        out: list[str] = []
        for param in params_node.named_children:
            pattern = param.child_by_field_name("pattern") if param.type.endswith("_parameter") else param
            if pattern is None:
                continue
            if pattern.type == "assignment_pattern":
                pattern = pattern.child_by_field_name("left") or pattern
            out.extend(_pattern_names(pattern))
        return out

    def _emit(self, scope: _Scope, node: Node | None, name: str) -> None:
        if node is None and not (scope.calls or scope.actions or scope.gates):
            return
        location = self.loc(node) if node is not None else Location(path=self.path, line=1, column=1)
        self.functions.append(
            FunctionFacts(
                id=short_id("fn", self.path, scope.qualname),
                qualname=scope.qualname,
                name=name,
                location=location,
                params=scope.params,
                calls=scope.calls,
                actions=scope.actions,
                gates=sorted(scope.gates, key=lambda g: (g.location.line, g.location.column, g.id)),
                returns=sorted(scope.returns, key=_origin_key),
            )
        )

    def _defer(self, node: Node, qualname: str, name: str, gates: frozenset[str] = frozenset()) -> None:
        self._pending.append((node, qualname, name, gates))

    # ----- statements ---------------------------------------------------------------------------

    def _block(self, statements: Sequence[Node], scope: _Scope, active: frozenset[str]) -> frozenset[str]:
        for stmt in statements:
            active = self._stmt(stmt, scope, active)
        return active

    def _stmt(self, stmt: Node, scope: _Scope, active: frozenset[str]) -> frozenset[str]:
        kind = stmt.type
        if kind == "export_statement":
            decl = stmt.child_by_field_name("declaration")
            if decl is not None:
                return self._stmt(decl, scope, active)
            for child in stmt.named_children:
                if child.type not in ("export_clause", "string"):
                    self._expr(child, scope, active)
            return active
        if kind in ("function_declaration", "generator_function_declaration"):
            name = _text(stmt.child_by_field_name("name"))
            self._defer(
                stmt,
                f"{self.module}#{name}" if scope.qualname.endswith("<module>") else f"{scope.qualname}.{name}",
                name,
            )
            return active
        if kind == "class_declaration":
            cls = _text(stmt.child_by_field_name("name"))
            body = stmt.child_by_field_name("body")
            for member in body.named_children if body is not None else []:
                if member.type == "method_definition":
                    method = _text(member.child_by_field_name("name"))
                    self._defer(member, f"{self.module}#{cls}.{method}", method)
            return active
        if kind == "statement_block":
            return self._block(stmt.named_children, scope, active)
        if kind == "if_statement":
            return self._if(stmt, scope, active)
        if kind in ("for_statement", "for_in_statement", "while_statement", "do_statement"):
            for child in stmt.named_children:
                if child.type in ("statement_block", "expression_statement") or child.type.endswith("_statement"):
                    self._stmt(child, scope, active)
                else:
                    taint = self._expr(child, scope, active)
                    if kind == "for_in_statement" and child == stmt.child_by_field_name("left"):
                        for name in _pattern_names(child):
                            scope.taint[name] = taint
            return active
        if kind == "try_statement":
            body = stmt.child_by_field_name("body")
            after = self._stmt(body, scope, active) if body is not None else active
            handler = stmt.child_by_field_name("handler")
            if handler is not None:
                for child in handler.named_children:
                    if child.type == "statement_block":
                        self._stmt(child, scope, active)
            finalizer = stmt.child_by_field_name("finalizer")
            if finalizer is not None:
                for child in finalizer.named_children:
                    self._stmt(child, scope, active)
            return active if handler is not None else after
        if kind in ("lexical_declaration", "variable_declaration"):
            for decl in stmt.named_children:
                if decl.type == "variable_declarator":
                    self._declare(decl, scope, active)
            return active
        if kind == "return_statement":
            for child in stmt.named_children:
                scope.returns |= self._expr(child, scope, active)
            return active
        if kind == "expression_statement":
            expr = stmt.named_children[0] if stmt.named_children else None
            if expr is None:
                return active
            if expr.type == "assignment_expression":
                self._assignment(expr, scope, active)
                return active
            self._expr(expr, scope, active)
            gate = self._gate_of_expr(expr, scope)
            return active | {gate} if gate is not None else active
        for child in stmt.named_children:
            if child.type.endswith("statement") or child.type == "statement_block":
                self._stmt(child, scope, active)
            else:
                self._expr(child, scope, active)
        return active

    def _if(self, stmt: Node, scope: _Scope, active: frozenset[str]) -> frozenset[str]:
        condition = stmt.child_by_field_name("condition")
        consequence = stmt.child_by_field_name("consequence")
        alternative = stmt.child_by_field_name("alternative")
        else_body = alternative.named_children[0] if alternative is not None and alternative.named_children else None
        if condition is not None:
            self._expr(condition, scope, active)
        found = self._gate_of_test(condition, scope) if condition is not None else None
        body_ends = _terminates(consequence)
        else_ends = _terminates(else_body)
        if found is None:
            after_body = self._stmt(consequence, scope, active) if consequence is not None else active
            after_else = self._stmt(else_body, scope, active) if else_body is not None else active
            if body_ends and not else_ends:
                return after_else
            if else_ends and not body_ends:
                return after_body
            return after_body & after_else
        gate_id, polarity = found
        if polarity == "positive":
            if consequence is not None:
                self._stmt(consequence, scope, active | {gate_id})
            if else_body is not None:
                self._stmt(else_body, scope, active)
            return active | {gate_id} if else_ends else active
        if consequence is not None:
            self._stmt(consequence, scope, active)
        if else_body is not None:
            self._stmt(else_body, scope, active | {gate_id})
        if body_ends:
            self._sanitise(condition, scope)
            return active | {gate_id}
        return active

    def _sanitise(self, condition: Node | None, scope: _Scope) -> None:
        """After ``if (!ALLOWED.includes(x)) throw``, ``x`` holds an allow-listed value."""
        node = _unwrap(condition)
        if node is not None and node.type == "unary_expression":
            node = _unwrap(node.child_by_field_name("argument"))
        if node is not None and node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else []:
                if arg.type == "identifier":
                    scope.taint[_text(arg)] = frozenset()

    def _declare(self, decl: Node, scope: _Scope, active: frozenset[str]) -> None:
        name_node = decl.child_by_field_name("name")
        value = decl.child_by_field_name("value")
        if name_node is None or value is None:
            return
        inner = _unwrap(value)
        if inner is not None and inner.type in _FUNCTIONS and name_node.type == "identifier":
            name = _text(name_node)
            qualname = f"{self.module}#{name}" if scope.qualname.endswith("<module>") else f"{scope.qualname}.{name}"
            self._defer(inner, qualname, name)
            return
        if (
            inner is not None
            and inner.type == "call_expression"
            and _text(inner.child_by_field_name("function")) == "require"
        ):
            return  # bound as an import alias by _collect_imports
        taint = self._expr(value, scope, active)
        type_name = None
        if inner is not None and inner.type in ("call_expression", "new_expression", "identifier", "member_expression"):
            type_name = self.dotted(inner, scope)[0]
        gate = self._gate_of_expr(value, scope)
        for name in _pattern_names(name_node):
            scope.taint[name] = taint
            if type_name and name_node.type == "identifier":
                scope.types[name] = type_name
                if scope.qualname.endswith("<module>"):
                    self.module_types[name] = type_name
            if gate is not None:
                scope.gate_vars[name] = (gate, "positive")

    def _assignment(self, expr: Node, scope: _Scope, active: frozenset[str]) -> None:
        left = expr.child_by_field_name("left")
        right = expr.child_by_field_name("right")
        taint = self._expr(right, scope, active) if right is not None else frozenset()
        if left is not None and left.type == "identifier":
            scope.taint[_text(left)] = taint
        elif left is not None:
            self._expr(left, scope, active)

    # ----- gates ------------------------------------------------------------------------------

    def _gate(self, scope: _Scope, rule: Rule, node: Node, detail: str) -> str:
        location = self.loc(node)
        gate = GateSite(
            id=short_id("gate", self.path, location.line, location.column, rule.gateKind, detail),
            kind=rule.gateKind or "permission_check",
            ruleId=rule.id,
            location=location,
            detail=detail,
        )
        if all(g.id != gate.id for g in scope.gates):
            scope.gates.append(gate)
        return gate.id

    def _gate_of_expr(self, node: Node | None, scope: _Scope) -> str | None:
        node = _unwrap(node)
        if node is None or node.type != "call_expression":
            return None
        name, _ = self.dotted(node.child_by_field_name("function"), scope)
        if not name:
            return None
        rule = first_match(self.rules.gate_calls, name) or first_match(self.rules.gate_names, name)
        if rule is None:
            return None
        return self._gate(scope, rule, node, name)

    def _gate_of_test(self, condition: Node, scope: _Scope) -> tuple[str, str] | None:
        node = _unwrap(condition)
        negated = False
        while (
            node is not None and node.type == "unary_expression" and _text(node.child_by_field_name("operator")) == "!"
        ):
            negated = not negated
            node = _unwrap(node.child_by_field_name("argument"))
        if node is None:
            return None
        polarity = "negative" if negated else "positive"
        if node.type == "identifier" and _text(node) in scope.gate_vars:
            gate_id, base = scope.gate_vars[_text(node)]
            return gate_id, _flip(base) if negated else base
        gate = self._gate_of_expr(node, scope)
        if gate is not None:
            return gate, polarity
        if node.type == "call_expression":
            func = node.child_by_field_name("function")
            if func is not None and func.type == "member_expression":
                method = _text(func.child_by_field_name("property"))
                holder = _text(func.child_by_field_name("object"))
                rule = first_match(self.rules.allowlist, holder) if method in ("includes", "has") else None
                if rule is not None:
                    return self._gate(scope, rule, node, holder), polarity
        if node.type == "binary_expression":
            operator = _text(node.child_by_field_name("operator"))
            if operator in (">", ">=", "<", "<="):
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                for side, over in ((right, operator in (">", ">=")), (left, operator in ("<", "<="))):
                    ref = _text(side)
                    rule = first_match(self.rules.spend, ref) if ref else None
                    if rule is not None and side is not None:
                        base = "negative" if over else "positive"
                        return self._gate(scope, rule, node, ref), _flip(base) if negated else base
        return None

    # ----- expressions ----------------------------------------------------------------------

    def _expr(self, node: Node | None, scope: _Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        if node is None:
            return frozenset()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier"):
            return scope.taint.get(_text(node), frozenset())
        if kind in ("string", "number", "true", "false", "null", "undefined", "regex", "comment"):
            return frozenset()
        if kind in _FUNCTIONS:
            name = f"<anonymous@{node.start_point[0] + 1}>"
            if node.id not in self._handled:
                self._defer(node, f"{scope.qualname}.{name}", name)
            return frozenset()
        if kind in ("call_expression", "new_expression"):
            return self._call(node, scope, active)
        if kind == "object":
            self._literal_tool(node)
        taint: frozenset[TaintOrigin] = frozenset()
        for child in node.named_children:
            taint |= self._expr(child, scope, active)
        return taint

    def _call(self, node: Node, scope: _Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        is_new = node.type == "new_expression"
        func = node.child_by_field_name("constructor" if is_new else "function")
        args_node = node.child_by_field_name("arguments")
        args = list(args_node.named_children) if args_node is not None else []
        name, resolved = self.dotted(func, scope)
        location = self.loc(node)

        self._tool_call(node, name, args, scope)
        receiver: frozenset[TaintOrigin] = frozenset()
        if func is not None and func.type == "member_expression":
            receiver = self._expr(func.child_by_field_name("object"), scope, active)
        arg_taints = [(i, self._expr(a, scope, active)) for i, a in enumerate(args)]
        all_args: frozenset[TaintOrigin] = frozenset()
        for _, t in arg_taints:
            all_args |= t
        self._dispatch(func, location)
        if not name:
            return all_args | receiver
        gates = sorted(active)

        command = self._command(name, args, scope)
        model_rule = first_match(self.rules.models, name)
        provider = None
        if model_rule is not None:
            provider = model_rule.match.get("providers", {}).get(name, model_rule.provider)
            if model_rule.match.get("provider_from_model_arg"):
                provider = self._model_provider(args, scope) or provider
        elif command is not None:
            model_rule = first_match(self.rules.model_commands, command)
            provider = model_rule.provider if model_rule is not None else None
        if model_rule is None:
            http = self._http_model(name, args)
            if http is not None:
                model_rule, provider = http
        if model_rule is not None:
            via: Literal["sdk", "http"] = "http" if model_rule.match.get("http_hosts") else "sdk"
            self.models.append(
                ModelSite(
                    id=short_id("mdl", self.path, location.line, location.column, model_rule.id),
                    provider=provider or "unknown",
                    api=command or name,
                    via=via,
                    ruleId=model_rule.id,
                    location=location,
                )
            )
            return frozenset({TaintOrigin(kind="model_output", location=location)})

        for rule, patterns, runtime in self.rules.frontier_tools:
            if patterns.matches(name):
                frontier_kind: FrontierKind = (
                    "runtime_registered_tools" if name in runtime else "config_registered_tools"
                )
                self.frontier.append(
                    FrontierSite(
                        id=short_id("fr", frontier_kind, self.path, location.line, location.column),
                        kind=frontier_kind,
                        detail=f"tools obtained at run time through {name}; their reach is not visible to analysis",
                        location=location,
                        ruleId=rule.id,
                    )
                )

        action_rule = self._action_rule(name, command, args)
        if action_rule is not None:
            scope.actions.append(
                ActionSite(
                    id=short_id("act", self.path, location.line, location.column, action_rule.id),
                    actionClass=action_rule.actionClass or "network.egress",
                    impact=action_rule.impact or "medium",
                    ruleId=action_rule.id,
                    target=command or name,
                    location=location,
                    dominatingGates=gates,
                    taint=sorted(all_args | receiver, key=_origin_key),
                )
            )
            return all_args | receiver
        if "#" in name:
            scope.calls.append(
                CallFact(
                    location=location,
                    callee=name,
                    resolved=resolved,
                    dominatingGates=gates,
                    args=[ArgTaint(index=i, origins=sorted(t, key=_origin_key)) for i, t in arg_taints if t],
                )
            )
            return frozenset({TaintOrigin(kind="call_return", callee=name)}) | receiver
        return all_args | receiver

    def _command(self, name: str, args: list[Node], scope: _Scope) -> str | None:
        """``client.send(new XCommand(...))`` (AWS SDK v3): the command's qualified name."""
        if not name.endswith(".send") or not args:
            return None
        arg = _unwrap(args[0])
        if arg is None or arg.type != "new_expression":
            return None
        command, _ = self.dotted(arg.child_by_field_name("constructor"), scope)
        return command

    def _model_provider(self, args: list[Node], scope: _Scope) -> str | None:
        options = _unwrap(args[0]) if args else None
        if options is None or options.type != "object":
            return None
        model = _props(options).get("model")
        name, _ = self.dotted(model, scope)
        if name and name.startswith("@ai-sdk/"):
            return name.split("/", 1)[1].split(".", 1)[0]
        return None

    def _http_model(self, name: str, args: list[Node]) -> tuple[Rule, str] | None:
        net = [(r, p) for r, p in self.rules.actions if r.actionClass == "network.egress"]
        if not first_match(net, name) or not args:
            return None
        url = _string_value(_unwrap(args[0]))
        if url is None:
            return None
        for rule, hosts in self.rules.http_hosts:
            for host, provider in hosts.items():
                if host in url:
                    return rule, provider
        return None

    def _action_rule(self, name: str, command: str | None, args: list[Node]) -> Rule | None:
        if command is not None:
            for rule, patterns in self.rules.action_commands:
                if patterns.matches(command):
                    excluded = rule.match.get("exclude_packages", [])
                    if any(command.startswith(p + ".") for p in excluded):
                        continue
                    return rule
            return None
        for rule, patterns in self.rules.actions:
            if not patterns.matches(name):
                continue
            if rule.match.get("sql_write"):
                sql = _string_value(_unwrap(args[0])) if args else None
                if sql is not None and not _SQL_WRITE.match(sql):
                    continue
            return rule
        return None

    def _dispatch(self, func: Node | None, location: Location) -> None:
        func = _unwrap(func)
        rule = self.rules.dispatch_rule
        if rule is None or func is None:
            return
        target = func
        if func.type == "member_expression":
            target = _unwrap(func.child_by_field_name("object")) or func
        if target.type != "subscript_expression":
            return
        index = target.child_by_field_name("index")
        if index is None or index.type in ("string", "number"):
            return
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "dynamic_dispatch", self.path, location.line, location.column),
                kind="dynamic_dispatch",
                detail=f"{_text(target.child_by_field_name('object')) or 'a table'}[...] is called with a key "
                "chosen at run time",
                location=location,
                ruleId=rule.id,
            )
        )

    # ----- tools --------------------------------------------------------------------------

    def _tool_call(self, node: Node, name: str | None, args: list[Node], scope: _Scope) -> None:
        if not name:
            return
        rule = first_match(self.rules.object_tools, name)
        first = _unwrap(args[0]) if args else None
        if rule is not None and first is not None and first.type == "object":
            props = _props(first)
            tool_name = _string_value(props.get("name"))
            if rule.match.get("name_from") == "property_key":
                tool_name = _enclosing_key(node) or tool_name
            handler = props.get(rule.match.get("handler", "execute"))
            self._register_tool(rule, node, tool_name, _string_value(props.get("description")), handler, props)
            return
        rule = first_match(self.rules.fn_tools, name)
        if rule is not None and args:
            options = _unwrap(args[1]) if len(args) > 1 else None
            props = _props(options) if options is not None and options.type == "object" else {}
            self._register_tool(
                rule, node, _string_value(props.get("name")), _string_value(props.get("description")), args[0], props
            )
            return
        for mcp_rule, types in self.rules.mcp_tools:
            owner, _, method = name.rpartition(".")
            if owner in types and method in ("tool", "registerTool") and args:
                tool_name = _string_value(_unwrap(args[0]))
                description = None
                config: dict[str, Node] = {}
                if method == "registerTool" and len(args) > 1 and _unwrap(args[1]) is not None:
                    second = _unwrap(args[1])
                    config = _props(second) if second is not None and second.type == "object" else {}
                    description = _string_value(config.get("description"))
                elif len(args) > 2:
                    description = _string_value(_unwrap(args[1]))
                self._register_tool(mcp_rule, node, tool_name, description, args[-1], config)
                return

    def _register_tool(
        self,
        rule: Rule,
        node: Node,
        name: str | None,
        description: str | None,
        handler: Node | None,
        props: dict[str, Node],
    ) -> None:
        if not name:
            return
        location = self.loc(node)
        annotations: dict[str, bool] = {}
        ann = props.get("annotations")
        if ann is not None and ann.type == "object":
            for key, value in _props(ann).items():
                if value.type in ("true", "false"):
                    annotations[key] = value.type == "true"
        entry: set[str] = set()
        gate_scope = _Scope(qualname="", params=[])
        approval = rule.match.get("approval_property")
        if approval and self.rules.tool_property_gate is not None:
            flag = props.get(approval)
            if flag is not None and flag.type != "false":
                entry.add(self._gate(gate_scope, self.rules.tool_property_gate, flag, f"{approval}"))
        hints = [k for k in ("readOnlyHint", "destructiveHint") if k in annotations]
        if hints and self.rules.annotation_gate is not None:
            detail = ", ".join(f"{k}={annotations[k]}" for k in hints)
            entry.add(self._gate(gate_scope, self.rules.annotation_gate, ann or node, detail))
        function: str | None = None
        params: list[str] = []
        handler_node = _unwrap(handler)
        if handler_node is not None and handler_node.type in _FUNCTIONS:
            function = f"{self.module}#tool:{name}"
            params = self._params(handler_node)
            self._handled.add(handler_node.id)
            self._defer(handler_node, function, f"tool:{name}", frozenset(entry))
            if gate_scope.gates:
                self.tool_gates.setdefault(function, []).extend(gate_scope.gates)
        elif handler_node is not None:
            function = self.dotted(handler_node, None)[0]
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, name, rule.id),
                name=name,
                description=description,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                function=function,
                parameters=params,
                annotations=annotations,
            )
        )

    def _literal_tool(self, node: Node) -> None:
        props = _props(node)
        for rule in self.rules.literal_tools:
            kind = rule.match["object_literal"]
            name = description = None
            if kind == "openai_function" and _string_value(props.get("type")) == "function":
                inner = props.get("function")
                source = _props(inner) if inner is not None and inner.type == "object" else props
                name, description = _string_value(source.get("name")), _string_value(source.get("description"))
            elif kind == "anthropic_tool" and "input_schema" in props:
                name, description = _string_value(props.get("name")), _string_value(props.get("description"))
            if name:
                location = self.loc(node)
                self.tools.append(
                    ToolDef(
                        id=short_id("tool", self.path, location.line, name, rule.id),
                        name=name,
                        description=description,
                        framework=rule.framework or "unknown",
                        ruleId=rule.id,
                        location=location,
                    )
                )
                if self.rules.dispatch_rule is not None:
                    self.frontier.append(
                        FrontierSite(
                            id=short_id("fr", "dynamic_dispatch", self.path, location.line, name),
                            kind="dynamic_dispatch",
                            detail=f"tool {name} is defined as a literal; its implementation is chosen at run time",
                            location=location,
                            ruleId=self.rules.dispatch_rule.id,
                        )
                    )
                return


def _enclosing_key(node: Node) -> str | None:
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "await_expression"):
        parent = parent.parent
    if parent is not None and parent.type == "pair":
        key = parent.child_by_field_name("key")
        return _string_value(key) if key is not None and key.type == "string" else _text(key)
    return None


def _pattern_names(pattern: Node) -> list[str]:
    if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [_text(pattern)]
    out: list[str] = []
    for child in pattern.named_children:
        if child.type == "pair_pattern":
            value = child.child_by_field_name("value")
            if value is not None:
                out.extend(_pattern_names(value))
        elif child.type in (
            "identifier",
            "shorthand_property_identifier_pattern",
            "object_pattern",
            "array_pattern",
            "rest_pattern",
            "assignment_pattern",
        ):
            target = child.child_by_field_name("left") if child.type == "assignment_pattern" else child
            out.extend(_pattern_names(target) if target is not None else [])
    return out


def _terminates(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type in _TERMINATORS:
        return True
    if node.type == "statement_block":
        children = [c for c in node.named_children if c.type != "comment"]
        return bool(children) and children[-1].type in _TERMINATORS
    return False


def _flip(polarity: str) -> str:
    return "negative" if polarity == "positive" else "positive"


def _origin_key(origin: TaintOrigin) -> tuple[str, int, int, str, str]:
    loc = origin.location
    return (origin.kind, loc.line if loc else 0, loc.column if loc else 0, origin.param or "", origin.callee or "")


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return node


def _error_bytes(node: Node) -> int:
    """Bytes of the file inside ERROR nodes (outermost only)."""
    if node.type == "ERROR":
        return node.end_byte - node.start_byte
    if not node.has_error:
        return 0
    return sum(_error_bytes(child) for child in node.children)


def analyze_javascript(path: str, source: bytes, digest: str, language: JsLanguage, rules: RulePack) -> FileFacts:
    """Analyse one JS/TS file. A file with syntax errors still yields facts from the parts that parsed,
    plus a ``parse_error`` frontier item; ``parseError`` is set only when nothing could be parsed."""
    text_lines = source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    tree = _parser(language).parse(source)
    root = tree.root_node
    analyzer = _FileAnalyzer(path, root, rules)
    parse_error: str | None = None
    if root.has_error:
        error = _first_error(root)
        line = (error.start_point[0] + 1) if error is not None else 1
        if _error_bytes(root) * 2 > max(len(source.strip()), 1):
            parse_error = f"syntax error at line {line}; most of the file could not be parsed"
        analyzer.frontier.append(
            FrontierSite(
                id=short_id("fr", "parse_error", path),
                kind="parse_error",
                detail=parse_error or f"syntax error at line {line}; the rest of the file was analysed",
                location=Location(path=path, line=line, column=1),
            )
        )
    analyzer.run()
    functions = analyzer.functions
    if analyzer.tool_gates:
        functions = [
            f.model_copy(
                update={
                    "gates": sorted(
                        [*f.gates, *analyzer.tool_gates.get(f.qualname, [])],
                        key=lambda g: (g.location.line, g.location.column, g.id),
                    )
                }
            )
            if f.qualname in analyzer.tool_gates
            else f
            for f in functions
        ]

    def key(item: Any) -> tuple[int, int, str]:
        return (item.location.line, item.location.column, item.id)

    return FileFacts(
        path=path,
        language=language,
        digest=digest,
        lines=text_lines,
        module=analyzer.module,
        parseError=parse_error,
        functions=sorted(functions, key=lambda f: (f.location.line, f.location.column, f.qualname)),
        models=sorted({m.id: m for m in analyzer.models}.values(), key=key),
        tools=sorted({t.id: t for t in analyzer.tools}.values(), key=key),
        frontier=sorted(
            {f.id: f for f in analyzer.frontier}.values(), key=lambda f: (f.location.line if f.location else 0, f.id)
        ),
    )
