"""Expressions: what may flow out of each (taint), walking it for calls, functions and assignments."""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    CALLBACK,
    ArgTaint,
    CallFact,
    FrontierSite,
    FunctionFacts,
    TaintOrigin,
)
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.bindings import BindingLogic
from assay.backend.engines.static.jsts.graph_state import state_origin
from assay.backend.engines.static.jsts.scope import EMPTY, LITERAL_PATH, Scope, Taint, call_return_taint
from assay.backend.engines.static.jsts.scope import param_taint as own_param
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, LITERALS, unwrap
from assay.backend.engines.static.pyast.models import trusted

# Items of one array, argument list or template walked at most: beyond that a literal is data.
MAX_LITERAL_ITEMS = 5000


# Literals a path may be spelled as (``"gen.js"``, ```node gen.js` ``).
_TEXTS = frozenset({"string", "template_string"})


class ExprLogic(BindingLogic):
    """Expressions, operators with short-circuit gates, anonymous functions analysed in place, object literals."""

    def expr(self, node: Node | None, scope: Scope, active: frozenset[str]) -> Taint:
        """What may flow out of an expression, walking it for calls, functions and assignments."""
        if node is None:
            return EMPTY
        kinds = self.code.kinds  # ``kinds[node.kind_id]`` is ``node.type``, without building the string
        kind = kinds[node.kind_id]
        member = kind == "member_expression"
        whole = node
        while kind == "member_expression":  # what flows out of ``a.b.c`` is what flows out of ``a``
            node = node.child_by_field_id(self.fields.object)
            if node is None:
                return EMPTY
            kind = kinds[node.kind_id]
        if kind == "this" and member and scope.cls:
            # ``this.command``: what the class's methods store in that field (gathered by the linker).
            return frozenset({TaintOrigin(kind="field", callee=f"{scope.cls}.{self.field_name(whole)}")})
        if kind == "identifier" or kind == "shorthand_property_identifier":  # the commonest case by far
            name = self.code.src[node.start_byte : node.end_byte].decode("utf-8", "replace")
            if member and name == "process":
                self.env_read(node, scope, active)
            if member and scope.state is not None and name == scope.state[0]:
                # ``state.query`` in a graph node: what the graph's nodes write under the key.
                return scope.taint_of(name) | state_origin(scope.state[1], self.field_name(whole))
            return scope.taint_of(name)
        handler = _EXPR_HANDLERS.get(kind)
        if handler is not None:
            return handler(self, node, scope, active)
        if kind in LITERALS:
            return self.written_path(node, scope) if scope.literal_paths and kind in _TEXTS else EMPTY
        return self.children_taint(node, scope, active)

    def written_path(self, node: Node, scope: Scope) -> Taint:
        """What a string literal carries as a path written before (``"gen.js"``, a word of ``"node gen.js"``)."""
        text = self.code.string_value(node)
        if not text:
            return EMPTY
        found = EMPTY
        for path in scope.literal_paths:
            if path == text or path in text.split():
                found = found | scope.taint_of(f"{LITERAL_PATH}{path}")
        return found

    def yielded(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        """``yield line``: what a generator yields is what it gives its caller, as a ``return`` would. The
        expression's own value is what the caller sends back in: nothing of the yielded value's."""
        taint = self.children_taint(node, scope, active)
        if taint:
            scope.returns |= taint
        return EMPTY

    def children_taint(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        """Any other expression (arrays, templates, unary and update operators, spreads...): the union of
        what its parts carry."""
        taint = EMPTY
        children = node.named_children
        if len(children) > MAX_LITERAL_ITEMS:  # a data table written as code: cut, and said so
            self.literal_cut(node, len(children))
            children = children[:MAX_LITERAL_ITEMS]
        for child in children:
            found = self.expr(child, scope, active)
            if found:  # most parts carry nothing: skip building a new set for them
                taint = taint | found if taint else found
        return taint

    def run_approval(self, key: bytes, value: Node, pair: Node, scope: Scope) -> None:
        """``agent.stream(prompt, { requireToolApproval: true })``: the run holds each of its tool calls
        for a person's approval, a gate where the option is written (not when it is ``false``). ``key``:
        the pair's key as written."""
        rule = self.rules.run_approval
        assert rule is not None
        name = key.decode("utf-8", "replace").strip("\"'`")
        if name in rule.match["run_approval_options"] and value.type != "false":
            self.gate_site(scope, rule, pair, f"{name} on this run")

    def hook_gates(self, key: bytes, function: Node, scope: Scope) -> list[str]:
        """``hooks: { onToolStart: async ({ tool, args }) => { if (...) throw new ToolDeniedError(...) } }``:
        a hook that runs before every tool call and refuses some (a ``throw`` or a deny/block decision
        under a condition) is a permission check in front of the agent's tools, at the condition."""
        rule = self.rules.hook_gate
        assert rule is not None
        if key.decode("utf-8", "replace") not in rule.match["before_tool_hooks"]:
            return []
        made: list[str] = []
        body = function.child_by_field_id(self.fields.body)
        stack = [body] if body is not None else []
        while stack:
            node = stack.pop()
            if node.type == "if_statement":
                # The refusal on either branch: ``if (decision === "allow") return allow; else return deny``.
                branches = (
                    node.child_by_field_id(self.fields.consequence),
                    node.child_by_field_id(self.fields.alternative),
                )
                if any(branch is not None and _refuses(self.code.raw(branch)) for branch in branches):
                    made.append(self.gate_site(scope, rule, node, f"{key.decode()} refuses some tool calls"))
                    continue
            if node.type not in FUNCTIONS or node is body:
                stack.extend(reversed(node.named_children))
        return made

    def matched_hook(self, hook: bytes, entry: Node, scope: Scope) -> None:
        """One entry of an event's hook list (``{ matcher: "Write|Edit", hooks: [async (input) => ...] }``):
        the gates its functions make hold over the tools the matcher names (``tool_hooks``)."""
        made: list[str] = []
        stack = [entry]
        while stack:
            item = unwrap(stack.pop())
            if item is None:
                continue
            if item.type in FUNCTIONS:
                made.extend(self.hook_gates(hook, item, scope))
            elif item.type in ("object", "array", "pair"):
                stack.extend(item.named_children)
        inner = unwrap(entry)
        props = self.code.props(inner) if inner is not None and inner.type == "object" else {}
        matcher = self.constant(props.get("matcher"), scope) if "matcher" in props else None
        if made and entry.parent is not None:
            self.tool_hooks.append((matcher, made, entry.parent))

    def literal_cut(self, node: Node, count: int) -> None:
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "literal_cut", self.path, location.line, location.column),
                kind="parse_error",
                detail=f"a literal of {count} items at line {location.line} is cut after {MAX_LITERAL_ITEMS}; "
                "what the rest calls is not analysed",
                location=location,
            )
        )

    def binary(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        kinds = self.code.kinds
        operator = self.code.operator_of(node)
        left, right = node.child_by_field_id(self.fields.left), node.child_by_field_id(self.fields.right)
        if operator not in ("&&", "||"):
            # Long left-deep chains ("a" + b + "c" + ...) are walked iteratively, not recursively.
            rights: list[Node | None] = [right]
            while (
                left is not None
                and kinds[left.kind_id] == "binary_expression"
                and self.code.operator_of(left) not in ("&&", "||")
            ):
                rights.append(left.child_by_field_id(self.fields.right))
                left = left.child_by_field_id(self.fields.left)
            taint = self.expr(left, scope, active)
            for operand in reversed(rights):
                taint |= self.expr(operand, scope, active)
            return taint
        taint = self.expr(left, scope, active)
        cond = self.cond(left, scope)
        active = active | (cond.t if operator == "&&" else cond.f)
        return taint | self.expr(right, scope, active)

    def ternary(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        """``ok ? run(cmd) : refuse()``. A condition that only picks a value (``level === "safe" ? SAFE :
        FORBIDDEN``, a check shown in a message) decides no effect: its checks are not gates."""
        condition = node.child_by_field_id(self.fields.condition)
        self.expr(condition, scope, active)
        cond = self.held_cond(condition, scope)
        before = (len(scope.calls), len(scope.actions))
        taint = self.expr(node.child_by_field_id(self.fields.consequence), scope, active | cond.t) | self.expr(
            node.child_by_field_id(self.fields.alternative), scope, active | cond.f
        )
        if (len(scope.calls), len(scope.actions)) != before:
            scope.commit(cond)
        return taint

    def anonymous(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        return self.inline(node, scope, active, EMPTY)

    def class_expr(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        del active
        self.class_body(node, scope, "")
        return EMPTY

    def inline(
        self,
        node: Node,
        scope: Scope,
        active: frozenset[str],
        param_taint: Taint,
        *,
        own: bool = False,
        element: tuple[int, str] | None = None,
        settles: bool = False,
        given_to: tuple[str, int] | None = None,
    ) -> Taint:
        """Analyse an anonymous function where it is created; returns what it returns. With ``own``
        (a request handler's callback), each parameter carries itself, for the tool branches inside.
        ``element``: the parameter (by position) that is each element of a list of the tree, and the
        list's name (``tools(ctx).forEach((tool) => ...)``). ``settles``: the function is a promise's
        executor (``new Promise((resolve) => ...)``): what it passes its first parameter is the promise's
        value, so it is returned too. ``given_to``: the function of the tree the callback is handed to and the
        argument position; a parameter whose type the code does not say holds what that function passes it
        (``CALLBACK``, read by the linker)."""
        if node.id in self.claimed:
            return EMPTY
        sub = scope.child()
        names, types = self.params(node)
        resolver = names[0] if settles and names else None
        if resolver is not None:
            sub.settled[resolver] = set()
        sub.inner_params = names
        for index, name in enumerate(names):
            sub.taint[name] = param_taint | own_param(name, index) if own else param_taint
            sub.types.pop(name, None)
            sub.elements.pop(name, None)
        sub.types.update(types)
        if given_to is not None:
            function, position = given_to
            for index, name in self.plain_params(node):
                if name not in types:
                    sub.types[name] = f"{CALLBACK}{function}|{position}|{index}"
        self.param_defaults(node, sub)
        if element is not None and element[0] < len(names):
            sub.elements[names[element[0]]] = element[1]
        body = node.child_by_field_id(self.fields.body)
        if body is None:
            return EMPTY
        if body.type == "statement_block":
            self.block(body.named_children, sub, active)
        else:
            sub.returns |= self.expr(body, sub, active)
        if resolver is not None:
            return frozenset(sub.returns | sub.settled.pop(resolver))
        return frozenset(sub.returns)

    def plain_params(self, node: Node) -> list[tuple[int, str]]:
        """A function's parameters that are plain names, with their positions (``(conn, options) => ...``)."""
        params_node = node.child_by_field_id(self.fields.parameters) or node.child_by_field_id(self.fields.parameter)
        if params_node is None:
            return []
        if params_node.type == "identifier":
            return [(0, self.code.text(params_node))]
        out: list[tuple[int, str]] = []
        for index, param in enumerate(params_node.named_children):
            pattern = param.child_by_field_id(self.fields.pattern) if param.type.endswith("_parameter") else param
            if pattern is not None and pattern.type == "identifier":
                out.append((index, self.code.text(pattern)))
        return out

    def object(
        self,
        node: Node,
        scope: Scope,
        active: frozenset[str],
        owner: str | None = None,
        keys: dict[str, Taint] | None = None,
    ) -> Taint:
        """An object literal: tool definitions in it, and functions in it (named ``owner.key`` when the
        object is bound at the top level, so ``handlers.run(x)`` calls ``<module>#handlers.run``). With
        ``keys``, what each plain key's value carries is kept there (a graph node's state update)."""
        kinds = self.code.kinds
        recognizer = self.tool_recognizer
        before = len(self.tools)
        recognizer.literal_tool(node, scope)
        taint = EMPTY
        sep = "" if owner is not None and owner.endswith("#") else "."
        if owner is not None and len(self.tools) == before:
            recognizer.definition_object(node, owner, sep)
        parent = node.parent
        toolset = parent is not None and kinds[parent.kind_id] == "pair" and recognizer.in_tool_set(node, scope)
        paired = recognizer.paired_definition(node, scope) if owner is None and not toolset else None
        fields, rules, code = self.fields, self.rules, self.code
        for child in node.named_children:
            kind = kinds[child.kind_id]
            if kind == "pair":
                key = child.child_by_field_id(fields.key)
                value = child.child_by_field_id(fields.value)
                inner = unwrap(value)
                if paired is not None and inner == paired[0]:
                    continue  # a record pairing a definition with its function: no placement under its key
                if inner is None:
                    continue
                inner_kind = kinds[inner.kind_id]
                key_raw = code.raw(key)  # the key as written, read once (b"" for none)
                if key is not None and rules.run_approval is not None:
                    self.run_approval(key_raw, inner, child, scope)
                if key is not None and inner_kind in FUNCTIONS and rules.hook_gate is not None:
                    hooked = self.hook_gates(key_raw, inner, scope)
                    if hooked:  # ``canUseTool: async (name, input) => ...``: before every tool the options give
                        self.tool_hooks.append((None, hooked, child))
                elif (
                    key is not None
                    and inner_kind == "array"
                    and rules.hook_gate is not None
                    and key_raw.decode("utf-8", "replace") in rules.hook_gate.match["before_tool_hooks"]
                ):
                    # ``PreToolUse: [{ matcher: "Write|Edit", hooks: [async (input) => ...] }]`` (Claude
                    # Agent SDK): the functions listed under the hook's matchers.
                    for entry in inner.named_children:
                        self.matched_hook(key_raw, entry, scope)
                if key is not None and inner_kind == "array" and rules.builtin_lists:
                    recognizer.builtin_list(key_raw, inner, scope)
                if key is not None and inner_kind == "array" and rules.subagent_tools:
                    recognizer.subagent_tool(child, key_raw, inner, node, scope)
                if (
                    inner_kind != "object"
                    and key is not None
                    and key_raw in rules.tool_list_keys
                    and (call := recognizer.options_call(node, scope)) is not None
                ):
                    recognizer.tool_list(child, inner, scope, active, call)
                    continue
                if inner_kind == "identifier":
                    key_text = self.code.key_name(key)
                    variable = self.code.text(inner)
                    if (
                        variable not in recognizer.tool_vars
                        and key is not None
                        and kinds[key.kind_id] != "computed_property_name"
                    ):
                        recognizer.placement(child, key_text, inner, scope, toolset)
                    recognizer.rename(variable, key_text)
                    target, _ = self.dotted(inner, scope)
                    if key_text and target is not None and "#" in target:  # { get_weather: getWeather }
                        self.named_impls.setdefault(key_text, target)
                        if owner is not None:
                            self.forward(f"{owner}{sep}{key_text}", target, child)
                elif (
                    inner_kind in FUNCTIONS
                    and owner is not None
                    and key is not None
                    and kinds[key.kind_id] != "computed_property_name"
                ):
                    key_text = self.code.key_name(key)
                    if inner.id not in self.claimed:
                        self.defer(inner, f"{owner}{sep}{key_text}", key_text, cls=scope.cls, outer=scope)
                        if key_text:
                            self.named_impls.setdefault(key_text, f"{owner}{sep}{key_text}")
                    continue
                if key is not None and kinds[key.kind_id] == "computed_property_name":
                    self.expr(key, scope, active)
                    taint |= self.expr(value, scope, active)
                    continue
                made = len(self.tools)
                found = self.expr(value, scope, active)
                taint |= found
                if keys is not None and found and key is not None:
                    keys[self.code.key_name(key)] = found
                # Placed unless the value defines a tool itself; the uses its own arguments' keys make
                # (``createDocument({ session, dataStream })``) are not the tool the key places.
                if inner_kind in ("call_expression", "member_expression") and all(
                    t.ref is not None for t in self.tools[made:]
                ):
                    recognizer.placement(child, self.code.key_name(key), inner, scope, toolset)
            elif kind == "shorthand_property_identifier":  # { weatherTool }
                name = self.code.text(child)
                if name not in recognizer.tool_vars:
                    recognizer.placement(child, name, child, scope, toolset)
                elif toolset:  # ``tools: { weatherTool }`` in a model's tool set: named by the key
                    recognizer.rename(name, name)
                if owner is not None:
                    target, _ = self.resolve_name(name, scope)
                    if target is not None and "#" in target:
                        self.forward(f"{owner}{sep}{name}", target, child)
                found = self.expr(child, scope, active)
                taint |= found
                if keys is not None and found:
                    keys[name] = found
            elif kind == "method_definition":
                method = self.code.text(child.child_by_field_id(self.fields.name))
                if owner is not None and child.id not in self.claimed:
                    self.defer(child, f"{owner}{sep}{method}", method, cls=scope.cls, outer=scope)
                else:
                    self.inline(child, scope, active, EMPTY)
            else:
                taint |= self.expr(child, scope, active)
        if paired is not None:
            # ... and the function, analysed where it is written, is also the tool's body of its own
            self.defer(paired[1], paired[2], paired[2].rsplit("#", 1)[1], outer=scope)
        return taint

    def forward(self, qualname: str, target: str, node: Node) -> None:
        """``export const api = { run: runImpl }``: ``api.run(...)`` calls ``runImpl``, through a function
        of that name passing its arguments on (up to ``_FORWARDED``) and returning what it returns."""
        if qualname == target or qualname in self.emitted:
            return
        self.emitted.add(qualname)
        location = self.loc(node)
        params = [f"arg{i}" for i in range(_FORWARDED)]
        self.functions.append(
            trusted(
                FunctionFacts,
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=qualname.rsplit(".", 1)[-1].rsplit("#", 1)[-1],
                location=location,
                params=params,
                calls=[
                    trusted(
                        CallFact,
                        location=location,
                        callee=target,
                        resolved=True,
                        dominatingGates=[],
                        args=[
                            ArgTaint(index=i, origins=sorted(own_param(p, i), key=origin_key))
                            for i, p in enumerate(params)
                        ],
                    )
                ],
                actions=[],
                gates=[],
                returns=sorted(call_return_taint(target), key=origin_key),
                fieldWrites=[],
                returnType=None,
            )
        )


# Arguments a forwarding function passes on (``api.run(a, b)`` -> ``runImpl(a, b)``).
_FORWARDED = 8

# ``expr`` dispatches on the node type with one dict probe instead of a chain of comparisons. The table
# holds plain functions, not bound methods: an analyzer holding its own bound methods would be a
# reference cycle, kept (with its whole tree) until the cyclic collector runs.
_EXPR_HANDLERS: dict[str, Callable[[ExprLogic, Node, Scope, frozenset[str]], Taint]] = {
    "call_expression": ExprLogic.call,
    "new_expression": ExprLogic.call,
    "object": ExprLogic.object,
    "assignment_expression": ExprLogic.assign,
    "augmented_assignment_expression": ExprLogic.assign,
    "binary_expression": ExprLogic.binary,
    "ternary_expression": ExprLogic.ternary,
    "class": ExprLogic.class_expr,
    "yield_expression": ExprLogic.yielded,
    **dict.fromkeys(FUNCTIONS, ExprLogic.anonymous),
}


def _refuses(text: bytes) -> bool:
    """A branch of a before-tool hook that refuses the call: a ``throw``, or a deny / block decision."""
    return b"throw " in text or any(w in text for w in (b'"deny"', b"'deny'", b'"block"', b"'block'"))
