"""Expressions: every call in them recorded, and the taint origins their values carry (``ExpressionLogic``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.checked import reached
from assay.backend.engines.static.facts import (
    PARAM,
    ArgTaint,
    CallFact,
    FunctionFacts,
    TaintOrigin,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.dispatch import DispatchLogic
from assay.backend.engines.static.pyast.graph_state import state_attr, state_get, state_read, state_target
from assay.backend.engines.static.pyast.literals import bound_names, kwarg, opens_for_writing
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.names import PY_BUILTINS
from assay.backend.engines.static.pyast.scope import (
    MODULE_PARAMS,
    NO_CALLEE,
    NO_TAINT,
    Scope,
    call_return,
    model_output,
    origin_key,
)
from assay.backend.engines.static.pyast.syntax import (
    node_fields,
    walk,
)

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

# Keywords that carry the SQL text of a call that executes it.
# List methods that hand a list more elements (``agent.functions.append(f)``).
_LIST_GROWERS = frozenset({"append", "extend", "insert"})
# Methods that put their argument into the object they are called on: a container's growers and a file's
# writers (``_grow_receiver``).
_FILE_WRITERS = frozenset({"write", "writelines", "write_text", "write_bytes"})
_RECEIVER_GROWERS = _LIST_GROWERS | _FILE_WRITERS | {"add", "appendleft", "extendleft"}
_CONTAINERS = frozenset({"collections.deque", "collections.OrderedDict", "io.StringIO", "io.BytesIO"})
_SQL_KEYWORDS = frozenset({"sql", "query", "query_", "command", "statement", "text"})
# Keywords naming the model a call uses, read on calls of objects this file cannot type (``CallFact.modelId``).
_MODEL_KEYWORDS = frozenset({"model", "modelId", "model_id"})
# Methods writing what they are given to the file a path names (``path.write_text``): see ``_write_to_file``.
_PATH_WRITES = frozenset({"write_text", "write_bytes"})
_HANDLE_WRITES = frozenset({"write", "writelines"})


class ExpressionLogic(DispatchLogic):
    """Expressions and assignments: calls recorded as facts, taint carried by values and names."""

    def _expr(self, node: ast.expr, scope: Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        """Record every call in ``node``; return the taint origins its value may carry."""
        kind = type(node)
        if kind is ast.Attribute and self._class is not None:
            key = self._field_key(node)  # type: ignore[arg-type]
            if key is not None:
                # ``self.command``: what the class's methods store there, and whatever ``self`` carries.
                return scope.taint.get("self", NO_TAINT) | {TaintOrigin(kind="field", callee=key)}
        if kind is ast.Attribute and scope.state is not None and (read := state_attr(node, scope.state)) is not None:  # type: ignore[arg-type]
            # ``state.query`` in a graph node over a pydantic state: what the graph's nodes write under the key.
            return scope.taint.get(scope.state[0], NO_TAINT) | {read}
        # ``a.b.c``, ``await x``, ``*x``, ``{x}``: one child, nothing of their own to record.
        while kind in _WRAPPERS or (kind is ast.FormattedValue and node.format_spec is None):  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
            kind = type(node)
        if kind is ast.Name:
            return scope.taint.get(node.id, NO_TAINT)  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call(node, scope, active)  # type: ignore[arg-type]
        if kind is ast.Constant:
            return written_path(node.value, scope) if scope.literal_paths else NO_TAINT  # type: ignore[attr-defined]
        if kind is ast.NamedExpr:
            # ``if not (shell := get_shell()): raise ...``: the name is bound as by an assignment, its type
            # (what the call returns) included, for the calls made on it later.
            value = node.value  # type: ignore[attr-defined]
            taint = self._expr(value, scope, active)
            inner = value.value if type(value) is ast.Await else value
            self._assign(node.target, taint, self._type_of(inner, scope) if type(inner) is ast.Call else None, scope)  # type: ignore[attr-defined]
            return taint
        if kind in _SCOPED_EXPRESSIONS:
            return self._scoped(node, scope, active)
        if kind is ast.Yield or kind is ast.YieldFrom:
            # What a generator yields is what it gives its caller, as a ``return`` would; the expression's
            # own value is what the caller sends back in.
            value = node.value  # type: ignore[attr-defined]
            if value is not None:
                scope.returns |= self._expr(value, scope, active)
            return NO_TAINT
        if kind is ast.Dict:
            self._dict_tool(node, scope)  # type: ignore[arg-type]
            self._name_table(node)  # type: ignore[arg-type]
        elif kind is ast.List or kind is ast.Tuple:
            if self.rules.library_tools:
                self._listed_library_tools(node.elts, scope)  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            if type(node.value) is ast.Attribute and node.value.attr == "environ":  # type: ignore[attr-defined]
                self._env_read(node, scope, active)  # type: ignore[arg-type]
            elif scope.state is not None and (read := state_read(node, scope.state)) is not None:  # type: ignore[arg-type]
                # ``state["query"]`` in a graph node: what the graph's nodes write under the key.
                return scope.taint.get(scope.state[0], NO_TAINT) | {read}
        # Children in ``_fields`` order, as ``ast.iter_child_nodes`` gives them; names and constants
        # (half of all children) are read here rather than through a call each.
        taint = NO_TAINT
        names = scope.taint
        state = scope.state
        for attr in _EXPRESSION_FIELDS[kind]:
            value = getattr(node, attr)
            for child in value if type(value) is list else (value,):
                child_kind = type(child)
                if child_kind is ast.Attribute and state is not None and (read := state_attr(child, state)) is not None:
                    # ``f"... {state.query}"``: the field, as ``_expr`` reads it.
                    found = names.get(state[0], NO_TAINT) | {read}
                    taint = taint | found
                    continue
                if child_kind is ast.Attribute and (key := self._field_key(child)) is not None:
                    # ``self.prompt | self.llm``, ``[self.command]``: the field, as ``_expr`` reads a bare one.
                    taint = taint | names.get("self", NO_TAINT) | {TaintOrigin(kind="field", callee=key)}
                    continue
                while child_kind in _WRAPPERS:
                    child = child.value
                    child_kind = type(child)
                if child_kind is ast.Name:
                    found = names.get(child.id, NO_TAINT)
                elif child_kind is ast.Call:
                    found = self._call(child, scope, active)
                elif child_kind is ast.Constant and scope.literal_paths:
                    found = written_path(child.value, scope)
                elif child_kind is ast.Constant or child_kind not in _EXPRESSIONS:
                    continue
                else:
                    found = self._expr(child, scope, active)
                if found:
                    taint = taint | found if taint else found
        return taint

    def _scoped(self, node: ast.expr, scope: Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        """A lambda or comprehension: its loop variables and parameters are bound names, and the
        element is read before the loop variable is bound (``_fields`` order)."""
        for bound in bound_names(node):
            scope.taint.setdefault(bound, NO_TAINT)
        for generator in getattr(node, "generators", ()):
            if type(generator.target) is ast.Name:
                scope.iterables[generator.target.id] = generator.iter
        taint = NO_TAINT
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

    def _call(self, node: ast.Call, scope: Scope, active: frozenset[str]) -> frozenset[TaintOrigin]:
        func = node.func
        func_kind = type(func)
        if scope.state is not None and (got := state_get(node, scope.state)) is not None:
            # ``state.get("query")`` in a graph node: what the graph's nodes write under the key (and the default).
            found = scope.taint.get(scope.state[0], NO_TAINT) | {got}
            for extra in node.args[1:]:
                found = found | self._expr(extra, scope, active)
            return found
        if (func_kind is ast.Name or func_kind is ast.Call) and (call := self._rebound_call(node, scope)) is not None:
            # ``run(cmd)`` of ``run = functools.partial(subprocess.run, shell=True)``: the call of what it wraps.
            return self._call(call, scope, active)
        receiver_taint = NO_TAINT
        if func_kind is ast.Attribute:
            receiver_taint = self._expr(func.value, scope, active)  # type: ignore[attr-defined]
        elif func_kind is not ast.Name:
            receiver_taint = self._expr(func, scope, active)
        # The tainted arguments, by position or keyword, and the union of their taints.
        arg_taints: list[tuple[int | None, str | None, frozenset[TaintOrigin]]] = []
        all_args = NO_TAINT
        names = scope.taint
        # Functions of the file passed by reference (``create_pool(init=init)``, ``Thread(target=f)``).
        callbacks: list[tuple[int | None, str | None, str]] = []
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
                found = names.get(value.id, NO_TAINT)  # type: ignore[attr-defined]
                ref = self._function_ref(value, scope)
                if ref is not None:
                    callbacks.append((index, keyword, ref))
            elif kind is ast.Constant:
                if not scope.literal_paths:
                    continue
                found = written_path(value.value, scope)  # type: ignore[attr-defined]
            else:
                if kind is ast.Attribute:
                    ref = self._function_ref(value, scope)
                    if ref is not None:
                        callbacks.append((index, keyword, ref))
                found = self._expr(value, scope, active)
            if found:
                arg_taints.append((index, keyword, found))
                all_args = all_args | found if all_args else found

        if func_kind is ast.Call:
            self._decorator_applied(node, scope)
        if func_kind is ast.Call or func_kind is ast.Subscript:
            self._dynamic_dispatch(node, scope)
        elif all_args and func_kind is ast.Attribute:
            self._grow_receiver(func, all_args, scope)  # type: ignore[arg-type]
            attr = func.attr  # type: ignore[attr-defined]
            if attr in _PATH_WRITES or (attr in _HANDLE_WRITES and type(func.value) is ast.Call):  # type: ignore[attr-defined]
                self._write_to_file(func, all_args, scope)  # type: ignore[arg-type]
        name, resolved = self.dotted(func, scope)
        self._last_callee = (node, scope, name, resolved)
        if func_kind is ast.Attribute and self.rules.graph_adders:
            if name in self.rules.graph_adders:
                self._graph_node(node, func, scope, active)  # type: ignore[arg-type]
            elif self._module_graphs and func.attr in self.rules.graph_runs:  # type: ignore[attr-defined]
                self._graph_run(node, func, scope, active)  # type: ignore[arg-type]
        if (
            func_kind is ast.Attribute
            and type(receiver := func.value) is ast.Name  # type: ignore[attr-defined]
            and receiver.id not in names
            and (held := self.module_types.get(receiver.id)) is not None
            and self._module_model(held)
        ):
            # ``llm.invoke(q)`` in a function, ``llm = ChatOpenAI(...)`` (or ``llm.with_structured_output(...)``)
            # bound at the module's top level: what a chat model answers is model output, as it is where the
            # model is built in the function itself.
            receiver_taint = receiver_taint | model_output(self.loc(node))
        if func_kind is ast.Attribute and self._class is not None and self.rules.toolkit_classes:
            self._toolkit_registration(node, func, scope)  # type: ignore[arg-type]
        if func_kind is ast.Attribute and func.attr in self.rules.message_registers:  # type: ignore[attr-defined]
            self._message_registration(node, func.attr, scope)  # type: ignore[attr-defined]
        if not name:
            return all_args | receiver_taint
        if (
            func_kind is ast.Attribute
            and len(node.args) == 1
            and not node.keywords
            and type(node.args[0]) is ast.Name
            and (node.args[0].id in self.local_defs or node.args[0].id in self.aliases)
        ):
            self._decorator_called(node, name)
        profile = self.rules.profile(name)
        if profile.model_answer and resolved:
            # ``query_engine.query(prompt)`` on an ``NLSQLTableQueryEngine``: the answer (the SQL in its
            # metadata, the code in it) is what the engine's model wrote.
            receiver_taint = receiver_taint | model_output(self.loc(node))
        elif resolved and name in self.rules.answer_instances and _names_an_instance(func, name):
            # ``coder(task=t)`` on ``coder = dspy.Predict(sig)``: the module asks its model (the call of the class
            # itself only builds the module).
            receiver_taint = receiver_taint | model_output(self.loc(node))
        if resolved and (node.args or node.keywords):
            # Not only ``is_user_callee``: a package of the tree may share a library's name (``agents``).
            self._given_lists(node, name, scope)
            self._given_servers(node, name, scope)
            if node.keywords and (name.endswith(".Middleware") or name.endswith(".add_middleware")):
                self._listed_host_allowlist(node, scope)
        if name in self.rules.callback_runners:
            self._run_callback(node, self.rules.callback_runners[name], scope, active)
        if node.keywords:
            if scope.iterables:
                self._records_tool(node, name, profile, scope)
            if self._literal_tools:
                self._drop_forced(node)
        role_done = False
        if profile.model is not None and node.keywords and not profile.tool_list and resolved:
            # A model call's own tools (``responses.create(tools=[{"type": "web_search_preview"}])``).
            self._role_tool_params(node, name, resolved, scope)
            role_done = True
        if profile.model is not None or profile.http_egress:
            model = self._model_call(node, name, profile, scope)
            if model:
                return model
            # A client or agent constructor is recorded and read on: ``Agent(tools=[f])`` lists tools.
        elif resolved and name.startswith(self.module_prefix) and (base := self._model_base(name)) is not None:
            # ``class GeminiModel(LiteLLMModel)`` then ``GeminiModel(model_id=...)``: the package's model
            # class the file's subclass extends is the client built.
            self._model_call(node, base, self.rules.profile(base), scope)
        elif (
            resolved
            # ``AzureChatCompletion()``: a client class built with no argument reads its model from the
            # environment, and is a model client all the same when its name says whose.
            and (node.args or node.keywords or name.rpartition(".")[2][:1].isupper())
            and self.roles.model_rule is not None
            and self._role_model(node, name)
        ):
            # A chat model or LLM client of a package no rule names: what it answers is model output, as for
            # the clients the rules name (``ChatOpenAI(...)``).
            receiver_taint = receiver_taint | model_output(self.loc(node))
        if node.keywords and scope.params is MODULE_PARAMS and any(c is node for c in self._module_agents.values()):
            self._agent_named(node, scope)
        if (node.keywords or node.args) and not profile.actions and not profile.model:
            self._network_built(node, name, resolved, scope)
        if profile.frontier:
            self._frontier_tools(node, name, profile.frontier)
        if profile.tool_call is not None:
            self._call_tool(node, profile.tool_call, scope)
        if profile.held:
            # ``if interrupt(...)["approved"]:``: the run pauses here until a human resumes it.
            scope.pending.add(self._gate(scope, profile.action_gate, node, name))  # type: ignore[arg-type]
        if name in self.rules.route_servers:
            self._route_serving(node)
        if node.keywords and self.rules.serving_kwargs:
            self._served_functions(node, name)
        handler = self.rules.handler_kwargs.get(name) if node.keywords else None
        if handler is not None:
            handler_fn = kwarg(node, handler)
            function = self.dotted(handler_fn, scope)[0] if isinstance(handler_fn, ast.Name | ast.Attribute) else None
            if function:
                self._handlers.append(function)
        if self.rules.toolkits and (
            node.keywords or (func_kind is ast.Attribute and func.attr in self.rules.toolkit_methods)  # type: ignore[attr-defined]
        ):
            self._toolkit_use(node, scope)
        if func_kind is ast.Attribute and node.args and func.attr in _LIST_GROWERS and self.rules.library_tools:  # type: ignore[attr-defined]
            # ``tools.append(SerperDevTool())``: listed, as in ``[SerperDevTool()]`` (``extend`` takes a list, read
            # as a list).
            self._listed_library_tools(node.args[-1:], scope)
        if profile.tool_object is not None:
            self._tool_object(node, profile.tool_object)
        if profile.tool_list:
            made = len(self._listed_tools)
            self._tool_list(node, name, scope)
            if node.keywords:
                self._hook_listed(self._tool_callbacks(node, scope), made)
        elif node.keywords and resolved and not profile.tool_call and not profile.tool_object and not role_done:
            self._role_tool_params(node, name, resolved, scope)
        if resolved and (node.args or node.keywords) and not profile.tool_call and not profile.tool_list:
            self._role_builder(node, name, resolved, scope)
        elif func_kind is ast.Attribute and (built := self._built_base(func, node)) is not None:
            # ``super().__init__(name="x", func=self._run)``: the package base's constructor, building a tool.
            self._role_builder(node, built, True, scope)
        if node.keywords and is_user_callee(name, resolved, self):
            self._function_record_call(node, scope)
        if (
            func_kind is ast.Attribute
            and node.args
            and func.attr in _LIST_GROWERS  # type: ignore[attr-defined]
            and type(held := func.value) is ast.Attribute  # type: ignore[attr-defined]
            and held.attr in self.roles.params
        ):
            # ``agent.functions.append(f)``, ``agent.tools.extend([f, g])``: tools handed over later.
            grown = node.args[-1]
            given = grown if func.attr == "extend" else ast.List(elts=[grown], ctx=ast.Load())  # type: ignore[attr-defined]
            self._tools_attached(held.value, held.attr, given, node, scope)
        if func_kind is ast.Attribute and func.attr in self.roles.agent_tool_methods:  # type: ignore[attr-defined]
            self._agent_as_tool(node, name, scope)
        if resolved and self.roles.agent_tool_classes:
            self._agent_tool(node, name, scope)
        if resolved and self.roles.plugin_registrations and func_kind is ast.Attribute:
            self._plugin_registration(node, name, scope)
        if scope.params is not MODULE_PARAMS and self._module_agents:
            self._agent_run(node, scope, active)
        if node.keywords and self.roles.executor_kwargs and not profile.actions:
            self._role_code_executor(node, name, scope, active)
        if not resolved and func_kind is ast.Name:
            self._unresolved(node, func.id, profile, scope)  # type: ignore[attr-defined]
        if callbacks and not (profile.tool_call or profile.tool_list or profile.tool_object or handler):
            self._callbacks(node, name, callbacks, arg_taints, scope, active)

        # ``draft(...)`` with ``draft = GmailCreateDraft(...)``: an instance is called, not its class.
        instance = func_kind is ast.Name and (func.id in scope.types or func.id in self.module_types)  # type: ignore[attr-defined]
        action_rule = self._action_rule(node, profile, scope) if profile.actions and not instance else None
        # ``svc.render(x)`` with ``svc = LatexService()``: a method of a client class (``*Service``, ``*Client``)
        # is a package's network egress unless the class is the tree's own, imported however (``from services
        # import LatexService`` with ``services/__init__.py`` re-exporting it), which only the linker can tell:
        # the call is recorded as a client call (``CallFact.client``) for it to resolve or report.
        client_class = (
            action_rule is None
            and not profile.actions
            and not profile.model
            and not profile.response
            and self.roles.client_rule is not None
            and self._client_call(name, resolved)
        )
        if scope.checked and active:
            # A check of a value gates what this call does only when that value reaches it.
            active = reached(active, all_args | receiver_taint, scope.checked, scope.given)
        if (
            action_rule is None
            and not client_class
            and self.rules.library_tools
            and instance
            and self._library_run(node, name, scope, all_args | receiver_taint, active)
        ):
            return all_args | receiver_taint
        if action_rule is not None:
            tainted = all_args | receiver_taint
            sink = tainted
            if action_rule.actionClass == "sql.exec":
                # The SQL text is what runs verbatim; bound parameters are values, not code.
                sink = next((t for i, k, t in arg_taints if i == 0 or k in _SQL_KEYWORDS), NO_TAINT)
            self._action(node, name, profile, action_rule, sink, scope, active)
            for also in profile.alongside:
                self._action(node, name, profile, also, tainted, scope, active)
            return tainted
        if client_class or self._user_callee(name, resolved):
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=name,
                    resolved=resolved,
                    dominatingGates=sorted(active),
                    args=self._typed_args(
                        node,
                        scope,
                        [
                            trusted(
                                ArgTaint, index=i, keyword=k, origins=sorted(t, key=origin_key), text=None, whole=False
                            )
                            for i, k, t in arg_taints
                        ],
                    ),
                    client=client_class
                    or (
                        not profile.actions
                        and (self._client_receiver(name, resolved) or self._client_resource(node, scope))
                    ),
                    modelId=self._option_model(node) if not resolved and node.keywords else None,
                    literals=_literals(node) if resolved else None,
                )
            )
            if node.args and (
                (not resolved and name.partition(".")[0] in scope.params)
                or (
                    (resolved or name.partition(".")[0] in scope.outer)
                    and name.rpartition(".")[2] in self.rules.sql_methods
                )
            ):
                # SQL handed to a method of a value the linker may type (a parameter its callers give a connection,
                # another module's session): what the text does, for the linker to class the call.
                self._param_sql_text(node, scope)
            if scope.checked and (all_args or receiver_taint):
                scope.given[name] = scope.given.get(name, NO_TAINT) | all_args | receiver_taint
            if client_class:
                # A package's answer carries what it was sent; a method of the tree's class its own return.
                return call_return(name) | all_args | receiver_taint
            return call_return(name) | receiver_taint
        return all_args | receiver_taint

    def _option_model(self, node: ast.Call) -> str | None:
        """The model id a call on an object this file cannot type names (``bedrock.converse(modelId="...")``
        on a client handed in as a parameter), kept on its ``CallFact`` for the linker, which may find the call
        is a model call (``link.returned._model_calls``)."""
        value = next((k.value for k in node.keywords if k.arg in _MODEL_KEYWORDS), None)
        return self.model_value(value, node) if value is not None else None

    def _grow_receiver(self, func: ast.Attribute, taint: frozenset[TaintOrigin], scope: Scope) -> None:
        """A tainted value put into a container or written to a file held in a name: the name holds it
        too (``parts.append(cmd)``, ``names.add(module)``, ``tmp.write(code)`` then ``tmp.name``). On a
        file opened for writing, the names of its path carry it as well (``f.write(code)`` then
        ``python {path}``). A package's object (a database session's ``add``) is not a container."""
        receiver = func.value
        if type(receiver) is not ast.Name or func.attr not in _RECEIVER_GROWERS:
            return
        name = receiver.id
        held = scope.types.get(name)
        if held is not None and held not in _CONTAINERS and "." in held and func.attr not in _FILE_WRITERS:
            return  # ``session.add(row)``: a package's object, not a container (builtins are undotted)
        scope.taint[name] = scope.taint.get(name, NO_TAINT) | taint
        if func.attr in _FILE_WRITERS:
            for path_name in scope.written_files.get(name, ()):
                scope.taint[path_name] = scope.taint.get(path_name, NO_TAINT) | taint

    def _graph_node(self, node: ast.Call, func: ast.Attribute, scope: Scope, active: frozenset[str]) -> None:
        """``builder.add_node("execute", execute_query)`` (or ``add_node(execute_query)``): the graph runs the
        function, of this module or another; a function building a graph reaches its nodes (its callers run what
        it builds), and a module-level graph's runs reach them through ``_compiled_graph``."""
        fn_node = node.args[1] if len(node.args) > 1 else (node.args[0] if node.args else kwarg(node, "action"))
        if not isinstance(fn_node, ast.Name | ast.Attribute):
            return
        function, ok = self.dotted(fn_node, scope)
        if not (ok and function) or function.split(".", 1)[0] in PY_BUILTINS:
            return
        if isinstance(func.value, ast.Name):
            self._graph_nodes.setdefault(f"{scope.qualname}:{func.value.id}", []).append(function)
        if scope.params is not MODULE_PARAMS:
            scope.calls.append(
                CallFact(location=self.loc(node), callee=function, resolved=True, dominatingGates=sorted(active))
            )

    def _compiled_graph(self, target: str, value: ast.Call, scope: Scope) -> None:
        """``graph = builder.compile()`` at module level: a function of its own, named after the variable (and one
        per run method, ``graph.invoke``, as another module calls it), that calls the builder's nodes."""
        receiver = value.func.value if isinstance(value.func, ast.Attribute) else None
        nodes = self._graph_nodes.get(f"{scope.qualname}:{receiver.id}") if isinstance(receiver, ast.Name) else None
        if not nodes:
            return
        location = self.loc(value)
        qualname = f"{self.module}.{target}"
        self._module_graphs[target] = qualname
        calls = [CallFact(location=location, callee=n, resolved=True, dominatingGates=[]) for n in nodes]
        for each in (qualname, *(f"{qualname}.{run}" for run in self.rules.graph_runs)):
            self.functions.append(
                FunctionFacts(
                    id=short_id("fn", self.path, each),
                    qualname=each,
                    name=each.rsplit(".", 1)[-1],
                    location=location,
                    calls=calls,
                )
            )

    def _graph_run(self, node: ast.Call, func: ast.Attribute, scope: Scope, active: frozenset[str]) -> None:
        """``graph.invoke(state)`` in a function of the module whose top level compiled ``graph``: it runs the nodes."""
        receiver = func.value
        if not isinstance(receiver, ast.Name) or receiver.id in scope.types or scope.params is MODULE_PARAMS:
            return
        qualname = self._module_graphs.get(receiver.id)
        if qualname is not None:
            scope.calls.append(
                CallFact(location=self.loc(node), callee=qualname, resolved=True, dominatingGates=sorted(active))
            )

    def _write_to_file(self, func: ast.Attribute, taint: frozenset[TaintOrigin], scope: Scope) -> None:
        """``path.write_text(code)``, ``open(path, "w").write(code)`` (a handle in a name is ``_grow_receiver``'s):
        the names the file's path is made of carry ``code``'s taint, so a command that later names the same file
        (``subprocess.run(["python", path])``) runs what was written; a path spelled as a literal
        (``open("gen.py", "w")``, ``Path("gen.py")``) carries it for the literals naming it later."""
        receiver = func.value
        names: list[str] = []
        if func.attr in _HANDLE_WRITES:  # ``open(path, "w").write(code)``; a handle held in a name: ``_grow_receiver``
            if isinstance(receiver, ast.Call) and receiver.args and opens_for_writing(receiver):
                callee = self.dotted(receiver.func, scope)[0] or ""
                if callee == "open" or callee.endswith(".open"):
                    names = [n.id for n in walk(receiver.args[0]) if isinstance(n, ast.Name)]
                    names += note_literal_path(receiver.args[0], scope)
        else:  # ``write_text`` / ``write_bytes`` on a path (``p``, ``Path(p)``, ``root / "main.py"``)
            names = [n.id for n in walk(receiver) if isinstance(n, ast.Name) and n.id not in self.aliases]
            if isinstance(receiver, ast.Call) and len(receiver.args) == 1:  # ``Path("gen.py").write_text(code)``
                names += note_literal_path(receiver.args[0], scope)
        for name in names:
            scope.taint[name] = scope.taint.get(name, NO_TAINT) | taint

    def _function_ref(self, node: ast.expr, scope: Scope) -> str | None:
        """The qualname of the file's function an argument names without calling it: a nested
        function of this scope, a module-level function, or a method of the class (``self.m``)."""
        if isinstance(node, ast.Name):
            name = node.id
            typed = scope.types.get(name)
            if typed is not None:
                return typed if typed == f"{scope.qualname}.{name}" else None
            if name in scope.taint:
                return None
            if name in self._module_functions():
                return f"{self.module}.{name}"
            imported = self.aliases.get(name)
            # ``asyncio.to_thread(get_credentials, ...)`` with ``get_credentials`` imported from the tree.
            if imported is not None and "." in imported and self._user_callee(imported, True):
                return imported
            return None
        if isinstance(node, ast.Attribute) and self._class is not None:
            base = node.value
            if isinstance(base, ast.Name) and base.id == "self":
                owner = self._method_owner(self._class, node.attr)
                return f"{self.module}.{owner}.{node.attr}" if owner else None
        return None

    def _callbacks(
        self,
        node: ast.Call,
        name: str,
        callbacks: list[tuple[int | None, str | None, str]],
        arg_taints: list[tuple[int | None, str | None, frozenset[TaintOrigin]]],
        scope: Scope,
        active: frozenset[str],
    ) -> None:
        """A function passed to a call may be called by it (a callback, a thread target, a pool's
        connection hook): whatever reaches the call reaches the function, with the arguments given
        after it (``asyncio.to_thread(f, cmd)``, ``run_in_executor(None, f, cmd)``, ``partial(f, cmd)``
        call ``f(cmd)``). Where the rules say what the callee passes the callback
        (``asyncpg.create_pool(init=f)`` calls ``f(connection)``), its first parameter is typed so."""
        hooks = self.rules.callback_types.get(name)
        location = self.loc(node)
        gates = sorted(active)
        for position, keyword, ref in callbacks:
            if hooks is not None and keyword is not None and keyword in hooks:
                self._callback_params.setdefault(ref, hooks[keyword])
            given = []
            if position is not None:
                for index, key, taint in arg_taints:
                    if index is not None and index > position:
                        given.append(
                            trusted(
                                ArgTaint,
                                index=index - position - 1,
                                keyword=None,
                                origins=sorted(taint, key=origin_key),
                            )
                        )
                    elif key is not None:
                        given.append(trusted(ArgTaint, index=None, keyword=key, origins=sorted(taint, key=origin_key)))
            scope.calls.append(
                trusted(CallFact, location=location, callee=ref, resolved=True, dominatingGates=gates, args=given)
            )

    def _typed_args(self, node: ast.Call, scope: Scope, args: list[ArgTaint]) -> list[ArgTaint]:
        """A call of the tree's function with what each argument is, where a name it is given has a known type
        (``helper(s3, key)`` with ``s3 = boto3.client("s3")``, ``save(store)`` with ``store = SqliteStore()``,
        ``self._put(self.client)``): the linker types the callee's parameter so when every caller agrees
        (``ArgTaint.valueType``; ``param:<name>`` for the caller's own parameter handed on). Only names and ``self``
        fields are read, by dictionary lookups."""
        out = args
        for index, value in enumerate(node.args):
            kind = type(value)
            if kind is ast.Name or kind is ast.Attribute or kind is ast.Call:
                typed = self._value_type(value, kind, scope)
                if typed:
                    out = _typed_arg(out, args, index, None, typed)
        for kw in node.keywords:
            value = kw.value
            kind = type(value)
            if kw.arg is not None and (kind is ast.Name or kind is ast.Attribute or kind is ast.Call):
                typed = self._value_type(value, kind, scope)
                if typed:
                    out = _typed_arg(out, args, None, kw.arg, typed)
        return out

    def _value_type(self, value: ast.expr, kind: type, scope: Scope) -> str | None:
        """What ``_typed_args`` reads of one argument (a name or an attribute): its known type, else None."""
        if kind is ast.Name:
            name = value.id  # type: ignore[attr-defined]
            typed = scope.types.get(name) or self.module_types.get(name)
            if typed is None and name in scope.params and name not in ("self", "cls"):
                # The caller's own parameter handed on (``def save(conn, x): insert(conn, x)``): typed, in
                # turn, by what the caller's callers give it (``link/returned._python_passed``).
                typed = f"{PARAM}{name}"
            return typed
        if kind is ast.Call:
            # ``make_tools(boto3.client("s3"))``, ``make(Smtp())``: what the call builds, when analysis knows.
            typed, known = self.dotted(value, scope)
            return typed if known else None
        if self._class is not None and type(held := value.value) is ast.Name and held.id == "self":  # type: ignore[attr-defined]
            return self.class_attr_types.get(self._class, {}).get(value.attr)  # type: ignore[attr-defined]
        return None

    def _param_sql_text(self, node: ast.Call, scope: Scope) -> None:
        """``conn.execute("INSERT ...", v)`` on an untyped parameter ``conn``: whether its first argument is SQL fixed
        in the code that reads or writes (``ArgTaint.text``), for the linker to class the call when it learns what
        every caller gives ``conn``."""
        first_node = node.args[0]
        wrapped = self._text_clause(first_node, scope)
        kind = self._sql_text_kind(first_node if wrapped is None else wrapped, scope)
        call = scope.calls[-1]
        args = [a for a in call.args if a.index != 0]
        if kind is None:
            if wrapped is not None and type(first_node) is ast.Call:
                # ``execute(text(q))``: that ``text(q)`` is the action already (its own rule), as the analyzer reads it.
                scope.calls[-1] = call.model_copy(update={"args": args})
            return
        first = next((a for a in call.args if a.index == 0), None)
        if first is not None and first.origins and wrapped is None:
            return
        args.append(trusted(ArgTaint, index=0, keyword=None, origins=[], text=kind, whole=False))
        scope.calls[-1] = call.model_copy(update={"args": args})

    def _module_model(self, type_name: str) -> bool:
        """Whether a top-level value of the module is a chat model or what one of its methods made: its type
        (``langchain_openai.ChatOpenAI``, ``langchain_openai.ChatOpenAI.with_structured_output``) is, or
        starts with, a package's model a rule names whose calls answer as a model (not a client or agent
        constructor, whose own methods the rules name)."""
        found = self._module_models.get(type_name)
        if found is None:
            found = False
            if not type_name.startswith(self.module_prefix):
                parts = type_name.split(".")
                for end in range(2, len(parts) + 1):
                    model = self.rules.profile(".".join(parts[:end])).model
                    if model is not None and not model.match.get("constructors"):
                        found = True
                        break
            self._module_models[type_name] = found
        return found

    def _built_base(self, func: ast.expr, node: ast.Call) -> str | None:
        """``super().__init__(name="x", func=self._run)`` in a class of the file extending one package class: that
        class, built as its constructor would be (None for any other call)."""
        if not (
            node.keywords
            and self._class is not None
            and type(func) is ast.Attribute
            and func.attr == "__init__"
            and type(held := func.value) is ast.Call
            and type(held.func) is ast.Name
            and held.func.id == "super"
        ):
            return None
        return self._package_base(self._class)

    def _user_callee(self, name: str, resolved: bool) -> bool:
        """``is_user_callee``, memoised for the file: most calls in a file repeat a few names."""
        key = (name, resolved)
        found = self._user_callees.get(key)
        if found is None:
            found = self._user_callees[key] = is_user_callee(name, resolved, self)
        return found

    def _model_base(self, name: str) -> str | None:
        """For a class of this file, the package's model class it extends (through the file's classes)."""
        local = name[len(self.module_prefix) :]
        if local not in self.classes:
            return None
        prefix = self.module_prefix
        return next(
            (b for b in sorted(self._ancestors(local)) if not b.startswith(prefix) and self.rules.profile(b).model),
            None,
        )

    def _package_type(self, type_name: str) -> bool:
        """A name a package's call gives (not a function or class of this file)."""
        return not type_name.startswith(self.module_prefix) and type_name.split(".", 1)[0] not in self.local_defs

    def _assign(self, target: ast.expr, taint: frozenset[TaintOrigin], type_name: str | None, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self._last_callee = NO_CALLEE  # the name may have been its receiver
            scope.taint[target.id] = taint
            scope.gate_vars.pop(target.id, None)
            scope.verdict_vars.pop(target.id, None)
            declared = scope.declared.get(target.id) if scope.declared else None
            if declared is not None and (not type_name or type_name.startswith(f"{declared}.")):
                # ``creds: Credentials | None`` then ``creds = Credentials.from_authorized_user_file(p)``.
                type_name = declared
            if type_name:
                scope.types[target.id] = type_name
            else:
                scope.types.pop(target.id, None)
        elif isinstance(target, ast.Tuple | ast.List):
            # ``fig, ax = plt.subplots()``: each name holds a part of what a package's call returned, so a
            # method on it is that call's (``matplotlib.pyplot.subplots.savefig``); a function of the tree
            # returning a tuple says nothing of its parts' types.
            part = type_name if type_name and self._package_type(type_name) else None
            for element in target.elts:
                self._assign(element, taint, part, scope)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, taint, None, scope)
        elif isinstance(target, ast.Attribute) and taint:
            key = self._field_key(target)
            if key is None and scope.state is not None and (origin := state_attr(target, scope.state)) is not None:
                # ``state.sql_query = answer`` in a graph node over a pydantic state: a write of that key.
                key = origin.callee
            if key is not None:
                scope.field_writes[key] = scope.field_writes.get(key, NO_TAINT) | taint
        elif isinstance(target, ast.Subscript) and taint and scope.state is not None:
            # ``state["query"] = answer`` in a graph node: a write of that key.
            written = state_target(target, scope.state)
            if written is not None:
                scope.field_writes[written] = scope.field_writes.get(written, NO_TAINT) | taint

    def _field_key(self, node: ast.Attribute) -> str | None:
        """``self.command`` in a method: the field ``<module>.<Class>.command``, else None."""
        base = node.value
        if self._class is None or type(base) is not ast.Name or base.id != "self":
            return None
        return f"{self.module}.{self._class}.{node.attr}"


