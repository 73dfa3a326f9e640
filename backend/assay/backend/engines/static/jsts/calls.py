"""Calls: what a call calls, and what it is by the rules (a tool definition, a model use, an action with
its gates and taint, a call into the tree, or something unresolved)."""

from __future__ import annotations

from tree_sitter import Node

from assay.backend.engines.static.checked import reached
from assay.backend.engines.static.facts import AFTER, CALLBACK, PARAM, ArgTaint, CallFact, TaintOrigin
from assay.backend.engines.static.jsts.base import BUILTINS, origin_key
from assay.backend.engines.static.jsts.routes import RouteLogic
from assay.backend.engines.static.jsts.rules import NOTHING, classify
from assay.backend.engines.static.jsts.scope import (
    EMPTY,
    LITERAL_PATH,
    Scope,
    Taint,
    call_return_taint,
    callback_origin,
)
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, Code, unwrap
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.match import Patterns

# Methods that add their arguments to the collection they are called on.
_MUTATORS = frozenset({b"push", b"unshift", b"splice", b"add", b"set", b"append"})
# Methods that run a tool object's handler (LangChain ``invoke``/``call``, Vercel AI SDK ``execute``).
_TOOL_RUNS = frozenset({"invoke", "ainvoke", "call", "func", "execute", "run", "stream"})


# Array methods whose callback receives each element (at this position of its parameters), and methods
# whose result holds the same elements (``tools(ctx).filter(allowed).forEach((tool) => ...)``).
_ELEMENT_CALLBACKS = {"forEach": 0, "map": 0, "flatMap": 0, "filter": 0, "some": 0, "every": 0, "find": 0, "reduce": 1}
# Calls that hand an HTTP request to an MCP transport (``transport.handleRequest(req, res, body)``, the SSE
# transport's ``handlePostMessage(req, res)``): the function calling one is a route serving an MCP server.
_HANDS_REQUEST = (".handleRequest", ".handlePostMessage")
_SAME_ELEMENTS = frozenset({"filter", "slice", "sort", "toSorted", "reverse", "toReversed", "concat"})


def _element_of(name: str) -> tuple[int, str] | None:
    """``(0, "src/tools#tools")`` for ``src/tools#tools.filter.forEach``: the callback parameter that is
    each element of a list named in the tree (a binding or a function's result), and that list."""
    if "#" not in name:
        return None
    receiver, _, method = name.rpartition(".")
    position = _ELEMENT_CALLBACKS.get(method)
    if position is None or "#" not in receiver:
        return None
    while True:
        head, _, last = receiver.rpartition(".")
        if last not in _SAME_ELEMENTS or "#" not in head:
            return position, receiver
        receiver = head


