"""Tool lists as values: what a ``tools`` argument holds when it is not written out there (a variable
built by appends, ``base + [f]``, a module-level list of this file or of another one), and the
module-level bindings a file offers other files' tools (``FileFacts.bindings``/``lists``/``records``):
the linker resolves a tool that names them (``ToolSource``); and functions a runner calls
(``asyncio.to_thread(f, *args)``), read as calls of their own."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    CALL_RESULT,
    PARAM_ARG,
    PARAM_KW,
    CallFact,
    FrontierSite,
    RecordField,
    RouteServing,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.library import LibraryLogic
from assay.backend.engines.static.pyast.literals import kwarg, literal_dict, literal_str
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.rules import CallProfile
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.syntax import statements_breadth_first
from assay.backend.engines.static.rules.pack import Rule, RulePack

# Methods that add to a list in place, and where the added elements are: ``append(x)``,
# ``insert(i, x)`` add one; ``extend(xs)`` adds a list's.
_ADDS_ONE = {"append": 0, "insert": 1}
_LIST_KINDS = (ast.List, ast.Tuple)
# The values ``_list_names`` reads; it finds nothing in any other.
_LISTING = frozenset({ast.Await, ast.Call, ast.List, ast.Tuple, ast.Name})
_CALLABLE_KINDS = frozenset({ast.Name, ast.Attribute})
# Keywords a tool constructor is named by (``StripeTool(name=...)``, strands ``PythonAgentTool(tool_name=...)``).
_NAME_KEYWORDS = frozenset({"name", "tool_name"})
# ``tool_choice`` values that let the model choose among the tools (or none): no tool is forced.
_CHOICE_MODES = frozenset({"auto", "any", "required", "none"})


class SourceLogic(LibraryLogic):
    """Tool lists held by variables, and the module-level bindings other files may name."""

    def __init__(self, path: str, tree: ast.Module, rules: RulePack, text: str) -> None:
        super().__init__(path, tree, rules, text)
        # Module-level lists of this file, by name: their elements as written (``TOOLS = [search]``).
        self.module_lists: dict[str, list[ast.expr]] = {}
        self.lists: dict[str, list[str]] = {}
        # Function results (``<qualname>()``) a return gives elements of that no name spells.
        self.unnamed_returns: set[str] = set()
        self.records: dict[str, list[dict[str, RecordField]]] = {}
        self.tables: dict[str, str] = {}
        # Web apps the file serves to a model as MCP tools (``FastApiMCP(app)``): their route filters.
        self.route_servings: list[RouteServing] = []
        # Classes describing their instances to a model, and members schemas are read from (``described``).
        self.describers: set[str] = set()
        self.schema_members: set[str] = set()
        # Per function (by node): the values it assigns to each local name, read by ``_assigned``.
        self._assignments: dict[ast.AST, dict[str, list[ast.expr]]] = {}

    # ----- module-level bindings ----------------------------------------------------------------

    def _collect_bindings(self) -> None:
        """Module-level lists of functions and of dict records, with what later statements add."""
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                value = stmt.value
                if not isinstance(target, ast.Name) or not isinstance(value, _LIST_KINDS) or not value.elts:
                    continue
                if all(isinstance(e, ast.Dict) for e in value.elts):
                    self.records[f"{self.module}.{target.id}"] = [_record(e) for e in value.elts]  # type: ignore[arg-type]
                elif all(isinstance(e, ast.Name | ast.Attribute | ast.Starred) for e in value.elts):
                    self.module_lists[target.id] = list(value.elts)
            elif isinstance(stmt, ast.Expr | ast.AugAssign):
                self._list_grows(stmt, self.module_lists)
        for name, elements in self.module_lists.items():
            names = [n for e in elements if (n := self._resolved_name(e)) is not None]
            if names:
                self.lists[f"{self.module}.{name}"] = names

    def _resolved_name(self, node: ast.expr) -> str | None:
        name, resolved = self.dotted(node, None)
        return name if resolved and name else None

    def _list_grows(self, stmt: ast.stmt, lists: dict[str, list[ast.expr]]) -> None:
        """``xs.append(f)``, ``xs.extend([f, g])``, ``xs.insert(0, f)``, ``xs += [f]`` on a list of ``lists``."""
        if isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) and stmt.target.id in lists:
                lists[stmt.target.id] = [*lists[stmt.target.id], *_elements(stmt.value)]
            return
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in lists
        ):
            return
        owner, method = call.func.value.id, call.func.attr
        if method == "extend" and call.args:
            lists[owner] = [*lists[owner], *_elements(call.args[0])]
        elif method in _ADDS_ONE and len(call.args) > _ADDS_ONE[method]:
            lists[owner] = [*lists[owner], call.args[_ADDS_ONE[method]]]

    # ----- calls through runners -----------------------------------------------------------------

    def _run_callback(self, node: ast.Call, position: int | str, scope: Scope, active: frozenset[str]) -> None:
        """``asyncio.to_thread(get_credentials, email)``, ``to_thread(request.execute)``: the runner calls
        the function it is given with the arguments after it; that call is read as written there. A runner given
        the function by keyword (``threading.Thread(target=shutil.rmtree, args=(path,))``) calls it with the
        ``args`` it is given."""
        args: list[ast.expr]
        keywords: list[ast.keyword]
        if isinstance(position, str):
            found = kwarg(node, position)
            if found is None:
                return
            listed = kwarg(node, "args")
            given, args, keywords = found, list(listed.elts) if isinstance(listed, ast.Tuple | ast.List) else [], []
        elif len(node.args) <= position or isinstance(node.args[position], ast.Starred):
            return
        else:
            given, args, keywords = node.args[position], node.args[position + 1 :], node.keywords
        if isinstance(given, ast.Lambda):
            return  # ``to_thread(lambda: os.remove(p))``: its body is read where it is written, once
        partial = given if isinstance(given, ast.Call) and given.args else None
        if partial is not None and self.dotted(partial.func, scope)[0] == "functools.partial":
            # ``run_in_executor(None, functools.partial(subprocess.run, cmd, shell=True))``: the function the
            # partial wraps, with the arguments it fixes first.
            given, args, keywords = partial.args[0], [*partial.args[1:], *args], [*partial.keywords, *keywords]
        call = ast.Call(func=given, args=args, keywords=keywords)
        ast.copy_location(call, node)
        call.end_lineno, call.end_col_offset = node.end_lineno, node.end_col_offset
        self._call(call, scope, active)  # type: ignore[attr-defined]

    # ----- tools built from records ---------------------------------------------------------------

    def _name_table(self, node: ast.Dict) -> None:
        """``{"create_customer": create_customer, ...}``: a table dispatching names to functions."""
        keys, values = node.keys, node.values
        if len(keys) < 2:
            return
        if type(values[0]) not in _CALLABLE_KINDS:
            self._schema_record(values)
            return
        found: dict[str, str] = {}
        for key, value in zip(keys, values, strict=True):
            text = literal_str(key)
            name = self._resolved_name(value) if type(value) in _CALLABLE_KINDS else None
            if text is None or name is None:
                return
            found[text] = name
        for text, name in found.items():
            self.tables.setdefault(text, name)

    def _schema_record(self, values: list[ast.expr]) -> None:
        """``{"schema": read_file.get_tool_schema(), "execute": read_file.execute}``: a record pairing
        what one function returns (a tool's definition, when it is one) with the function that runs it.
        Kept as ``tables["<function>()"]``: the linker gives a literal tool written in that function,
        which no dispatch of its name runs, to the record's function."""
        calls = [v for v in values if isinstance(v, ast.Call)]
        refs = [v for v in values if type(v) in _CALLABLE_KINDS]
        if len(calls) != 1 or len(refs) != 1 or calls[0].args or calls[0].keywords:
            return
        made = self._resolved_name(calls[0].func) if type(calls[0].func) in _CALLABLE_KINDS else None
        runs = self._resolved_name(refs[0])
        if made is not None and runs is not None:
            self.tables.setdefault(f"{made}()", runs)

    def _records_tool(self, node: ast.Call, callee: str, profile: CallProfile, scope: Scope) -> None:
        """``StripeTool(name=tool["method"], ...) for tool in tools``: a tool for each record of a
        module-level list of dicts, named by a field of it (``ToolSource`` ``records``, expanded by the
        linker). A known tool constructor runs the function it is given; another callee must be a tool
        class of the tree left unnamed (a ``template``) for the linker to keep it."""
        for keyword in node.keywords:
            if keyword.arg not in _NAME_KEYWORDS:
                continue
            value = keyword.value
            if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
                continue
            key = literal_str(value.slice)
            source = self._records_of(value.value.id, scope)
            if key is None or source is None:
                continue
            rule = profile.tool_call
            function: str | None = None
            types: list[str] = []
            if rule is not None:
                for wanted in rule.match.get("function_args", []):
                    given = (
                        node.args[wanted]
                        if isinstance(wanted, int) and len(node.args) > wanted
                        else (kwarg(node, wanted) if isinstance(wanted, str) else None)
                    )
                    if given is not None:
                        function = self.dotted(given, scope)[0]
                        break
            else:
                types = [callee]
            location = self.loc(node)
            self.tools.append(
                ToolDef(
                    id=short_id("tool", self.path, location.line, location.column, source, key),
                    name=f"{source}[{key}]",
                    framework=(rule.framework if rule is not None else None) or "unknown",
                    ruleId=rule.id if rule is not None else "",
                    location=location,
                    function=function,
                    source=ToolSource(kind="records", ref=source, key=key, types=types),
                )
            )
            return

    def _runtime_named(self, node: ast.Call, named: ast.expr, scope: Scope) -> None:
        """A tool constructor given a name no constant spells: a tool built from records of a list
        (``_records_tool``), or else one whose name is chosen at run time, a frontier item."""
        if (
            isinstance(named, ast.Subscript)
            and isinstance(named.value, ast.Name)
            and self._records_of(named.value.id, scope) is not None
        ):
            return
        rule = self.rules.dispatch_rule
        if rule is None:
            return
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "runtime_registered_tools", self.path, location.line, location.column),
                kind="runtime_registered_tools",
                detail="a tool is built with a name chosen at run time; which tools the model is given is not visible",
                location=location,
                ruleId=rule.id,
            )
        )

    def _records_of(self, variable: str, scope: Scope) -> str | None:
        """The module-level list a loop variable draws its records from, through filtering lists."""
        seen: set[str] = set()
        node: ast.expr | None = scope.iterables.get(variable)
        while isinstance(node, ast.Name) and node.id in scope.iterables and node.id not in seen:
            seen.add(node.id)
            node = scope.iterables[node.id]
        if node is None or not isinstance(node, ast.Name | ast.Attribute):
            return None
        return self._resolved_name(node)

    # ----- decorators and the closures they return ---------------------------------------------------

    def _wrapped_by(self, dec: ast.expr, name: str, scope: Scope) -> None:
        """``@require_service("gmail")`` over a function: calling the function runs the decorator's
        wrapper first, so the function calls the decorator (whose returned closures it reaches)."""
        if not self._user_callee_name(name):
            return
        scope.calls.append(
            trusted(
                CallFact,
                location=self.loc(dec),
                callee=name,
                resolved=True,
                dominatingGates=[],
                args=[],
            )
        )

    def _user_callee_name(self, name: str) -> bool:
        return is_user_callee(name, True, self)

    def _returned_closure(self, stmt: ast.Return, name: str, scope: Scope, active: frozenset[str]) -> None:
        """``return wrapper`` of a function defined here: whoever calls this function (a decorator, a
        factory) gets a function to call later; its call is counted here, so the closure's reach is seen."""
        nested = f"{scope.qualname}.{name}"
        if scope.types.get(name) != nested:
            return
        scope.calls.append(
            trusted(
                CallFact,
                location=self.loc(stmt),
                callee=nested,
                resolved=True,
                dominatingGates=sorted(active),
                args=[],
            )
        )

    # ----- forced tool choice: structured output, not a tool ----------------------------------------

    def _forced_choice(self, node: ast.Call) -> str | None:
        """The tool a call forces the model to call (``tool_choice="Route"``, ``{"type": "function",
        "function": {"name": "extract"}}``, ``{"type": "tool", "name": "extract"}``): a schema the model
        fills for the code to parse, not a tool it chooses to run."""
        value = kwarg(node, "tool_choice")
        if value is None:
            return None
        text = self.constant_str(value)
        if text is not None:
            return None if text in _CHOICE_MODES else text
        if isinstance(value, ast.Dict):
            data = literal_dict(value) or {}
            inner = data.get("function")
            named = inner.get("name") if isinstance(inner, dict) else data.get("name")
            return named if isinstance(named, str) else None
        return None

    def _drop_forced(self, node: ast.Call) -> None:
        """Literal tool definitions in a call that forces the model to call one of them by name: that
        one is a structured-output schema."""
        forced = self._forced_choice(node)
        if forced is None:
            return
        first, last = node.lineno, node.end_lineno or node.lineno
        self._literal_tools = [
            t for t in self._literal_tools if not (t.name == forced and first <= t.location.line <= last)
        ]

    # ----- lists held by variables ----------------------------------------------------------------

    def _list_assigned(self, name: str, value: ast.expr, scope: Scope) -> None:
        """``tools = [f, g]`` (or ``base + [f]``) in a function: the list a later ``tools=tools`` gives."""
        kind = type(value)
        if kind is ast.ListComp:
            # ``filtered = [t for t in tools if allowed(t)]``: the same records, fewer of them.
            comp: ast.ListComp = value  # type: ignore[assignment]
            if (
                len(comp.generators) == 1
                and isinstance(comp.elt, ast.Name)
                and isinstance(comp.generators[0].target, ast.Name)
                and comp.elt.id == comp.generators[0].target.id
            ):
                scope.iterables[name] = comp.generators[0].iter
            if scope.list_vars:
                scope.list_vars.pop(name, None)
        elif kind is ast.Call:
            func = value.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr in self.rules.toolkit_methods:
                scope.list_vars[name] = [value]  # ``tools = spec.to_tool_list()``, extended later
            elif scope.list_vars:
                scope.list_vars.pop(name, None)
        elif kind in _LIST_KINDS or (kind is ast.BinOp and isinstance(value.op, ast.Add)):  # type: ignore[attr-defined]
            scope.list_vars[name] = list(self._tool_elements(value, scope))
        elif kind is ast.Name and self._tree_import(value):  # type: ignore[arg-type]
            scope.list_vars[name] = [value]  # ``specs = TOOLS``, ``TOOLS`` a list of another module
        elif scope.list_vars:
            scope.list_vars.pop(name, None)

    def _returned_list(self, value: ast.expr, scope: Scope) -> None:
        """``return tools`` (a list this function built) or ``return [f, g]``: what a call of this function
        gives, for a tools argument of another function or file holding its result
        (``tools = await get_all_tools(config)``; ``FileFacts.lists`` under ``<qualname>()``)."""
        if isinstance(value, ast.Name) and value.id not in scope.list_vars:
            return
        key = f"{scope.qualname}{CALL_RESULT}"
        names: list[str] = []
        for element in self._tool_elements(value, scope):
            name = self._resolved_name(element) if isinstance(element, ast.Name | ast.Attribute) else None
            if name is None:
                self.unnamed_returns.add(key)
            elif name not in names:
                names.append(name)
        if names:
            known = self.lists.setdefault(key, [])
            known.extend(n for n in names if n not in known)

    def _tree_import(self, node: ast.Name) -> bool:
        """A name imported from another module of the tree (``from app.config import TOOLS``)."""
        imported = self.aliases.get(node.id)
        return imported is not None and "." in imported and is_user_callee(imported, True, self)

    def _tool_elements(self, value: ast.expr, scope: Scope, depth: int = 0) -> Iterator[ast.expr]:
        """What a tools argument lists: the elements of a literal list, of both sides of ``+``, of a
        list variable of the function or the module; anything else is yielded as it is (a list named
        in another module, a call)."""
        if depth > 8:
            return
        if isinstance(value, _LIST_KINDS):
            for element in value.elts:
                if isinstance(element, ast.Starred):
                    yield from self._tool_elements(element.value, scope, depth + 1)
                else:
                    yield element
        elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            yield from self._tool_elements(value.left, scope, depth + 1)
            yield from self._tool_elements(value.right, scope, depth + 1)
        elif isinstance(value, ast.Name) and value.id in scope.list_vars:
            yield from scope.list_vars[value.id]
        elif isinstance(value, ast.Name) and value.id in self.module_lists and value.id not in scope.taint:
            for element in self.module_lists[value.id]:
                if isinstance(element, ast.Starred):
                    yield from self._tool_elements(element.value, scope, depth + 1)
                else:
                    yield element
        else:
            yield value

    def _is_variable(self, node: ast.expr, scope: Scope) -> bool:
        """A name bound by assignment (a variable, not a function or an import): ``search_web = tools[0]``."""
        if not isinstance(node, ast.Name):
            return False
        name = node.id
        if name in scope.types or name in self.aliases or name in self.local_defs:
            return False
        return name in scope.taint or name in self.module_bound or name in self.module_types

    def _package_instance(self, node: ast.Name, scope: Scope) -> bool:
        """A name bound to an object a package's class built (``tool = FunctionTool(shell)``): an object, which the
        rules for what built it account for, never a function listed by name."""
        typed = scope.types.get(node.id) or self.module_types.get(node.id)
        if not typed or typed.startswith(self.module_prefix) or node.id in self.local_defs or node.id in self.aliases:
            return False
        return typed.rsplit(".", 1)[-1][:1].isupper()

    def _list_reference(self, node: ast.expr, rule: Rule, scope: Scope) -> None:
        """A tools argument that names a list of another module (``ToolNode(TOOLS)``, ``TOOLS`` imported),
        or holds what a function returns (``tools = await get_all_tools(config)``: ``<function>()``):
        listed as a function the linker does not find, it stands for each function of that list."""
        if isinstance(node, ast.Await):
            node = node.value
        produced: str | None = None
        name = ""
        if isinstance(node, ast.Name) and node.id in scope.params and scope.function is not None:
            # ``def __init__(self, model, tools): create_react_agent(model, tools=tools)``: the tools are
            # what the tree's calls of this function or class give that parameter.
            key = self._param_key(scope, node.id)
            if key is None:
                return
            name = key
        elif isinstance(node, ast.Call):
            produced, resolved = self.dotted(node.func, scope)
            if not (produced and resolved):
                return
        elif isinstance(node, ast.Name) and node.id in scope.taint and node.id not in scope.params:
            produced = scope.types.get(node.id)  # a variable the function assigned a call's result to
        elif not isinstance(node, ast.Name | ast.Attribute):
            return
        if produced is not None:
            if not is_user_callee(produced, True, self):
                return
            name = f"{produced}{CALL_RESULT}"
        elif PARAM_ARG in name:
            pass
        else:
            dotted, resolved = self.dotted(node, scope)
            if not (resolved and dotted) or dotted.startswith(self.module_prefix):
                return
            if not is_user_callee(dotted, resolved, self):
                return
            name = dotted
        location = self.loc(node)
        self._listed_tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, name, rule.id),
                name=name.rsplit(".", 1)[-1],
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                function=name,
            )
        )

    def _param_key(self, scope: Scope, param: str) -> str | None:
        """``<function>#arg<i>`` for a parameter of a module-level function, ``<class>#arg<i>`` for one of a
        class's ``__init__`` (``self`` not counted), with the keyword spelling read through it
        (``<callable>#kw:<name>`` in ``lists``); None for other methods, whose calls are not followed."""
        fn = scope.function
        if fn is None:
            return None
        positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
        qualname = scope.qualname
        owner, _, last = qualname.rpartition(".")
        if last == "__init__" and positional and positional[0] == "self":
            base, positional = owner, positional[1:]
        elif owner == self.module:
            base = qualname
        else:
            return None
        keyed = f"{base}{PARAM_KW}{param}"
        if param not in positional:
            return keyed if any(a.arg == param for a in fn.args.kwonlyargs) else None
        key = f"{base}{PARAM_ARG}{positional.index(param)}"
        known = self.lists.setdefault(key, [])
        if keyed not in known:
            known.append(keyed)
        return key

    def _given_lists(self, node: ast.Call, callee: str, scope: Scope) -> None:
        """What a call of the tree's function or class gives each parameter, when that is a list of the
        tree's functions or a function's result (``ReactAgent(model, get_shell_toolkit(), config)``,
        ``toolkit = get_package_toolkit()`` then ``ReactAgent(model, toolkit, config)``): recorded under
        ``<callee>#arg<i>`` / ``#kw:<name>`` for a tools parameter of that callee (``_param_key``)."""
        # Only these values may list anything (``_list_names``): most arguments are constants or attributes.
        for index, value in enumerate(node.args):
            if type(value) in _LISTING and (names := self._list_names(value, scope, 0)):
                self._given_list(f"{callee}{PARAM_ARG}{index}", names)
        for keyword in node.keywords:
            if keyword.arg is not None and type(keyword.value) in _LISTING:
                names = self._list_names(keyword.value, scope, 0)
                if names:
                    self._given_list(f"{callee}{PARAM_KW}{keyword.arg}", names)

    def _given_list(self, key: str, names: list[str]) -> None:
        known = self.lists.setdefault(key, [])
        known.extend(n for n in names if n not in known)

    def _list_names(self, value: ast.expr, scope: Scope, depth: int) -> list[str]:
        """The tree's functions a value lists, or the function results it holds (``<qualname>()``)."""
        if depth > 2:
            return []
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Call):
            produced, resolved = self.dotted(value.func, scope)
            if produced and resolved and is_user_callee(produced, True, self):
                return [f"{produced}{CALL_RESULT}"]
            return []
        if isinstance(value, _LIST_KINDS):
            elements = [e.value if isinstance(e, ast.Starred) else e for e in value.elts]
            if not elements or not all(isinstance(e, ast.Name | ast.Attribute) for e in elements):
                return []
            names = [self._resolved_name(e) for e in elements]
            return [n for n in names if n is not None and is_user_callee(n, True, self)]
        if not isinstance(value, ast.Name) or scope.function is None or value.id in scope.params:
            return []
        if value.id in scope.list_vars:
            held = ast.List(elts=list(scope.list_vars[value.id]), ctx=ast.Load())
            return self._list_names(held, scope, depth + 1)
        produced = scope.types.get(value.id)
        if not produced or not is_user_callee(produced, True, self):
            return []  # only a local holding a result of the tree's own function is read further
        out: list[str] = []
        for bound in self._assigned(scope.function, value.id):
            for name in self._list_names(bound, scope, depth + 1):
                if name not in out:
                    out.append(name)
        return out

    def _assigned(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[ast.expr]:
        """Every value ``fn`` assigns to its local ``name`` (``toolkit = get_package_toolkit()`` on each
        branch), in ``ast.walk`` order; the function is read once for all its names."""
        by_name = self._assignments.get(fn)
        if by_name is None:
            by_name = self._assignments[fn] = {}
            # Assignments are statements: reading the statements alone meets them in the same order.
            for node in statements_breadth_first(fn):
                if type(node) is not ast.Assign:
                    continue
                for target_name in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
                    by_name.setdefault(target_name, []).append(node.value)
        return by_name.get(name, [])


def _elements(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, _LIST_KINDS):
        return [e.value if isinstance(e, ast.Starred) else e for e in value.elts]
    return []


def _record(node: ast.Dict) -> dict[str, RecordField]:
    """The string fields of a dict literal, each with the line its value is written on."""
    out: dict[str, RecordField] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        k, v = literal_str(key), literal_str(value)
        if k is not None and v is not None:
            out[k] = RecordField(value=v, line=value.lineno)
    return out
