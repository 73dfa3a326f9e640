"""Gates and conditions: which gates a condition proves when it is true or false (``Cond``)."""

from __future__ import annotations

from tree_sitter import Node

from assay.backend.engines.static.facts import ANSWER, PRESENT, RESULT, GateSite, checked_call
from assay.backend.engines.static.jsts.base import AnalyzerBase
from assay.backend.engines.static.jsts.scope import NO_COND, Cond, Scope
from assay.backend.engines.static.jsts.syntax import unwrap
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.snippets import snippet

_CHECKS = frozenset({b"includes", b"has", b"test", b"startsWith"})
# A lookup in a table named as an allowlist (``this.whitelist.get(cmd)``): absent means refused.
_LOOKUPS = frozenset({b"get"})
_NOTHING = frozenset({"null", "undefined"})
# ``FORBIDDEN.some((w) => sql.includes(w))``: a value checked against each entry of a list.
_EACH = frozenset({b"some", b"every", b"find"})
_ELEMENT_CHECKS = frozenset({b"includes", b"startsWith", b"endsWith", b"test", b"match"})
_EQUALITY = frozenset({"===", "==", "!==", "!="})
# Where a refusing check and a loop's condition part: ``tries < 5`` against ``tries >= 5``.
_OPPOSITE = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "===": "!==", "!==": "===", "==": "!=", "!=": "=="}
# A list's size compared with a number: whether the comparison holds when the list is empty.
_EMPTY = {
    ("===", "0"): True,
    ("==", "0"): True,
    ("<", "1"): True,
    ("<=", "0"): True,
    ("!==", "0"): False,
    ("!=", "0"): False,
    (">", "0"): False,
    (">=", "1"): False,
}
# Properties of a result object that say whether a validator's check passed (``{ ok: true, path }``).
_FLAGS = frozenset(
    {b"ok", b"success", b"valid", b"allowed", b"authorized", b"isValid", b"isAllowed", b"permitted", b"approved"}
)