class CallLogic(RouteLogic):
    """Call sites, walked with their receiver, arguments and callbacks."""

    def callee_name(self, node: Node, func: Node | None, scope: Scope) -> tuple[str | None, bool]:
        """What a call calls. Resolving the outer call of a chain ``a.b().c()`` resolves its inner calls
        too; the walk then reaches each inner call through its receiver (member objects, wrappers,
        subscript objects) before anything in the chain can bind a name, so those names still hold."""
        known = self.known_callees.pop(node.id, None)
        if known is not None and known[0] is scope:
            return known[1], known[2]
        return self.dotted(func, scope, self.known_callees)

    def call(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        fields = self.fields
        rules = self.rules
        names = self.code.kinds  # ``names[node.kind_id]`` is ``node.type``, without building the string
        is_new = names[node.kind_id] == "new_expression"
        func = node.child_by_field_id(fields.constructor if is_new else fields.function)
        args_node = node.child_by_field_id(fields.arguments)
        if args_node is None:
            args: list[Node] = []
            kinds: list[str] = []
        elif names[args_node.kind_id] == "template_string":  # a tagged template: $`ls ${dir}`
            args = [args_node]
            kinds = ["template_string"]
        else:
            args = args_node.named_children  # a fresh list each time, never changed here
            kinds = [names[a.kind_id] for a in args]  # each argument's node type, read once
            if "comment" in kinds:  # tool(// the implementation\n fn, {...})
                args = [a for a, k in zip(args, kinds, strict=True) if k != "comment"]
                kinds = [k for k in kinds if k != "comment"]
        node_id = node.id
        known = self.known_callees.pop(node_id, None)  # ``callee_name``, inlined: this runs for every call
        if known is not None and known[0] is scope:
            name, resolved = known[1], known[2]
        else:
            name, resolved = self.dotted(func, scope, self.known_callees)
        if scope.fixed:
            self.note_push(func, args, scope)
        facts = (rules.classified.get(name) or classify(rules, name)) if name else NOTHING
        if name and "#" in name:
            # ``sandbox.exec(...)`` on a class of the tree that extends a library's (``class Sandbox
            # extends BaseSandbox``) without defining ``exec``: the library's method runs (``this.tool(...)``
            # in a class extending McpServer registers a tool, whatever a tree method named ``tool`` says).
            base = self.inherited(name)
            cls, _, method = base.rpartition(".")
            library = self.library_bases.get(cls)
            if library is not None and method not in self.class_methods.get(cls, ()):
                base = f"{library}.{method}"
            if base != name and "#" not in base:
                name, facts = base, classify(rules, base)
        gate_rule = facts.gate if facts.gate is not None else self.choice_prompt(name, args) if name and args else None
        gate_id = scope.add_gate(self.make_gate(gate_rule, node, name)) if gate_rule is not None and name else None
        self.call_gates[node_id] = gate_id
        if gate_id is not None and gate_rule is not None and gate_rule.match.get("pauses"):
            scope.pauses.append(gate_id)
            scope.pause_log.append(gate_id)
        if name and "#" in name and (is_new or "." in name.rpartition("#")[2]):
            # ``[new SetTool(), ...]`` / ``tools: [planner.toParam()]``: a class's instances gathered
            self.tool_recognizer.note_new(node, name if is_new else name.rpartition(".")[0])
        if facts.tool and name:
            self.tool_recognizer.tool_call(node, name, args, scope)
        elif (
            name
            and "#" in name
            and facts is NOTHING
            and (is_new or (kinds and kinds[0] == "object"))
            and "." not in (builder := name.rpartition("#")[2])
            and self.rules.object_tool(builder) is not None
        ):
            # ``new Tool({ name: "list-fields", ..., callback })`` with ``Tool`` a class of the tree, or
            # ``defineTool({ name, handler })`` a function of the tree: a constructor or call whose name says
            # it builds a tool, given an options object, whatever its package.
            self.tool_recognizer.tool_call(node, builder, args, scope)
        elif len(args) > 1 and name and "#" in name and name.partition("#")[0] == self.module:
            # ``registerTool(server, 'read_note', ...)``: a call of a function of this file, a tool when that
            # function turns out to be a tool factory (one given a name chosen at run time keeps it unknown).
            self.tool_recognizer.note_factory_call(node, name, args, scope)
        if name and "#" in name and args and facts is NOTHING:
            self.tool_recognizer.made_tools(node, name, args, scope)
        if args and name and name.endswith(_HANDS_REQUEST):
            behind = self.request_servers.get(scope.qualname)
            self.request_servers[scope.qualname] = active if behind is None else behind & active

        receiver = EMPTY
        keyed = False  # f[k](...) or f[k].m(...): a callee looked up by key
        inner_func = unwrap(func)
        func_kind = names[inner_func.kind_id] if inner_func is not None else ""
        if inner_func is not None:
            if func_kind == "member_expression":
                obj = inner_func.child_by_field_id(fields.object)
                receiver = self.expr(obj, scope, active)
                inner_obj = unwrap(obj)
                obj_kind = names[inner_obj.kind_id] if inner_obj is not None else ""
                keyed = obj_kind == "subscript_expression"
                if scope.found_vars or keyed or obj_kind == "call_expression":
                    self.tool_recognizer.note_dispatch(inner_func, scope, self.tool_serving)
            elif func_kind in FUNCTIONS:  # (() => {...})()
                receiver = self.inline(inner_func, scope, active, EMPTY)
            elif func_kind == "identifier":
                # A function value held in a variable (``readScript = readData(stream)``, a closure over
                # model output): what calling it gives carries what the value does.
                receiver = scope.taint_of(self.code.text(inner_func))
            else:
                receiver = self.expr(inner_func, scope, active)
                keyed = func_kind == "subscript_expression"
        arg_taints: list[tuple[int, Taint, Node]] = []
        callbacks: list[Node] = []
        callback_at: list[int] = []  # each callback's argument position
        all_args = receiver
        before = len(scope.calls)
        # A request handler's callbacks receive what the model sends, also through a wrapper that is the
        # handler call's argument (``setRequestHandler(S, withTelemetry(async (request) => ...))``).
        wrapped = self.handler_args
        callbacks_own = name is not None and rules.request_handler(name) is not None
        self.handler_args = callbacks_own
        for index, arg in enumerate(args):
            kind = kinds[index]
            inner: Node | None = arg
            if kind in WRAPPERS:
                inner = unwrap(arg)
                kind = names[inner.kind_id] if inner is not None else ""
            if inner is not None and kind in FUNCTIONS:
                callbacks.append(inner)
                callback_at.append(index)
            else:
                taint = self.expr(arg, scope, active)
                arg_taints.append((index, taint, arg))
                if taint:  # most arguments carry nothing: skip building a new set for them
                    all_args = all_args | taint if all_args else taint
        if len(scope.calls) > before:
            active = self.after_args(args, scope, before, active)
        if func_kind == "member_expression" and args and not callbacks and inner_func is not None:
            self.element_function(inner_func, args[0], receiver, scope, active)
            if len(args) == 1:
                self.bound_class(inner_func, args[0], scope)
        if all_args is not receiver and func_kind == "identifier":
            self.param_callback_args(self.code.text(inner_func), arg_taints, scope)
        if scope.settled and func_kind == "identifier":
            settled = scope.settled.get(self.code.text(inner_func))
            if settled is not None:
                settled.update(all_args)  # ``resolve(data)``: the promise's value
        if all_args is not receiver and func_kind == "member_expression" and inner_func is not None:
            self.mutated(inner_func, all_args, scope)
        if len(arg_taints) > 1 and facts.action is not None and facts.action.actionClass == "file.write":
            self.written_to(arg_taints, scope)
        self.handler_args = False
        callback_active = active | {gate_id} if gate_id is not None else active
        # ``app.post("/mcp", auth, async (req, res) => ...)``: the middleware's gates hold in the handler.
        fronts = (
            self.route_front(node, func, name, args, scope, callback_active) if name and rules.route_methods else None
        )
        returned = EMPTY
        own = bool(callbacks) and (callbacks_own or wrapped)
        serving = self.tool_serving
        if callbacks_own and callbacks and args and self.code.raw(args[0]).rpartition(b".")[2] in rules.call_requests:
            self.tool_serving = True  # ``setRequestHandler(CallToolRequestSchema, async (request) => ...)``
        element = _element_of(name) if callbacks and name else None
        settles = is_new and name == "Promise"
        for position, callback in enumerate(callbacks):
            passed = all_args
            given_to = None
            if name and "#" in name and "." not in name.rpartition("#")[2] and not name.endswith("#"):
                # ``runAgent(client, history, async (tool) => runTool(tool))``: what the function of the tree
                # passes when it calls that parameter (``param_callback_args``), gathered by the linker; and
                # the types of what it passes (``withTransaction(async (conn) => conn.execute(...))``).
                given_to = (self.inherited(name), callback_at[position])
                passed = passed | callback_origin(*given_to)
            front = fronts.get(callback_at[position]) if fronts else None
            returned |= self.inline(
                callback,
                scope,
                callback_active | front if front else callback_active,
                passed,
                own=own,
                element=element,
                settles=settles and not position,
                given_to=given_to,
            )
        self.handler_args = wrapped
        self.tool_serving = serving
        if inner_func is not None and (keyed or scope.dispatch_vars):
            self.dispatch(inner_func, node, scope)
        if not name:
            return all_args | returned
        if scope.checked and active:
            # A check of a value gates what this call does only when that value reaches it.
            active = reached(active, all_args, scope.checked, scope.given)
        if facts is NOTHING:  # most calls: the rules say nothing about them
            client = rules.client_rule
            if client is not None and resolved and "#" not in name and self.client_call(node, name):
                # An awaited call into a third-party package nobody wrote a rule for (``await
                # notion.pages.create(...)``): it talks to a service, network.egress naming the package.
                self.add_action(client, node, name, scope, active, all_args)
                return all_args | returned
            if "#" in name and args:
                self.option_model(node, args, scope)
            return self.plain_call(node, func, name, resolved, scope, active, arg_taints, receiver, returned, all_args)

        command, command_args = self.command(name, args, scope) if facts.command else (None, None)
        if facts.model is not None or facts.network or command is not None:
            model = self.model(node, name, command, args, scope)
            if model is not None:
                handle = is_new or (facts.model is not None and facts.model.match.get("returns_handle"))
                return EMPTY if handle else frozenset({TaintOrigin(kind="model_output", location=model)})
        if facts.taint_source is not None:
            return frozenset({TaintOrigin(kind="model_output", location=self.loc(node))}) | all_args

        if facts.frontier is not None or facts.config_read:
            self.frontier_tools(node, name, args, scope)
        action_rule = (
            self.action_rule(name, command, command_args, args, func, scope) if (facts.action or command) else None
        )
        if action_rule is not None:
            target = command or name
            sandbox = self.rules.sandbox_target(target) if not action_rule.match.get("outside_sandbox") else None
            gates = (
                (self.gate_site(scope, sandbox, node, f"runs inside {target.rsplit('.', 1)[0]}"),)
                if sandbox is not None
                else ()
            )
            sql_param = self.sql_param(args, func, scope) if action_rule.actionClass == "sql.exec" else None
            if action_rule.match.get("model_written"):
                # ``new SqlDatabaseChain({ llm, database })`` runs the SQL its model writes; what it answers is
                # that model's output too.
                written = frozenset({TaintOrigin(kind="model_output", location=self.loc(node))})
                self.add_action(action_rule, node, target, scope, active, all_args | written, gates, None)
                return all_args | returned | written
            self.add_action(action_rule, node, target, scope, active, all_args, gates, sql_param)
            return all_args | returned
        return self.plain_call(node, func, name, resolved, scope, active, arg_taints, receiver, returned, all_args)

    def bound_class(self, func: Node, arg: Node, scope: Scope) -> None:
        """``container.bind<IFoo>(TYPES.Foo).to(FooImpl)``: the container gives a ``FooImpl`` wherever an ``IFoo`` is
        asked for, so a call on an ``IFoo`` runs ``FooImpl``'s method (``FileFacts.boundClasses``)."""
        if self.code.raw(func.child_by_field_id(self.fields.property)) != b"to":
            return
        binding = unwrap(func.child_by_field_id(self.fields.object))
        if binding is None or binding.type != "call_expression":
            return
        bind = unwrap(binding.child_by_field_id(self.fields.function))
        if (
            bind is None
            or bind.type != "member_expression"
            or self.code.raw(bind.child_by_field_id(self.fields.property)) != b"bind"
        ):
            return
        arguments = next((c for c in binding.named_children if c.type == "type_arguments"), None)
        if arguments is None or len(arguments.named_children) != 1:
            return
        bound_type = self.type_name(arguments.named_children[0])
        cls, _ = self.dotted(unwrap(arg), scope)
        if bound_type and cls and "#" in bound_type and "#" in cls and bound_type != cls:
            self.bound_classes.setdefault(bound_type, set()).add(cls)

    def element_function(self, func: Node, arg: Node, elements: Taint, scope: Scope, active: frozenset[str]) -> None:
        """``paths.forEach(fs.unlinkSync)``, ``paths.map(fs.promises.readFile)``: a package function handed to an
        array method is called with each element; its action is at the argument, carrying what the elements
        carry."""
        method = self.code.text(func.child_by_field_id(self.fields.property))
        inner = unwrap(arg)
        if method not in _ELEMENT_CALLBACKS or inner is None:
            return
        if self.code.kinds[inner.kind_id] not in ("identifier", "member_expression"):
            return
        name, resolved = self.dotted(inner, scope)
        if not (name and resolved) or "#" in name:
            return
        facts = self.rules.classified.get(name) or classify(self.rules, name)
        rule = self.action_rule(name, None, None, [], inner, scope) if facts.action is not None else None
        if rule is not None:
            self.add_action(rule, inner, name, scope, active, elements)

    @staticmethod
    def param_callback_args(name: str, arg_taints: list[tuple[int, Taint, Node]], scope: Scope) -> None:
        """A call of one of the function's own parameters (``await runTool(tool)``, a callback its callers
        pass): what it passes is stored under ``<function>|callback:<index>``, read by the callbacks the
        callers give at that position (``callback_origin``)."""
        if name not in scope.params or (scope.inner_params is not None and name in scope.inner_params):
            return
        taint = EMPTY
        for _index, arg_taint, _node in arg_taints:
            if arg_taint:
                taint = taint | arg_taint
        if taint:
            key = f"{scope.qualname}|callback:{scope.params.index(name)}"
            scope.field_writes[key] = scope.field_writes.get(key, EMPTY) | taint

    def client_call(self, node: Node, name: str) -> bool:
        """Whether ``name`` is a method of a third-party package's client or module, awaited, or returned by
        an async function (``async function invite(u) { return client.conversations.invite(u) }``: its caller
        awaits the request): the general rule for SDKs the pack does not list (JS-FX-CLIENT-001)."""
        if "." not in name:
            return False
        package = name.split(".", 1)[0]
        if name.startswith("@"):
            scope_part, _, rest = name.partition("/")
            package = f"{scope_part}/{rest.split('.', 1)[0]}"
        if not package or package not in self.imports.packages:
            return False  # a global, a local or a relative module (or ``from ""``): not a package this file imports
        classes = self.rules.client_classes
        if classes is not None and _client_member(name, classes):
            # ``notion.pages.retrieve(...)`` on ``notion: Client`` of ``@notionhq/client``, however its promise is
            # handled (``run(label, () => notion.search(q))``): a method of a package's client class.
            return not self.rules.local_package(package)
        parent = node.parent  # asked last: each ``parent`` makes a node
        if parent is None:
            return False
        kind = parent.type
        if kind == "await_expression":
            return not self.rules.local_package(package)
        if kind in ("return_statement", "arrow_function"):
            return not self.rules.local_package(package) and _returned_by_async(parent)
        if kind == "member_expression" or kind == "array":
            # ``client.pages.create(p).then(...)``, ``Promise.all([client.a(), client.b()])``: the request's
            # promise, handled as one.
            return _handled_as_promise(self.code, node, parent) and not self.rules.local_package(package)
        return False

    def mutated(self, func: Node, taint: Taint, scope: Scope) -> None:
        """``args.push(input.name)``: a collection a method adds to carries what was added."""
        if self.code.raw(func.child_by_field_id(self.fields.property)) not in _MUTATORS:
            return
        holder = unwrap(func.child_by_field_id(self.fields.object))
        if holder is not None and holder.type == "identifier":
            name = self.code.text(holder)
            if name not in scope.taint and (
                name in scope.types or name in self.module_types or name in self.imports.aliases
            ):
                return  # ``redis.set(k, v)`` on a typed client or an import: a call, not a local collection
            scope.taint[name] = scope.taint_of(name) | taint
            scope.assembled.add(name)

    def written_to(self, arg_taints: list[tuple[int, Taint, Node]], scope: Scope) -> None:
        """``await writeFile(tempFile, code)``: the names the file's path is made of carry what was written, so a
        command that later names the same file (``exec(`python3 ${tempFile}`)``) runs it."""
        path = next((a for i, _, a in arg_taints if i == 0), None)
        written = next((t for i, t, _ in arg_taints if i == 1), EMPTY)
        if path is None or not written:
            return
        literal = unwrap(path)
        text = self.code.string_value(literal) if literal is not None and literal.type == "string" else None
        if text and text.strip():  # ``writeFileSync("gen.js", code)``: the literals naming that path carry it
            if text not in scope.literal_paths:
                scope.literal_paths = (*scope.literal_paths, text)
            key = f"{LITERAL_PATH}{text}"
            scope.taint[key] = scope.taint_of(key) | written
            return
        for name in self.identifiers(path):
            if name in BUILTINS or name in self.imports.aliases or name in self.module_types:
                continue  # ``path.join(process.cwd(), f)``: the module and the runtime hold no file
            scope.taint[name] = scope.taint_of(name) | written

    def after_args(self, args: list[Node], scope: Scope, before: int, active: frozenset[str]) -> frozenset[str]:
        """``fs.rm(checkedJoin(p))``: an argument's call to a function of the tree has returned before
        the call runs, so what holds when that function returns holds here (``after:<callee>``)."""
        for arg in args:
            inner = unwrap(arg)
            location = self.locations.get(inner.id) if inner is not None and inner.type == "call_expression" else None
            if location is None:
                continue
            for call in scope.calls[before:]:
                if call.location is location:
                    active = active | {AFTER + call.callee}
        return active

    def call_args(self, arg_taints: list[tuple[int, Taint, Node]], scope: Scope) -> list[ArgTaint]:
        """The arguments of a call into the tree that carry taint, or are SQL fixed in the code (what a
        SQL parameter of the callee then runs), each with whether it is its origin's value unchanged."""
        out: list[ArgTaint] = []
        for index, taint, node in arg_taints:
            text, whole = self.value_shape(node, taint, scope)
            inner = unwrap(node)
            value_type = None
            if inner is not None and inner.type == "identifier":  # what the argument is, when known
                named = self.code.text(inner)
                value_type = scope.types.get(named) or self.module_types.get(named)
                head = value_type.partition(".")[0] if value_type is not None else ""
                if head in scope.params and head not in scope.types:
                    # ``handle = await fsApi.open(p)`` with ``fsApi`` a parameter of unknown type: not a type.
                    value_type = None
                elif value_type is None and named not in scope.taint:
                    # a package's module handed over (``collect(fs, root)`` with ``fs`` node:fs/promises)
                    imported = self.imports.aliases.get(named)
                    if imported is not None and "#" not in imported:
                        value_type = imported
            if taint or text is not None or value_type is not None:
                # Validated: an argument's keyword is left unset (as the facts have always had it).
                out.append(
                    ArgTaint(
                        index=index,
                        origins=sorted(taint, key=origin_key),
                        text=text,
                        whole=whole,
                        valueType=value_type,
                    )
                )
        return out

    def plain_call(
        self,
        node: Node,
        func: Node | None,
        name: str,
        resolved: bool,
        scope: Scope,
        active: frozenset[str],
        arg_taints: list[tuple[int, Taint, Node]],
        receiver: Taint,
        returned: Taint,
        all_args: Taint,
    ) -> Taint:
        """A call that is neither a model use nor an action: a call into the tree, or possibly unresolved."""
        runs = self.rules.agent_runners.get(name.rpartition(".")[2]) if self.rules.agent_runners else None
        if runs is not None and arg_taints:
            # ``this.runAgentTool(ClaudeCodeAgent, { input })``: the agent class's turn runs here.
            cls, _ = self.dotted(arg_taints[0][2], scope)
            if cls is not None and "#" in cls:
                scope.calls.append(
                    trusted(
                        CallFact,
                        location=self.loc(node),
                        callee=self.inherited(f"{cls}.{runs}"),
                        resolved=True,
                        dominatingGates=sorted(active),
                        args=self.call_args(arg_taints[1:], scope),
                    )
                )
                return all_args | returned
        if name.startswith(CALLBACK):
            # ``conn.execute(sql)`` with ``conn`` what the function of the tree the callback is handed to passes
            # it: a call on that value (the linker).
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=name,
                    resolved=False,
                    dominatingGates=sorted(active),
                    args=self.call_args(arg_taints, scope),
                    client=_awaited(node),
                )
            )
            return all_args | returned
        if "#" in name:
            callee = self.inherited(f"{name}default" if name.endswith("#") else name)
            owner, _, method = callee.rpartition(".")
            if method in _TOOL_RUNS and owner in self.tool_recognizer.handlers:
                callee = owner  # ``queryTool.invoke(input)``: the tool's handler runs
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=callee,
                    resolved=resolved,
                    dominatingGates=sorted(active),
                    args=self.call_args(arg_taints, scope),
                    client=_awaited(node),
                    modelId=self.option_model_id(node, scope),
                )
            )
            if not resolved and self.imports.unresolvable:  # through a path alias: the linker may find it
                self.unresolved(func, name, resolved, node, scope)
            elif resolved:
                self.typed_call(callee, node, scope)
            if all_args and scope.checked:
                scope.given[callee] = scope.given.get(callee, EMPTY) | all_args
            return call_return_taint(callee) | receiver | returned
        head, dot, rest = name.partition(".")
        if (
            not dot
            and head in scope.params
            and head not in scope.types
            and (scope.inner_params is None or head not in scope.inner_params)
        ):
            # ``fn(conn)``, ``fn`` a callback the callers give: what it is handed, by type, for the callbacks'
            # parameters (``CALLBACK``, the linker).
            handed = [a for a in self.call_args(arg_taints, scope) if a.valueType is not None]
            if handed:
                scope.calls.append(
                    trusted(
                        CallFact,
                        location=self.loc(node),
                        callee=f"{PARAM}{scope.params.index(head)}",
                        resolved=False,
                        dominatingGates=sorted(active),
                        args=handed,
                    )
                )
        if (
            dot
            and head in scope.opaque_params
            and head not in scope.types
            and (scope.inner_params is None or head not in scope.inner_params)
        ):
            # ``docker.getContainer(id)`` with ``docker: any``: a call on what the callers pass (the linker).
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=f"{PARAM}{scope.params.index(head)}.{rest}",
                    resolved=False,
                    dominatingGates=sorted(active),
                    args=self.call_args(arg_taints, scope),
                    client=_awaited(node),
                )
            )
        if not resolved or self.imports.unresolvable:
            self.unresolved(func, name, resolved, node, scope)
        return all_args | returned