def _typed_arg(
    out: list[ArgTaint], args: list[ArgTaint], index: int | None, keyword: str | None, typed: str
) -> list[ArgTaint]:
    """``out`` (a copy of ``args`` once changed) with the argument at ``index`` / ``keyword`` typed ``typed``."""
    if out is args:
        out = list(args)
    at = next((n for n, a in enumerate(out) if a.index == index and a.keyword == keyword), None)
    if at is None:
        out.append(trusted(ArgTaint, index=index, keyword=keyword, origins=[], text=None, whole=False, valueType=typed))
    else:
        held = out[at]
        # ``model_copy(update=...)`` of it, made directly (every field given, in order).
        out[at] = trusted(
            ArgTaint,
            index=held.index,
            keyword=held.keyword,
            origins=held.origins,
            text=held.text,
            whole=held.whole,
            valueType=typed,
        )
    return out


def _literals(node: ast.Call) -> dict[str, str] | None:
    """The string literals a call passes, by position or keyword (``CallFact.literals``); None when it passes none."""
    found: dict[str, str] | None = None
    for index, arg in enumerate(node.args):
        if type(arg) is ast.Constant and type(arg.value) is str:
            found = found or {}
            found[str(index)] = arg.value
    for kw in node.keywords:
        value = kw.value
        if kw.arg is not None and type(value) is ast.Constant and type(value.value) is str:
            found = found or {}
            found[kw.arg] = value.value
    return found


