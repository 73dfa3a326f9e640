"""Tools defined as data and chosen by name: literal definitions (OpenAI and Anthropic schema dicts, MCP
``Tool(name=..., inputSchema=...)`` objects), the names they carry (literals, module constants, members
of a string ``Enum`` of the file), and the code a dispatch runs for each name.

A tool defined as data runs whatever the code that dispatches its name runs: a ``{"name": function}``
table, or a branch of ``if name == NAME:`` / ``match name: case NAME:`` in a handler. Each such branch
becomes a function of its own (``<handler>#<name>``): the branch's calls and actions, the handler's
calls outside every named branch, and a call to the handler (its actions outside the branches), so
the actions of one branch are attributed to its tool only, behind the gates that hold where the
branch starts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from functools import cached_property

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    NAMED_AT_RUN_TIME,
    CallFact,
    FrontierSite,
    FunctionFacts,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.bound_calls import BoundCallLogic
from assay.backend.engines.static.pyast.described import dict_schema, schema_source
from assay.backend.engines.static.pyast.literals import (
    kwarg,
    literal_dict,
    literal_str,
    schema_params,
    tool_annotations,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.names import STDLIB_HEADS
from assay.backend.engines.static.pyast.schema_uses import Loads, only_shapes_data, parents_of
from assay.backend.engines.static.pyast.scope import Branch, Scope
from assay.backend.engines.static.pyast.syntax import breadth_first, walk
from assay.backend.engines.static.rules.pack import Rule

# Methods of a pydantic model that return its JSON schema (``Params.model_json_schema()``).
_GENERATED_SCHEMAS = frozenset({"model_json_schema", "schema", "json_schema"})
# A dict literal defines a tool (``_dict_tool``) only with one of these keys.
_TOOL_DICT_KEYS = frozenset({"type", "input_schema", "function_declarations", "parameters", "toolSpec"})


class DispatchLogic(BoundCallLogic):
    """Literal tools, their names, and the function each one's name dispatches to."""

    # ----- dispatch tables -----------------------------------------------------------------------

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
        """Also a table of records, each holding its function under a key of the function-record rule
        (``{"read_file": {"definition": read_file_definition, "function": read_file}}``)."""
        assert self._dispatch is not None
        rule = self._record_rule
        function_keys = frozenset(rule.match["function_keys"]) if rule is not None else frozenset()
        for node in nodes:
            if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        if isinstance(value, ast.Dict) and function_keys:
                            value = next(
                                (
                                    v
                                    for k, v in zip(value.keys, value.values, strict=True)
                                    if isinstance(k, ast.Constant) and k.value in function_keys
                                ),
                                value,
                            )
                        target, ok = self.dotted(value, None)
                        if ok and target and isinstance(value, ast.Name | ast.Attribute):
                            self._dispatch.setdefault(key.value, target)

    # ----- literal tools -------------------------------------------------------------------------

    @cached_property
    def _schema_dict_keys(self) -> frozenset[str]:
        """Keys that make a dict worth reading as a tool definition or a tool schema."""
        return _TOOL_DICT_KEYS | self.roles.schema_keys

    def _dict_tool(self, node: ast.Dict, scope: Scope) -> None:
        wanted = self._schema_dict_keys
        if not any(type(key) is ast.Constant and key.value in wanted for key in node.keys):
            return  # most dicts are data, not tool definitions: no need to read them
        if not any(type(key) is ast.Constant and key.value in _TOOL_DICT_KEYS for key in node.keys):
            self._described_schema(*dict_schema(node, self.roles.schema_keys))
            return
        if id(node) not in self._schema_parts:
            self._described_schema(*dict_schema(node, self.roles.schema_keys))
        if id(node) in self._schema_parts:
            return  # the declaration inside a tool dict read already (``{"type": "function", "function": {...}}``)
        if self._function_record(node, scope) or self._generated_schema_tool(node):
            return
        declarations = self._gemini_declarations(node)
        if declarations is not None:
            self._declared_tools(declarations)
            return
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
                    if "arguments" in inner and "parameters" not in inner:
                        return  # a tool call the code records (``{"name": ..., "arguments": ...}``), no definition
                    name, description = inner.get("name"), inner.get("description")
                    if name is None:
                        name = self._constant_name(node, "function")
                    self._schema_parts.update(
                        id(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None
                    )
                else:
                    name, description = data.get("name"), data.get("description")
            elif (kind == "anthropic_tool" and "input_schema" in data and "name" in data) or (
                kind == "function_schema" and _function_schema(data)
            ):
                name, description = data.get("name"), data.get("description")
            elif (
                kind == "bedrock_tool_spec" and isinstance(spec := data.get("toolSpec"), dict) and "inputSchema" in spec
            ):
                name, description = spec.get("name"), spec.get("description")
            if name is None and kind != "openai_function":
                name = self._constant_name(node, "toolSpec" if kind == "bedrock_tool_spec" else None)
            if not isinstance(name, str) or not name:
                continue  # an empty name is filled in later (a tool call being assembled): it names no tool
            self._literal_tool(rule, node, name, description, sorted(schema_params(data)))
            return

    def _constant_name(self, node: ast.Dict, inner: str | None) -> str | None:
        """The name a tool dict gives by a constant (``"name": NAME`` with ``NAME = "run_sql"`` in the module, or in
        the class whose body writes the dict), under its key ``inner`` when given (``{"function": {"name": ...}}``)."""
        held: ast.expr | None = node
        if inner is not None:
            held = next((v for k, v in zip(node.keys, node.values, strict=True) if literal_str(k) == inner), None)
        if type(held) is not ast.Dict:
            return None
        value = next((v for k, v in zip(held.keys, held.values, strict=True) if literal_str(k) == "name"), None)
        if type(value) is ast.Name and self._class is not None:
            found = self._class_constants(self._class).get(value.id)
            if found is not None:
                return found
        return self.constant_str(value) if type(value) is ast.Name else None

    def _function_record(self, node: ast.Dict, scope: Scope) -> bool:
        """``{"function": get_price, "parameters": PriceParams}``: a record pairing a function of the code with
        the schema of its arguments (or a description of it) is a tool definition, named by its ``name`` or
        after the function: the schema is what a model is told, the function what runs when it picks it."""
        rule = self._record_rule
        if rule is None:
            return False
        fields = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
        return self._record_tool(rule, fields, rule.match["schema_keys"], scope)

    def _generated_schema_tool(self, node: ast.Dict) -> bool:
        """``{"name": "get_datetime", "description": ..., "parameters": Params.model_json_schema()}``: a function
        declaration whose argument schema a pydantic model of the code generates (not a literal JSON schema)."""
        fields = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
        schema = fields.get("parameters") or fields.get("input_schema")
        name = self.constant_str(fields.get("name"))
        if not (
            "type" not in fields  # ``{"type": "function", ...}``: the OpenAI rule reads it
            and name
            and isinstance(schema, ast.Call)
            and isinstance(schema.func, ast.Attribute)
            and schema.func.attr in _GENERATED_SCHEMAS
        ):
            return False
        kind = "anthropic_tool" if "input_schema" in fields else "function_schema"
        rule = next((r for r in self.rules.tool_dicts if r.match["dict_literal"] == kind), None)
        if rule is None:
            return False
        self._literal_tool(rule, node, name, self.constant_str(fields.get("description")), self._schema_fields(schema))
        return True

    def _function_record_call(self, node: ast.Call, scope: Scope) -> None:
        """``Tool.from_function(function=load_skill, parameters=LoadSkillParameters)``: the code's own call
        pairing a function with its argument schema (keywords, not a description) is the same record."""
        rule = self._record_rule
        if rule is not None:
            fields = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
            schema_keys = [k for k in rule.match["schema_keys"] if k != "description"]
            self._record_tool(rule, fields, schema_keys, scope)

    @property
    def _record_rule(self) -> Rule | None:
        return next((r for r in self.rules.tool_dicts if r.match["dict_literal"] == "function_record"), None)

    def _record_tool(self, rule: Rule, fields: dict[str, ast.expr], schema_keys: list[str], scope: Scope) -> bool:
        if not any(k in fields for k in schema_keys):
            return False
        value = next((fields[k] for k in rule.match["function_keys"] if k in fields), None)
        if not isinstance(value, ast.Name | ast.Attribute):
            return False
        function, ok = self.dotted(value, scope)
        if not function or not ok or not is_user_callee(function, ok, self):
            return False
        if not self._defined_function(function):
            return False
        name = self.constant_str(fields.get("name")) or function.rsplit(".", 1)[-1]
        found = ToolDef.found(rule, name, self.loc(value), function=function)
        self._listed_tools.append(found.model_copy(update={"byFunction": True}))
        return True

    @staticmethod
    def _gemini_declarations(node: ast.Dict) -> ast.List | None:
        """``{"function_declarations": [{"name": ..., "parameters": ...}, ...]}``: Gemini's tool as a dict."""
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "function_declarations" and isinstance(value, ast.List):
                return value
        return None

    def _declared_tools(self, declarations: ast.List) -> None:
        """Each literal declaration of a Gemini tool dict is a tool, named by its ``name``."""
        rule = next((r for r in self.rules.tool_dicts if r.match["dict_literal"] == "gemini_declarations"), None)
        if rule is None:
            return
        for element in declarations.elts:
            self._schema_parts.add(id(element))
            data = literal_dict(element) if isinstance(element, ast.Dict) else None
            name = data.get("name") if data is not None else None
            if data is not None and isinstance(name, str):
                self._literal_tool(rule, element, name, data.get("description"), sorted(schema_params(data)))

    def _tool_object(self, node: ast.Call, rule: Rule) -> None:
        """``Tool(name=NAME, description=..., inputSchema=Model.model_json_schema())``: a tool whose code
        is whatever the dispatch of ``NAME`` runs. A name no constant gives is a frontier item."""
        name_node = kwarg(node, "name") or (node.args[0] if node.args else None)
        name = self.constant_str(name_node)
        source: ToolSource | None = None
        if name is None and (ref := self._constant_ref(name_node)) is not None:
            # ``name=ToolNames.SUBMIT_MODEL`` with ``ToolNames`` imported: the linker reads the value, and
            # answers the frontier item below once it does.
            name, source = ref, ToolSource(kind="constant", ref=ref)
        if name is None:
            self._described_schema(name_node, kwarg(node, "inputSchema") or kwarg(node, "input_schema"))
        if name is None or source is not None:
            if self.rules.dispatch_rule is not None:
                location = self.loc(node)
                self.frontier.append(
                    FrontierSite(
                        id=short_id("fr", "dynamic_dispatch", self.path, location.line, location.column),
                        kind="dynamic_dispatch",
                        detail=f"{NAMED_AT_RUN_TIME}; its implementation is not visible",
                        location=location,
                        ruleId=self.rules.dispatch_rule.id,
                    )
                )
            if name is None:
                return
        schema = kwarg(node, "inputSchema") or kwarg(node, "input_schema") or kwarg(node, "parameters")
        self._literal_tool(
            rule,
            node,
            name,
            self.constant_str(kwarg(node, "description")),
            self._schema_fields(schema),
            tool_annotations(node),
            source,
        )

    def _described_schema(self, name: ast.expr | None, schema: ast.expr | None) -> None:
        """A tool schema built from an object's fields (``pyast/described.py``): from ``self.name``, the
        enclosing class describes its instances to a model; from another object's, the member its schema is
        read from is one a tool class answers."""
        found = schema_source(name, schema)
        if found is None:
            return
        own, member = found
        if own:
            if self._class is not None:
                self.describers.add(f"{self.module}.{self._class}")
        elif member is not None:
            self.schema_members.add(member)

    def _constant_ref(self, node: ast.expr | None) -> str | None:
        """The qualname of another module's constant an expression names (``ToolNames.SUBMIT_MODEL``, with
        ``.value`` read through), when imports resolve it; ``None`` for anything else."""
        if isinstance(node, ast.Attribute) and node.attr == "value":
            node = node.value
        if not isinstance(node, ast.Attribute | ast.Name):
            return None
        ref, ok = self.dotted(node, None)
        if (
            not (ok and ref and "." in ref)
            or ref.startswith(self.module_prefix)
            or ref.split(".", 1)[0] in STDLIB_HEADS
        ):
            return None
        return ref

    def _schema_fields(self, schema: ast.expr | None) -> list[str]:
        """Parameter names of a schema: a literal JSON schema, or a pydantic model of the file
        (``Model.model_json_schema()``, ``Model.schema()``)."""
        if isinstance(schema, ast.Dict):
            data = literal_dict(schema)
            return sorted(schema_params({"input_schema": data})) if data else []
        if (
            isinstance(schema, ast.Call)
            and isinstance(schema.func, ast.Attribute)
            and isinstance(schema.func.value, ast.Name)
        ):
            cls = next(
                (d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == schema.func.value.id), None
            )
            if cls is not None:
                return sorted(
                    s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                )
        return []

    def _literal_tool(
        self,
        rule: Rule,
        node: ast.expr,
        name: str,
        description: object,
        parameters: list[str],
        annotations: dict[str, bool] | None = None,
        source: ToolSource | None = None,
    ) -> None:
        location = self.loc(node)
        tool = ToolDef.found(
            rule,
            name,
            location,
            description=description if isinstance(description, str) else None,
            function=self.dispatch.get(name) if source is None else None,
            parameters=parameters,
            annotations=annotations,
        )
        if source is not None:
            tool = tool.model_copy(update={"source": source})
        self._literal_tools.append(tool)
        self._literal_nodes[tool.id] = node

    def _drop_data_schemas(self) -> None:
        """Literal tools whose every use in the file only shapes or checks data (``schema_uses``): no tools."""
        kwargs, calls = self.rules.schema_only_kwargs, self.rules.schema_only_calls
        if not self._literal_tools or not (kwargs or calls):
            return
        parents = parents_of(self.tree)

        def callee(func: ast.expr) -> str | None:
            name, _ = self.dotted(func, None)
            return name

        loads: Loads = {}
        self._literal_tools = [
            t
            for t in self._literal_tools
            if (node := self._literal_nodes.get(t.id)) is None
            or not only_shapes_data(node, self.tree, parents, callee, kwargs, calls, loads)
        ]

    # ----- branches ------------------------------------------------------------------------------

    def _branch_names(self, test: ast.expr) -> list[str]:
        """The names an ``if`` test selects: ``name == NAME``, ``NAME == name``, ``name in (A, B)``."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return []
        op = test.ops[0]
        right = test.comparators[0]
        if isinstance(op, ast.Eq):
            found = self._label(right) or self._label(test.left)
            return [found] if found is not None else []
        if isinstance(op, ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set):
            names = [self._label(e) for e in right.elts]
            return [n for n in names if n is not None]
        return []

    def _case_names(self, pattern: ast.pattern) -> list[str]:
        if isinstance(pattern, ast.MatchValue):
            found = self._label(pattern.value)
            return [found] if found is not None else []
        if isinstance(pattern, ast.MatchOr):
            return [n for p in pattern.patterns for n in self._case_names(p)]
        return []

    def _label(self, node: ast.expr) -> str | None:
        """The tool name a branch label selects: a string the file gives, else the qualname of another
        module's constant (``case ToolNames.SUBMIT_MODEL:``), which is how a tool object named by that constant
        is known in this file until the linker reads its value (``_tool_object``)."""
        return self.constant_str(node) or (self._constant_ref(node) if self._literal_tools else None)

    def _branch(
        self, names: Sequence[str], node: ast.stmt | ast.match_case, scope: Scope, start: tuple[int, int]
    ) -> None:
        """Record the facts a named branch added since ``start`` (its calls and actions counts)."""
        location = self.loc(node if isinstance(node, ast.stmt) else node.pattern)  # type: ignore[arg-type]
        for name in names:
            scope.branches.append(Branch(name, location, (start[0], len(scope.calls)), (start[1], len(scope.actions))))

    def _keep_branches(self, scope: Scope, facts: FunctionFacts) -> None:
        if scope.branches:
            self._branch_scopes.append((facts, scope.branches))

    def _link_literal_tools(self) -> None:
        """Literal tools not in a dispatch table take the branch that dispatches their name; the rest
        are ``dynamic_dispatch`` frontier items."""
        split: dict[str, tuple[FunctionFacts, dict[str, list[Branch]]]] = {}
        paired = self._paired_functions() if any(t.function is None for t in self._literal_tools) else {}
        for tool in self._literal_tools:
            if tool.function is None:
                # The function handed over with its definition, else the branch for its name, else the handler
                # that runs every tool of the server.
                function = (
                    paired.get(tool.id) or self._branch_function(tool.name, split) or next(iter(self._handlers), None)
                )
                if function is not None:
                    tool = tool.model_copy(update={"function": function})
            self.tools.append(tool)
            if tool.function is None and self.rules.dispatch_rule is not None:
                self.frontier.append(
                    FrontierSite(
                        id=short_id("fr", "dynamic_dispatch", self.path, tool.location.line, tool.name),
                        kind="dynamic_dispatch",
                        detail=f"tool {named_by(tool)} is defined as a literal; its implementation is chosen at run time",
                        location=tool.location,
                        ruleId=self.rules.dispatch_rule.id,
                    )
                )
        self._split_handlers(split)

    def _paired_functions(self) -> dict[str, str]:
        """Literal tools handed over in one call with the function that runs them, by the tool's id: a class of the
        file whose attribute holds the definition gives it and one of its own methods together (``super().__init__(
        self.NAME, self.SQL_FUNCTION_DICT, self.generate_and_run_sql_query)``), as a registration pairs a schema with
        its handler. Read only for the literal tools no dispatch table or branch runs."""
        held: dict[tuple[str, str], str] = {}  # (class, attribute) -> the tool whose definition it holds
        nodes = {id(node): tid for tid, node in self._literal_nodes.items()}
        classes = [d for d in self.module_defs if isinstance(d, ast.ClassDef)]
        for cls in classes:
            for stmt in cls.body:
                if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
                    tid = nodes.get(id(stmt.value))
                    if tid is not None:
                        held[(cls.name, stmt.targets[0].id)] = tid
        out: dict[str, str] = {}
        for cls in classes:
            methods = self.classes.get(cls.name, (frozenset(), []))[0]
            for node in walk(cls):
                if type(node) is not ast.Call:
                    continue
                given = [*node.args, *(k.value for k in node.keywords)]
                attrs = [
                    a.attr
                    for a in given
                    if type(a) is ast.Attribute and type(a.value) is ast.Name and a.value.id in ("self", "cls")
                ]
                tools = [held[(cls.name, a)] for a in attrs if (cls.name, a) in held]
                runs = [a for a in attrs if a in methods]
                if len(tools) == 1 and len(runs) == 1:
                    out.setdefault(tools[0], f"{self.module}.{cls.name}.{runs[0]}")
        return out

    def _branch_function(
        self, name: str, split: dict[str, tuple[FunctionFacts, dict[str, list[Branch]]]]
    ) -> str | None:
        """The qualname of the function made of the branch that dispatches ``name`` (first handler
        of the file with such a branch)."""
        for facts, branches in self._branch_scopes:
            mine = [b for b in branches if b.name == name]
            if mine:
                entry = split.setdefault(facts.qualname, (facts, {}))
                entry[1][name] = mine
                return f"{facts.qualname}#{name}"
        return None

    def _split_handlers(self, split: dict[str, tuple[FunctionFacts, dict[str, list[Branch]]]]) -> None:
        """Each handler keeps what lies outside its tools' branches; each branch becomes a function."""
        for qualname, (facts, tools) in split.items():
            taken_calls = {i for bs in tools.values() for b in bs for i in range(*b.calls)}
            taken_actions = {i for bs in tools.values() for b in bs for i in range(*b.actions)}
            common = [c for i, c in enumerate(facts.calls) if i not in taken_calls]
            to_handler = trusted(
                CallFact, location=facts.location, callee=qualname, resolved=True, dominatingGates=[], args=[]
            )
            for name, branches in sorted(tools.items()):
                mine_calls = sorted({i for b in branches for i in range(*b.calls)})
                mine_actions = sorted({i for b in branches for i in range(*b.actions)})
                branch_qualname = f"{qualname}#{name}"
                self.functions.append(
                    FunctionFacts(
                        id=short_id("fn", self.path, branch_qualname),
                        qualname=branch_qualname,
                        name=name,
                        location=branches[0].location,
                        params=list(facts.params),
                        calls=[*common, *(facts.calls[i] for i in mine_calls), to_handler],
                        actions=[facts.actions[i] for i in mine_actions],
                        gates=list(facts.gates),
                    )
                )
            kept = [a for i, a in enumerate(facts.actions) if i not in taken_actions]
            index = self.functions.index(facts)
            self.functions[index] = facts.model_copy(update={"calls": common, "actions": kept})


def _function_schema(data: dict[str, object]) -> bool:
    """``{"name": "read_file", "description": ..., "parameters": {"type": "object", "properties": {...}}}``: a
    function declaration (the form of OpenAI's ``functions=``, Gemini's and Ollama's declarations, and of
    schemas an agent loop hands to any SDK after renaming a key): a name and a JSON schema of its arguments."""
    parameters = data.get("parameters")
    return (
        isinstance(data.get("name"), str)
        and isinstance(parameters, dict)
        and (parameters.get("type") == "object" or isinstance(parameters.get("properties"), dict))
    )


def named_by(tool: ToolDef) -> str:
    """How a frontier item names a literal tool: its name, or the constant of another module that names it."""
    return f"named by {tool.source.ref}" if tool.source is not None and tool.source.kind == "constant" else tool.name