def _awaited(node: Node) -> bool:
    """Whether a call's value is awaited (a call that waits on a service, as the general client rule reads it);
    the grammar puts the ``await`` of a generic call inside its callee (``await client.get<T>(url)``)."""
    func = node.child_by_field_name("function")
    if func is not None and func.type == "await_expression":
        return True
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return parent is not None and parent.type == "await_expression"


# A promise's handlers, and the combinators that wait for an array of promises.
_PROMISE_HANDLERS = frozenset({b"then", b"catch", b"finally"})
_PROMISE_COMBINATORS = frozenset({b"Promise.all", b"Promise.allSettled", b"Promise.race", b"Promise.any"})


def _client_member(name: str, classes: Patterns) -> bool:
    """Whether ``name`` (``<package>.<Class>.<member>...<method>``) is a method reached from an object of a class
    of the package named as a client (``@notionhq/client.Client.pages.retrieve``)."""
    rest = name[name.index("/") + 1 :] if name.startswith("@") else name
    parts = rest.split(".")
    return any(segment[:1].isupper() and classes.matches(segment) for segment in parts[1 : len(parts) - 1])


def _handled_as_promise(code: Code, call: Node, parent: Node) -> bool:
    """Whether the value of ``call`` is handled as a promise: the object of ``.then`` / ``.catch`` /
    ``.finally``, or an element of the array a ``Promise.all`` (``allSettled``, ``race``, ``any``) waits for."""
    if parent.type == "member_expression":
        return (
            parent.child_by_field_name("object") == call
            and code.raw(parent.child_by_field_name("property")) in _PROMISE_HANDLERS
        )
    arguments = parent.parent
    waiting = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    return (
        waiting is not None
        and waiting.type == "call_expression"
        and code.raw(waiting.child_by_field_name("function")) in _PROMISE_COMBINATORS
    )


def _returned_by_async(node: Node) -> bool:
    """Whether ``node`` (a ``return`` statement, or an arrow function whose body is the call) gives the value of
    an ``async`` function: the nearest function around the return, or the arrow itself."""
    current: Node | None = node
    while current is not None and current.type not in FUNCTIONS:
        current = current.parent
    return current is not None and any(child.type == "async" for child in current.children)