def _names_an_instance(func: ast.expr, cls: str) -> bool:
    """Whether ``func`` is a name or member holding an instance of ``cls``, not ``cls`` itself (``self.coder``,
    ``qa``; not ``dspy.Predict`` nor an imported ``Predict``)."""
    last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
    return last is not None and last != cls.rpartition(".")[2]


# The name a path spelled as a literal is carried under in ``Scope.taint`` (no identifier holds a NUL).
_LITERAL_PATH = "\x00path:"


def note_literal_path(path: ast.expr, scope: Scope) -> list[str]:
    """``open("gen.py", "w")`` / ``Path("gen.py")``: the name a literal path written to is carried under (and the
    path noted in ``Scope.literal_paths``); nothing for a path made otherwise."""
    if type(path) is not ast.Constant or type(path.value) is not str or not path.value.strip():
        return []
    if path.value not in scope.literal_paths:
        scope.literal_paths = (*scope.literal_paths, path.value)
    return [f"{_LITERAL_PATH}{path.value}"]


def written_path(value: object, scope: Scope) -> frozenset[TaintOrigin]:
    """What a string literal carries as a path written before (``"gen.py"``, or a word of ``"python gen.py"``)."""
    if type(value) is not str:
        return NO_TAINT
    found = NO_TAINT
    for path in scope.literal_paths:
        if path == value or path in value.split():
            found = found | scope.taint.get(f"{_LITERAL_PATH}{path}", NO_TAINT)
    return found