class GateLogic(AnalyzerBase):
    """Gate calls, allowlist membership, spend ceilings, and their combinations with ``!``/``&&``/``||``."""

    def gate_call(self, node: Node | None, scope: Scope) -> str | None:
        """The gate id when ``node`` is a call to a gate function (approval, permission, rate, budget)."""
        kinds = self.code.kinds
        node = unwrap(node)
        if node is None or kinds[node.kind_id] != "call_expression":
            return None
        if node.id in self.call_gates:  # the call was already walked
            return self.call_gates[node.id]
        name, _ = self.dotted(node.child_by_field_id(self.fields.function), scope)
        rule = self.rules.gate(name) if name else None
        if rule is None or name is None:
            return None
        return scope.add_gate(self.make_gate(rule, node, name))

    def choice_prompt(self, name: str | None, args: list[Node]) -> Rule | None:
        """The gate rule of a call that puts a question with choices to a person: a notification with
        actions, a message box with buttons (``notifier.notify({ actions: "Allow", wait: true }, cb)``),
        by its options object offering them; None for the same call without choices (a plain notice)."""
        found = self.rules.choice_prompt(name) if name else None
        if found is None or not args:
            return None
        rule, keys = found
        options = unwrap(args[0])
        if options is None or options.type != "object":
            return None
        return rule if any(key.encode() in keys for key in self.code.props(options)) else None

    def cond(self, node: Node | None, scope: Scope) -> Cond:
        """What a condition proves when it is true and when it is false (see ``Cond``)."""
        kinds = self.code.kinds
        node = unwrap(node)
        if node is None:
            return NO_COND
        kind = kinds[node.kind_id]
        failed = self.failures_left(node, scope)
        if failed:
            return failed
        if kind == "unary_expression" and self.code.operator_of(node) == "!":
            return self.cond(node.child_by_field_id(self.fields.argument), scope).negate()
        if kind == "identifier":
            held = scope.gate_vars.get(self.code.text(node))
            if held is None:
                return self.readonly_mode(node, node, scope)
            if not scope.holding:
                scope.commit(held)
            return self.relocated(held, node)
        if kind == "member_expression":
            flagged = self.result_flag(node, scope)
            if flagged:
                return flagged
            holder = unwrap(node.child_by_field_id(self.fields.object))
            if scope.gate_vars and holder is not None and kinds[holder.kind_id] == "identifier":
                # ``answers.go`` with ``answers = await inquirer.prompt([{ type: "confirm", name: "go" }])``: a
                # field of a person's answer holds what the question proves, as the whole answer does.
                held = scope.gate_vars.get(self.code.text(holder))
                if held is not None and self.answered(held, scope):
                    if not scope.holding:
                        scope.commit(held)
                    return self.relocated(held, node)
            return self.readonly_mode(node, node.child_by_field_id(self.fields.property), scope)
        if kind == "call_expression":
            gate = self.gate_call(node, scope)
            if gate is not None:
                # a function of the tree named as a check is also what its body checks, where that is a
                # check of another kind
                named: str | None = next((g.kind for g in scope.gates if g.id == gate), None)
                return Cond(t=frozenset({gate}) | self.returned(node, scope, besides=named).t)
            return self.membership(node, scope) or self.returned(node, scope)
        if kind == "binary_expression":
            operator = self.code.operator_of(node)
            left, right = node.child_by_field_id(self.fields.left), node.child_by_field_id(self.fields.right)
            if operator in ("&&", "||") and self.root_itself(left, right, equal=operator == "||"):
                return self.cond(right, scope)
            if operator == "&&":
                first, second = self.cond(left, scope), self.cond(right, scope)
                if not first.f and self.guards(left, right):
                    # ``entry && entry.level === Level.FORBIDDEN``: ``entry`` only makes sure there is
                    # something to read; where the whole is false, the check on it was passed.
                    return Cond(t=first.t | second.t, f=second.f, t_clean=first.t_clean | second.t_clean)
                if first.t == first.f and self.setting_switch(left, scope):
                    # ``readOnly && !isReadOnlyQuery(sql)``, ``!allowWrites && !isSelect(sql)``: a switch says
                    # when the check applies; where the whole is false under it, the check was passed.
                    return Cond(
                        t=first.t | second.t,
                        f=first.f | second.f,
                        t_clean=first.t_clean | second.t_clean,
                        f_clean=second.f_clean,
                    )
                return first.both(second)
            if operator == "||":
                return self.any_of(self.cond(left, scope), self.cond(right, scope), scope)
            if operator in _EQUALITY:
                level = self.level_check(node, operator, left, right, scope)
                if level:
                    return level
                # ``ok === true``, ``answer !== "y"``, ``level === null``: the gate of the compared value,
                # or its negation.
                for side, other in ((right, left), (left, right)):
                    if side is not None and kinds[side.kind_id] in ("true", "false", "string", "number", *_NOTHING):
                        flag = unwrap(other)
                        inner = (
                            self.result_flag(flag, scope)
                            if flag is not None and kinds[flag.kind_id] == "member_expression"
                            else NO_COND
                        )
                        inner = inner or self.cond(self.root_value(other), scope)
                        if not inner and kinds[side.kind_id] == "string" and self.code.string_value(side):
                            # (``x.trim() === ""`` asks whether there is anything, a check of shape, not of
                            # what is allowed)
                            inner = self.literal_comparison(other, scope)
                        positive = kinds[side.kind_id] not in ("false", *_NOTHING)
                        if operator in ("!==", "!="):
                            positive = not positive
                        return inner if positive else inner.negate()
                return NO_COND
            if operator in (">", ">=", "<", "<="):
                return self.ceiling(node, operator, left, right, scope)
        return NO_COND

    def readonly_mode(self, node: Node, name: Node | None, scope: Scope) -> Cond:
        """``isReadOnlyMode`` / ``config.readOnly``: a read-only mode switch tested on the path is a
        permission check that holds on both branches (whatever runs after it was allowed by the mode)."""
        rule, flags = self.rules.readonly_check, self.rules.readonly_flags
        if rule is None or flags is None or name is None or not flags.match(self.code.text(name)):
            return NO_COND
        gate = frozenset({self.gate_site(scope, rule, node, snippet(self.code.text(node)))})
        return Cond(t=gate, f=gate)

    @staticmethod
    def answered(held: Cond, scope: Scope) -> bool:
        """Whether a held check is a person's answer (a human approval), whose fields are the answer too."""
        ids = {*held.t, *held.f}
        return any(site.kind == "human_approval" for gate, site in scope.pending.items() if gate in ids) or any(
            site.kind == "human_approval" and site.id in ids for site in scope.gates
        )

    def result_flag(self, node: Node, scope: Scope) -> Cond:
        """``resolution.ok`` where ``resolution`` holds what a function of the tree returned: true, the
        checks that hold where that function returns ``{ ok: true, ... }`` (resolved by the linker into
        a gate at this condition)."""
        holder = unwrap(node.child_by_field_id(self.fields.object))
        if (
            holder is None
            or holder.type != "identifier"
            or self.code.raw(node.child_by_field_id(self.fields.property)) not in _FLAGS
        ):
            return NO_COND
        made = scope.types.get(self.code.text(holder))
        if made is None or "#" not in made:
            return NO_COND
        location = self.loc(node)
        return Cond(t=frozenset({f"{RESULT}{made}|{location.line}|{location.column}"}))

    def failures_left(self, node: Node | None, scope: Scope, *, placed: bool = True) -> Cond:
        """``refused.length === 0`` / ``refused.length > 0`` on a list of what failed a check (``Scope.failures``):
        empty, every value passed it. ``placed``: a check of what a function returned is placed where the list
        is tested, the refusing condition (a success result's flag leaves it to the caller's test)."""
        found = self.emptiness(node) if node is not None else None
        if node is None or found is None:
            return NO_COND
        name, empty = found
        gates = scope.failures.get(name) if name not in scope.spoiled else None
        if not gates:
            return NO_COND
        held = Cond(t=gates) if empty else Cond(f=gates)
        return self.relocated(held, node) if placed else held

    def emptiness(self, node: Node | None) -> tuple[str, bool] | None:
        """The list a test of its size asks about and whether the test holds when it is empty: ``!list.length``,
        ``list.length === 0``, ``list.size < 1`` (True); ``list.length > 0``, ``list.length !== 0`` (False)."""
        node = unwrap(node)
        if node is None:
            return None
        if node.type == "unary_expression" and self.code.operator_of(node) == "!":
            listed = self.sized(node.child_by_field_id(self.fields.argument))
            return (listed, True) if listed is not None else None
        if node.type != "binary_expression":
            return None
        right = unwrap(node.child_by_field_id(self.fields.right))
        listed = self.sized(node.child_by_field_id(self.fields.left))
        if listed is None or right is None or right.type != "number":
            return None
        empty = _EMPTY.get((self.code.operator_of(node), self.code.text(right)))
        return (listed, empty) if empty is not None else None

    def sized(self, node: Node | None) -> str | None:
        """``list`` for ``list.length`` / ``list.size``."""
        node = unwrap(node)
        if node is None or node.type != "member_expression":
            return None
        if self.code.raw(node.child_by_field_id(self.fields.property)) not in (b"length", b"size"):
            return None
        return self.code.text(node.child_by_field_id(self.fields.object))

    def success_gates(self, node: Node | None, scope: Scope) -> frozenset[str] | None:
        """What a returned success result proves besides the gates on its path: nothing more for ``{ ok: true }``,
        a failure list's checks for ``{ ok: refused.length === 0 }``; None for anything else."""
        if self.success_result(node):
            return frozenset()
        node = unwrap(node)
        if node is None or node.type != "object":
            return None
        for child in node.named_children:
            if child.type == "pair" and self.code.raw(child.child_by_field_id(self.fields.key)) in _FLAGS:
                held = self.failures_left(child.child_by_field_id(self.fields.value), scope, placed=False)
                if held.t:
                    return held.t
        return None

    def success_result(self, node: Node | None) -> bool:
        """``{ ok: true, ... }``: a validator's result saying its check passed."""
        node = unwrap(node)
        if node is None or node.type != "object":
            return False
        return any(
            child.type == "pair"
            and self.code.raw(child.child_by_field_id(self.fields.key)) in _FLAGS
            and (value := child.child_by_field_id(self.fields.value)) is not None
            and value.type == "true"
            for child in node.named_children
        )

    def any_of(self, left: Cond, right: Cond, scope: Scope) -> Cond:
        """``a || b``. A gate holds in the true branch when both sides pass it; and when both sides pass
        a check of the same kind (``(isInsert && isInsertAllowed(s)) || (isUpdate &&
        isUpdateAllowed(s))``), a check of that kind has passed whichever side held: the first of
        them in source order stands for it."""
        either = left.either(right)
        if not left.t or not right.t:
            return either
        sites = {g.id: g for g in scope.gates}

        def by_kind(ids: frozenset[str]) -> dict[str, list[GateSite]]:
            out: dict[str, list[GateSite]] = {}
            for gate in ids:
                site = sites.get(gate)
                if site is not None:
                    out.setdefault(site.kind, []).append(site)
            return out

        lefts, rights = by_kind(left.t), by_kind(right.t)
        held = {
            min(lefts[k] + rights[k], key=lambda g: (g.location.line, g.location.column, g.id)).id
            for k in lefts.keys() & rights.keys()
        }
        if held <= either.t:
            return either
        return Cond(t=either.t | held, f=either.f, t_clean=either.t_clean, f_clean=either.f_clean)

    def membership(self, node: Node, scope: Scope) -> Cond:
        """Checks of a value against what is allowed: ``ALLOWED.includes(x)`` / ``ALLOWLIST.has(x)`` by the
        holder's name, and, on a model-chosen value, membership in any collection, a regular expression's
        ``test``, a literal prefix (``query.startsWith("select")``): allowlist gates that clear ``x``;
        ``resolved.startsWith(root)`` and ``relative.startsWith("..")``: path containment."""
        kinds = self.code.kinds
        func = node.child_by_field_id(self.fields.function)
        if func is None or kinds[func.kind_id] != "member_expression":
            return NO_COND
        method = self.code.raw(func.child_by_field_id(self.fields.property))
        if method in _EACH:
            return self.each_check(node, func, scope)
        if method not in _CHECKS and method not in _LOOKUPS:
            return NO_COND
        receiver = func.child_by_field_id(self.fields.object)
        args = node.child_by_field_id(self.fields.arguments)
        first = unwrap(args.named_children[0]) if args is not None and args.named_children else None
        if method == b"startsWith":
            return self.prefix_check(node, receiver, first, scope)
        checked = frozenset(
            self.code.text(a)
            for a in (args.named_children if args is not None else [])
            if kinds[a.kind_id] == "identifier"
        )
        holder = self.code.text(receiver)
        listing = method in (b"includes", b"has")
        if method != b"test":
            rule = self.rules.allowlist(holder)
            if rule is not None:
                values = self.literal_values(receiver) if listing else ()
                return Cond(t=frozenset({self.gate_site(scope, rule, node, holder, values)}), t_clean=checked)
        if method in _LOOKUPS:
            return NO_COND  # a lookup in any other table is no check
        rule = self.rules.value_check
        if rule is None or first is None or kinds[first.kind_id] in ("string", "template_string", "number"):
            return NO_COND
        pattern = unwrap(receiver)
        if method == b"test" and (
            pattern is None or kinds[pattern.kind_id] not in ("regex", "identifier", "member_expression")
        ):
            return NO_COND
        if not self.model_chosen(first, scope):
            return NO_COND
        values = self.literal_values(receiver) if listing else ()
        gate = self.gate_site(scope, rule, node, snippet(f"{holder}.{method.decode()}"), values)
        return Cond(t=frozenset({gate}), t_clean=checked)

    def listed_strings(self, holder: Node | None) -> frozenset[str] | None:
        """The strings of the top-level ``const NAME = ["a", "b"]`` that ``holder`` names."""
        kinds = self.code.kinds
        if self.string_lists is None:
            self.string_lists = {}
            for stmt in self.root.named_children:
                decl = (
                    stmt.child_by_field_id(self.fields.declaration)
                    if kinds[stmt.kind_id] == "export_statement"
                    else stmt
                )
                if decl is None or kinds[decl.kind_id] not in ("lexical_declaration", "variable_declaration"):
                    continue
                for item in decl.named_children:
                    value = unwrap(item.child_by_field_id(self.fields.value))
                    name = item.child_by_field_id(self.fields.name)
                    if (
                        value is None
                        or name is None
                        or kinds[value.kind_id] != "array"
                        or kinds[name.kind_id] != "identifier"
                    ):
                        continue
                    texts = [
                        self.code.string_value(e) if kinds[e.kind_id] == "string" else None
                        for e in value.named_children
                        if kinds[e.kind_id] != "comment"
                    ]
                    if texts and all(texts):
                        self.string_lists[self.code.text(name)] = frozenset(t for t in texts if t)
        inner = unwrap(holder)
        return self.string_lists.get(self.code.text(inner)) if inner is not None else None

    def literal_values(self, holder: Node | None) -> tuple[str, ...]:
        """The strings of the literal array a membership check tests against: written in place, a top-level
        ``const``, or a ``const`` of an enclosing function (``const validOperations = ["query", ...]``);
        empty for anything else."""
        inner = unwrap(holder)
        if inner is None:
            return ()
        if inner.type == "array":
            return _strings(self, inner)
        if inner.type != "identifier":
            return ()
        found = self.listed_strings(inner)
        if found:
            return tuple(sorted(found))
        name = self.code.text(inner)
        kinds = self.code.kinds
        for block in self.ancestors(inner)[:64]:
            kind = kinds[block.kind_id]
            if kind == "program":
                return ()
            if kind == "statement_block":
                value = self.block_consts(block).get(name)
                if value is not None:
                    return _strings(self, value) if value.type == "array" else ()
        return ()

    def ancestors(self, node: Node) -> list[Node]:
        """The nodes around ``node``, its parent first and the file's root last. Read from the root down:
        a node's ``parent`` is itself found from the root down, so climbing ``parent`` by ``parent`` reads
        the path once per step."""
        path: list[Node] = []
        current: Node | None = self.root
        target = node.id
        while current is not None and current.id != target:
            path.append(current)
            current = current.child_with_descendant(node)
        if current is None:  # (not in this file's tree: climbed instead)
            path = []
            above = node.parent
            while above is not None:
                path.append(above)
                above = above.parent
            return path
        path.reverse()
        return path

    def block_consts(self, block: Node) -> dict[str, Node]:
        """The values of a block's ``const``/``let`` declarators by name (the first of each name), each
        unwrapped; read once per block, however many checks look a list up in it."""
        kinds = self.code.kinds
        found = self.declared_in_block.get(block.id)
        if found is None:
            found = self.declared_in_block[block.id] = {}
            for stmt in block.named_children:
                if kinds[stmt.kind_id] != "lexical_declaration":
                    continue
                for item in stmt.named_children:
                    value = unwrap(item.child_by_field_id(self.fields.value))
                    if value is not None:
                        found.setdefault(self.code.text(item.child_by_field_id(self.fields.name)), value)
        return found

    def each_check(self, node: Node, func: Node, scope: Scope) -> Cond:
        """``FORBIDDEN.some((word) => lowered.includes(word))`` / ``PREFIXES.some((p) => cmd.startsWith(p))``:
        a model-chosen value checked against each entry of a list, an allowlist gate (true: an entry
        matched; a deny list where the true branch refuses)."""
        rule = self.rules.value_check
        args = node.child_by_field_id(self.fields.arguments)
        callback = unwrap(args.named_children[0]) if args is not None and args.named_children else None
        if rule is None or callback is None or callback.type not in ("arrow_function", "function_expression"):
            return NO_COND
        declared = callback.child_by_field_id(self.fields.parameters) or callback.child_by_field_id(
            self.fields.parameter
        )
        params = self.code.param_names(declared) if declared is not None else []
        body = unwrap(callback.child_by_field_id(self.fields.body))
        if len(params) != 1 or body is None:
            return NO_COND
        derived = {params[0]}
        if body.type == "statement_block":
            # ``(cmd) => { const name = getName(cmd); return name === wanted; }``: names made from the
            # entry stand for it.
            *made, last = body.named_children or [body]
            for stmt in made:
                if stmt.type != "lexical_declaration":
                    return NO_COND
                for item in stmt.named_children:
                    value, name = item.child_by_field_id(self.fields.value), item.child_by_field_id(self.fields.name)
                    if value is not None and name is not None and derived & self.identifiers(value):
                        derived.add(self.code.text(name))
            body = unwrap(last.named_children[0]) if last.type == "return_statement" and last.named_children else None
        kind = rule
        found = False
        receiver = func.child_by_field_id(self.fields.object)
        words = _words(self.literal_values(receiver))
        for leaf, sides in self.check_leaves(body):
            names = set().union(*(self.identifiers(side) for side in sides))
            if derived & names and any(n not in derived and self.model_chosen_name(n, scope) for n in names):
                found = True
                if self.path_prefix(leaf) and not words:
                    kind = self.rules.path_check or rule
        if not found:
            return NO_COND
        holder = self.code.text(receiver)
        method = self.code.raw(func.child_by_field_id(self.fields.property)).decode()
        return Cond(t=frozenset({self.gate_site(scope, kind, node, snippet(f"{holder}.{method}"))}))

    def check_leaves(self, node: Node | None) -> list[tuple[Node, list[Node]]]:
        """The checks ``a || b`` / ``a && b`` is made of, each with the operands it compares: calls of a
        check method (the receiver and the arguments) and equalities."""
        node = unwrap(node)
        fields = self.fields
        if node is None or node.type not in ("binary_expression", "call_expression"):
            return []
        if node.type == "binary_expression":
            operator = self.code.operator_of(node)
            left, right = node.child_by_field_id(fields.left), node.child_by_field_id(fields.right)
            if operator in ("||", "&&"):
                return self.check_leaves(left) + self.check_leaves(right)
            return [(node, [n for n in (left, right) if n is not None])] if operator in _EQUALITY else []
        inner = node.child_by_field_id(fields.function)
        args = node.child_by_field_id(fields.arguments)
        if inner is None or inner.type != "member_expression" or args is None:
            return []
        if self.code.raw(inner.child_by_field_id(fields.property)) not in _ELEMENT_CHECKS:
            return []
        receiver = inner.child_by_field_id(fields.object)
        return [(node, [n for n in (receiver, *args.named_children) if n is not None])]

    def path_prefix(self, leaf: Node) -> bool:
        """``dir.startsWith(root + path.sep)`` / ``p.startsWith(resolvedRoot)``: a prefix that is not a
        literal, a root the value must lie under."""
        if leaf.type != "call_expression":
            return False
        inner = leaf.child_by_field_id(self.fields.function)
        args = leaf.child_by_field_id(self.fields.arguments)
        first = unwrap(args.named_children[0]) if args is not None and args.named_children else None
        return (
            inner is not None
            and self.code.raw(inner.child_by_field_id(self.fields.property)) == b"startsWith"
            and first is not None
            and first.type not in ("string", "template_string")
        )

    def root_itself(self, comparison: Node | None, check: Node | None, *, equal: bool) -> bool:
        """``p !== root && !p.startsWith(root + sep)`` (refused) / ``p === root || p.startsWith(root + sep)``
        (allowed): a path that is the root itself lies inside it, so the comparison beside a containment
        check of the same path against that root only widens it to the root; the check decides alone."""
        comparison, check = unwrap(comparison), unwrap(check)
        if comparison is None or check is None or comparison.type != "binary_expression":
            return False
        if self.code.operator_of(comparison) not in (("===", "==") if equal else ("!==", "!=")):
            return False
        if not equal:
            if check.type != "unary_expression" or self.code.operator_of(check) != "!":
                return False
            check = unwrap(check.child_by_field_id(self.fields.argument))
        if check is None or check.type != "call_expression":
            return False
        function = check.child_by_field_id(self.fields.function)
        args = check.child_by_field_id(self.fields.arguments)
        if function is None or args is None or not args.named_children:
            return False
        if self.code.raw(function.child_by_field_id(self.fields.property)) != b"startsWith":
            return False
        receiver = self.code.text(function.child_by_field_id(self.fields.object))
        sides = [
            self.code.text(comparison.child_by_field_id(self.fields.left)),
            self.code.text(comparison.child_by_field_id(self.fields.right)),
        ]
        if receiver not in sides:
            return False
        sides.remove(receiver)
        return sides[0] in self.identifiers(args.named_children[0]) or sides[0] == self.code.text(
            args.named_children[0]
        )

    def identifiers(self, node: Node) -> set[str]:
        """The identifiers an expression reads (a bounded walk)."""
        out: set[str] = set()
        pending = [node]
        for _ in range(256):
            if not pending:
                break
            item = pending.pop()
            if item.type == "identifier":
                out.add(self.code.text(item))
            pending.extend(item.named_children)
        return out

    def model_chosen_name(self, name: str, scope: Scope) -> bool:
        return bool(scope.taint_of(name))

    def prefix_check(self, node: Node, receiver: Node | None, prefix: Node | None, scope: Scope) -> Cond:
        if prefix is None or not self.model_chosen(receiver, scope):
            return NO_COND
        literal = self.code.string_value(prefix) if prefix.type == "string" else None
        if literal is None or literal.startswith(".."):
            rule = self.rules.path_check
            if rule is None:
                return NO_COND
            gate = frozenset({self.gate_site(scope, rule, node, snippet(self.code.text(node)))})
            # ``rel.startsWith("..")`` holds when the path escapes: contained when it is false.
            return Cond(f=gate) if literal is not None else Cond(t=gate)
        rule = self.rules.value_check
        if rule is None:
            return NO_COND
        checked = self.gate_site(scope, rule, node, snippet(self.code.text(node)))
        if literal.strip().lower() in self.rules.read_only_prefixes:
            self.read_prefixes.add(checked)
        return Cond(t=frozenset({checked}))

    def model_chosen(self, node: Node | None, scope: Scope) -> bool:
        """Whether a checked value may carry model-chosen data (its root variable is tainted)."""
        root = self.root_value(node)
        return root is not None and root.type == "identifier" and bool(scope.taint_of(self.code.text(root)))

    def literal_comparison(self, value: Node | None, scope: Scope) -> Cond:
        """``cmd === "ls"`` / ``mode !== "read"`` on a model-chosen value: an allowlist of one."""
        rule = self.rules.value_check
        if rule is None or value is None or self.names_tool(value) or not self.model_chosen(value, scope):
            return NO_COND  # (a tool's name compared with a literal is a dispatch on it, not a check)
        if self.reply_kind(value, scope):
            return NO_COND
        node = value.parent if value.parent is not None else value
        return Cond(t=frozenset({self.gate_site(scope, rule, node, snippet(self.code.text(node)))}))

    def reply_kind(self, node: Node | None, scope: Scope) -> bool:
        """``block.type === "tool_use"`` / ``choice.finish_reason === "tool_calls"`` on the model's reply: a kind
        the provider's API sets from its own vocabulary, so comparing it dispatches on what the model returned
        and allows nothing (a tool argument's ``type`` is model-chosen and stays a check)."""
        node = unwrap(node)
        if node is None or node.type != "member_expression":
            return False
        if self.code.text(node.child_by_field_id(self.fields.property)) not in self.rules.reply_kinds:
            return False
        root = self.root_value(node)
        if root is None or root.type != "identifier":
            return False
        taint = scope.taint_of(self.code.text(root))
        return bool(taint) and all(origin.kind == "model_output" for origin in taint)

    def names_tool(self, node: Node | None) -> bool:
        """Whether an expression reads a tool's name (``request.params.name``, ``toolName``, ``call.name``)."""
        node = unwrap(node)
        kind = self.code.kinds[node.kind_id] if node is not None else ""
        if node is None or kind not in ("identifier", "member_expression"):
            return False
        text = self.code.raw(node.child_by_field_id(self.fields.property) if kind == "member_expression" else node)
        if kind == "identifier" and text.decode() in self.tool_name_vars:
            return True
        return text.lower().endswith(b"name")

    def ceiling(self, node: Node, operator: str, left: Node | None, right: Node | None, scope: Scope) -> Cond:
        """``amount > MAX_REFUND``: a spend limit, passed when the comparison says the value is within it;
        ``usage.queryCount >= usage.limit``: a count of uses against its limit, a rate limit."""
        texts = (self.code.text(left) if left is not None else "", self.code.text(right) if right is not None else "")
        for rate, counts, limits in self.rules.count_limits:
            for count, limit, over in (
                (texts[0], texts[1], operator in (">", ">=")),
                (texts[1], texts[0], operator in ("<", "<=")),
            ):
                if count and limit and counts.matches(count) and limits.matches(limit):
                    gate = frozenset({self.gate_site(scope, rate, node, snippet(f"{count} {operator} {limit}"))})
                    return Cond(f=gate) if over else Cond(t=gate)
        for side, over in ((right, operator in (">", ">=")), (left, operator in ("<", "<="))):
            ref = self.code.text(side) if side is not None else ""
            spend = self.rules.spend(ref) if ref else None
            if spend is None and side is not None and side.type == "member_expression":
                # ``cost > state.maxCost``, ``total > config.MAX_SPEND``: the ceiling is the member's name.
                member = self.code.text(side.child_by_field_id(self.fields.property))
                spend = self.rules.spend(member) if member else None
            if spend is not None:
                gate = frozenset({self.gate_site(scope, spend, node, ref)})
                return Cond(f=gate) if over else Cond(t=gate)
        return NO_COND

    def returned(self, node: Node, scope: Scope, besides: str | None = None) -> Cond:
        """``if (!(await askPermission(msg))) return`` / ``level = lookup(x); if (level === null) throw``:
        a check of what a function of the tree returned. True, two ids the linker settles: a person's
        answer (``ANSWER``, when that function puts a question to one) and a value its own checks let
        through (``PRESENT``, when every return of a value there passed them)."""
        location = self.locations.get(node.id)
        if location is None:
            return NO_COND
        call = next((c for c in reversed(scope.calls[-64:]) if c.location is location), None)
        if call is None or "#" not in call.callee:
            return NO_COND
        site = f"{call.callee}|{location.line}|{location.column}" + (f"|{besides}" if besides else "")
        return Cond(t=frozenset({ANSWER + site, PRESENT + site}))

    def relocated(self, cond: Cond, node: Node) -> Cond:
        """A bound value's check of what a function returned is placed where the value is tested."""
        ids = cond.t | cond.f
        if not any(g.startswith(PRESENT) for g in ids):
            return cond
        location = self.loc(node)

        def moved(group: frozenset[str]) -> frozenset[str]:
            out = set()
            for g in group:
                if g.startswith(PRESENT):
                    callee, _, _, besides = checked_call(g[len(PRESENT) :])
                    g = f"{PRESENT}{callee}|{location.line}|{location.column}" + (f"|{besides}" if besides else "")
                out.add(g)
            return frozenset(out)

        return Cond(t=moved(cond.t), f=moved(cond.f), t_clean=cond.t_clean, f_clean=cond.f_clean)

    def guards(self, left: Node | None, right: Node | None) -> bool:
        """Whether ``left`` in ``left && right`` only makes sure a value exists before ``right`` reads a
        member of it (``entry && entry.level === ...``, ``user && user.role !== "admin"``), or only asks
        whether a list applies before ``right`` checks a value against it (``allowed.length > 0 &&
        !allowed.some(...)``, ``allowed[0] !== "*" && ...``: an allow-list in force when configured)."""
        left = unwrap(left)
        if left is not None and left.type == "binary_expression" and self.code.operator_of(left) == "&&":
            return self.guards(left.child_by_field_id(self.fields.left), right) and self.guards(
                left.child_by_field_id(self.fields.right), right
            )
        left = self.configured_list(left)
        if left is None or left.type not in ("identifier", "member_expression"):
            return False
        text = self.code.text(left)
        pending = [right]
        for _ in range(64):
            if not pending:
                return False
            node = unwrap(pending.pop())
            if node is None:
                continue
            if node.type == "member_expression" and self.code.text(node.child_by_field_id(self.fields.object)) == text:
                return True
            pending.extend(node.named_children)
        return False

    def setting_switch(self, node: Node | None, scope: Scope) -> bool:
        """Whether ``node`` is a setting read as a boolean (``readOnly``, ``config.strict``, ``!ALLOW_WRITES``):
        a name or member, not a comparison, a call or a checked value held under a name (``ok``)."""
        node = unwrap(node)
        if node is not None and node.type == "unary_expression" and self.code.operator_of(node) == "!":
            node = unwrap(node.child_by_field_id(self.fields.argument))
        if node is None or node.type not in ("identifier", "member_expression"):
            return False
        root = self.root_value(node)
        return root is not None and not (root.type == "identifier" and self.code.text(root) in scope.gate_vars)

    def configured_list(self, node: Node | None) -> Node | None:
        """``allowed`` for ``allowed.length > 0`` / ``allowed.size`` / ``allowed[0] !== "*"`` (a test of a
        list's size or first item against a literal), else the node itself."""
        if node is None or node.type != "binary_expression":
            return self.listed(node) or node
        if self.code.operator_of(node) not in (">", ">=", "!==", "!=", "===", "=="):
            return node
        kinds = self.code.kinds
        sides = [unwrap(node.child_by_field_id(f)) for f in (self.fields.left, self.fields.right)]
        literal = [s for s in sides if s is not None and kinds[s.kind_id] in ("number", "string")]
        other = [s for s in sides if s is not None and s not in literal]
        if len(literal) != 1 or len(other) != 1:
            return node
        return self.listed(other[0]) or node

    def listed(self, node: Node | None) -> Node | None:
        """The list of ``list.length`` / ``list.size`` / ``list[0]``, else None."""
        if node is None:
            return None
        if node.type == "member_expression" and self.code.raw(node.child_by_field_id(self.fields.property)) in (
            b"length",
            b"size",
        ):
            return unwrap(node.child_by_field_id(self.fields.object))
        if node.type == "subscript_expression":
            index = unwrap(node.child_by_field_id(self.fields.index))
            if index is not None and self.code.kinds[index.kind_id] == "number":
                return unwrap(node.child_by_field_id(self.fields.object))
        return None

    def level_check(self, node: Node, operator: str, left: Node | None, right: Node | None, scope: Scope) -> Cond:
        """``level === Level.FORBIDDEN`` / ``entry.securityLevel === SecurityLevel.REQUIRES_APPROVAL``: a
        value compared with a policy level that stops the effect (``refusing_levels``: a deny level, an
        approval level). The check is passed where the value is not that level."""
        for side, other in ((right, left), (left, right)):
            constant = unwrap(side)
            if constant is None or other is None or constant.type not in ("member_expression", "identifier"):
                continue
            text = self.code.text(constant)
            if not text.rpartition(".")[2][:1].isupper():
                continue
            rule = self.rules.level_rule(text)
            if rule is None:
                continue
            gate = frozenset({self.gate_site(scope, rule, node, snippet(self.code.text(node)))})
            return Cond(f=gate) if operator in ("===", "==") else Cond(t=gate)
        return NO_COND

    def held_cond(self, node: Node | None, scope: Scope) -> Cond:
        """What a check bound to a name (``const ok = ALLOWED.has(x)``) or selecting a value proves, its
        sites held until a path depends on it (``Scope.check_site``)."""
        holding, scope.holding = scope.holding, True
        try:
            return self.cond(node, scope)
        finally:
            scope.holding = holding

    def settled(self, loop_condition: Node | None, refusal: Node | None, scope: Scope) -> frozenset[str]:
        """``while (!ok && tries < 5) { ok = await ask(); if (!ok && tries >= 5) return }``: the loop ends
        when its condition is false, and no iteration ends with the refusing condition true; where the
        two share their other parts and differ in one comparison and its opposite, the shared parts are
        false after the loop (``ok`` holds): the gates they prove when false."""
        loop_parts, refusal_parts = self.conjuncts(loop_condition), self.conjuncts(refusal)
        loop_texts, refusal_texts = [self.code.text(n) for n in loop_parts], [self.code.text(n) for n in refusal_parts]
        shared = [n for n, t in zip(loop_parts, loop_texts, strict=True) if t in refusal_texts]
        rest = [n for n, t in zip(loop_parts, loop_texts, strict=True) if t not in refusal_texts]
        other = [n for n, t in zip(refusal_parts, refusal_texts, strict=True) if t not in loop_texts]
        if not shared or len(rest) != 1 or len(other) != 1 or not self.opposite(rest[0], other[0]):
            return frozenset()
        proved = self.cond(shared[0], scope)
        for part in shared[1:]:
            proved = proved.both(self.cond(part, scope))
        return proved.f

    def conjuncts(self, node: Node | None) -> list[Node]:
        node = unwrap(node)
        if node is None:
            return []
        if node.type == "binary_expression" and self.code.operator_of(node) == "&&":
            return self.conjuncts(node.child_by_field_id(self.fields.left)) + self.conjuncts(
                node.child_by_field_id(self.fields.right)
            )
        return [node]

    def opposite(self, a: Node, b: Node) -> bool:
        """``tries < 5`` and ``tries >= 5``: the same operands, opposite comparisons."""
        if a.type != "binary_expression" or b.type != "binary_expression":
            return False
        fields = self.fields
        return (
            _OPPOSITE.get(self.code.operator_of(a)) == self.code.operator_of(b)
            and self.code.text(a.child_by_field_id(fields.left)) == self.code.text(b.child_by_field_id(fields.left))
            and self.code.text(a.child_by_field_id(fields.right)) == self.code.text(b.child_by_field_id(fields.right))
        )

    def root_value(self, node: Node | None) -> Node | None:
        """``answer`` for ``answer.trim().toLowerCase()``: the value a chain of calls and members starts from."""
        node = unwrap(node)
        fields = self.fields
        while node is not None and node.type in ("call_expression", "member_expression"):
            inner = node.child_by_field_id(fields.function if node.type == "call_expression" else fields.object)
            inner = unwrap(inner)
            if inner is None or (node.type == "call_expression" and inner.type != "member_expression"):
                return node
            node = inner
        return node


def _words(values: tuple[str, ...]) -> bool:
    """Whether a literal list holds words rather than paths (``["SELECT", "SHOW"]``, not ``["/tmp"]``): a value
    that starts with one of them begins with an allowed word, as a query with its keyword; it lies under no root."""
    return bool(values) and not any(
        "/" in v or "\\" in v or v.startswith((".", "~")) or (len(v) > 1 and v[1] == ":") for v in values
    )


def _strings(logic: GateLogic, array: Node) -> tuple[str, ...]:
    """The strings of an array literal made only of string literals, sorted; empty otherwise."""
    texts = [
        logic.code.string_value(e) if e.type == "string" else None for e in array.named_children if e.type != "comment"
    ]
    if not texts or not all(texts):
        return ()
    return tuple(sorted({t for t in texts if t}))
