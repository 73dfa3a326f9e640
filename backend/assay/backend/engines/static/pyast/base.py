"""State and name resolution shared by the parts of the Python analyzer (``AnalyzerBase``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property

from assay.backend.engines.static.facts import (
    FrontierSite,
    FunctionFacts,
    GateSite,
    ModelSite,
    ToolDef,
)
from assay.backend.engines.static.pyast.literals import (
    annotation_type,
    constructed_type,
    item_name,
    literal_str,
    name_text,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.names import BUILTINS, STDLIB_HEADS, module_name
from assay.backend.engines.static.pyast.role_rules import compile_roles
from assay.backend.engines.static.pyast.rules import compile_rules
from assay.backend.engines.static.pyast.scope import NO_CALLEE, Branch, Scope, definitions
from assay.backend.engines.static.pyast.syntax import (
    breadth_first,
    own_statements,
    statements_breadth_first,
    walk,
)
from assay.backend.engines.static.rules.pack import Rule, RulePack
from assay.backend.scans.bundle import Location

# Decorators that make a method an attribute read (``self.client`` is what ``client()`` returns).
_PROPERTIES = frozenset({"property", "cached_property", "functools.cached_property"})


class AnalyzerBase:
    """One file's state, and names resolved through imports, variable types and the file's classes."""

    def __init__(self, path: str, tree: ast.Module, rules: RulePack, text: str) -> None:
        self.path = path
        # The file's text when it is ASCII: a word missing from it is spelt nowhere in the file (an identifier
        # outside ASCII may normalise to an ASCII one, so other texts answer nothing).
        self.ascii_text = text if text.isascii() else None
        # Whether the file reads the request's verified access token (``get_access_token()``): only then may a
        # test of it be a check in front of a tool (``GateLogic._token_check``).
        self.reads_access_token = "get_access_token" in text
        # Whether the file reads an MCP server's lifespan context (``ctx.request_context.lifespan_context``): only
        # then are attribute paths of a parameter longer than one attribute typed (``_lifespan_type``).
        self.reads_lifespan = "lifespan_context" in text
        self._lifespan: tuple[str | None] | None = None
        self.module = module_name(path)
        self.module_prefix = self.module + "."
        self.is_package = path.endswith("__init__.py")
        self.tree = tree
        self.rules = compile_rules(rules)
        # ``aioboto3`` -> ``boto3``: an asynchronous twin of a package is read as that package, its clients and
        # their calls the same effects (awaited).
        self._twins = compile_roles(rules).async_twins
        self.aliases: dict[str, str] = {}
        self.reexports: dict[str, list[str]] = {}
        self.local_defs: dict[str, str] = {}
        # Modules a relative import names (``from .github_client import GitHubClient``): the tree's own, even
        # when the importing file sits at the scan root and shares no package prefix with them.
        self.tree_modules: set[str] = set()
        self.module_types: dict[str, str] = {}
        # Module names bound to a conditional choice, by ``<module>.<name>``: what each branch names or builds.
        self.alternatives: dict[str, list[str]] = {}
        # Package calls handed where to connect (``Resolver(base_url=...)``): their objects are clients.
        self.network_built: set[str] = set()
        self.class_attr_types: dict[str, dict[str, str]] = {}
        # What the dict fields of the file's classes hold (``self._clients[key] = session.client("s3")``): class
        # name -> field -> the one type every such write stores, read back by ``self._clients[key]``.
        self.class_item_types: dict[str, dict[str, str]] = {}
        self.functions: list[FunctionFacts] = []
        self.models: list[ModelSite] = []
        # Model calls whose model id is a parameter: (where, rule, callee, function, parameter, position).
        self._param_models: list[tuple[Location, Rule, str, str, str, int]] = []
        self.tools: list[ToolDef] = []
        self.frontier: list[FrontierSite] = []
        # Built on first use: only files with literal tool definitions need it.
        self._dispatch: dict[str, str] | None = None
        # Module string constants and class string attributes, read when a tool's name needs them.
        self._constants: dict[str, str] | None = None
        self._collections: dict[str, bool] | None = None  # module names bound to literal collections
        # Per class of the file: its class-level names bound to literal collections (``RISKY = ["rm", "sudo"]``).
        self._class_collections: dict[str, dict[str, bool]] = {}
        self._listed: dict[str, tuple[str, ...]] = {}  # the strings of those collections, once read
        # Gates each function of the file holds on return (``_exit_gates``), and its functions by qualname.
        self._summaries: dict[str, tuple[GateSite, ...]] = {}
        # Gates met in each function of the file that answers yes or no (``_verdict_sites``).
        self._verdicts: dict[str, tuple[GateSite, ...]] = {}
        # The fields of each class of the file annotated as sequences (``tools: list[BaseTool]``): iterating one
        # gives its items (``class_item_types``).
        self.class_sequences: dict[str, set[str]] = {}
        # Gates met in each function of the file that hands back a message or nothing (``_error_sites``).
        self._errors: dict[str, tuple[GateSite, ...]] = {}
        # Functions of the file that hand back a value or refuse: gates held at their returns of a value, and
        # the constants they refuse with (``_refusing_sites``).
        self._refusing: dict[str, tuple[tuple[GateSite, ...], frozenset[object]]] = {}
        self._defs: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]] | None = None
        self._returns: dict[str, str] | None = None  # what functions of the file return (``_return_types``)
        self._nested: dict[str, frozenset[str]] | None = None  # classes nested in each class (``_nested_names``)
        self._functions: frozenset[str] | None = None  # names of the file's module-level functions
        # Callbacks' first parameters, typed by what the call they are passed to gives them.
        self._callback_params: dict[str, str] = {}
        # A tool registry (``mcp = FastMCP(...)``) this file gives a parameter of the tree's function
        # (``register_tools(mcp)``): ``<callee>#arg<i>`` -> its class, and the gates it holds over its tools.
        self.param_bindings: dict[str, str] = {}
        self.server_gates: dict[str, list[str]] = {}
        # The module-level function whose nested definitions are being read, with its qualname.
        self._enclosing_fn: tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None = None
        self._class_strings: dict[str, dict[str, str]] = {}
        # Functions with named branches, kept until the file's literal tools are known.
        self._branch_scopes: list[tuple[FunctionFacts, list[Branch]]] = []
        # Functions that run every tool a server lists (``@server.call_tool()``, ``on_call_tool=f``).
        self._handlers: list[str] = []
        # LangGraph: node functions added to each builder (``<scope qualname>:<builder variable>``), and the
        # module-level compiled graphs (variable -> the function standing for the graph's run).
        self._graph_nodes: dict[str, list[str]] = {}
        self._module_graphs: dict[str, str] = {}
        # What a module-level holder's getter gives (``<module>.db_var.get`` -> ``AsyncSession``), for importers.
        self.held_generics: dict[str, str] = {}
        # Literal tool definitions wait for the whole file, whose later code may dispatch them.
        self._literal_tools: list[ToolDef] = []
        self._literal_nodes: dict[str, ast.expr] = {}  # each literal tool's node, by the tool's id
        # Dict nodes read as part of a literal tool (its inner declaration), not tools of their own.
        self._schema_parts: set[int] = set()
        # Plain functions listed as tools (``ToolNode([f])``): kept unless ``f`` is a tool already.
        self._listed_tools: list[ToolDef] = []
        # The hooks a call mounting in-process servers runs before each tool (``ClaudeAgentOptions(mcp_servers=...,
        # can_use_tool=check)``), by the call's ``id``: their gates, for the tools of the servers it mounts.
        self._mount_hooks: dict[int, list[tuple[str, str | None]]] = {}
        # Gates a configuration holds over the tools it names (``interrupt_on={"send_email": True}``).
        self._named_gates: list[tuple[str, str]] = []
        self._class: str | None = None
        self.module_bound: frozenset[str] = frozenset()
        # Class name -> (its method names, its bases defined in this file).
        self.classes: dict[str, tuple[frozenset[str], list[str]]] = {}
        self.class_bases: dict[str, list[str]] = {}
        self.extended: set[str] = set()  # classes of this file that other classes here extend
        self.star_import = False
        self.module_defs = definitions(tree.body)
        self._user_callees: dict[tuple[str, bool], bool] = {}
        self._module_models: dict[str, bool] = {}
        # Per-file answers about a resolved callee name (``RoleLogic._client_call``, ``_client_receiver``).
        self._client_calls: dict[str, bool] = {}
        self._client_receivers: dict[str, tuple[str | None, bool]] = {}
        self._agent_tool_keys: dict[str, tuple[str, ...] | None] = {}
        self._tool_constructors: dict[str, bool | None] = {}
        # The call ``_call`` resolved last, with its scope and callee (see ``_callee``).
        self._last_callee: tuple[ast.Call | None, Scope | None, str | None, bool] = NO_CALLEE

    def of_tree(self, name: str) -> bool:
        """Whether a resolved name is this file's or one of a module a relative import names."""
        return name.startswith(self.module_prefix) or any(
            name == module or name.startswith(module + ".") for module in self.tree_modules
        )

    @cached_property
    def tree_calls(self) -> list[ast.Call]:
        """Every call of the file, in ``ast.walk`` order (read once, for the lookups that scan them all)."""
        return breadth_first(self.tree, (ast.Call,))  # type: ignore[return-value]

    @cached_property
    def tree_statements(self) -> list[ast.AST]:
        """Every statement of the file (with the except handlers and match cases between them), in
        ``ast.walk`` order."""
        return list(statements_breadth_first(self.tree))

    @cached_property
    def tree_functions(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Every function of the file, nested ones included, in ``ast.walk`` order (definitions are
        statements, so the statements alone hold them all)."""
        return [node for node in self.tree_statements if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]

    def loc(self, node: ast.expr | ast.stmt) -> Location:
        line = node.lineno
        return trusted(Location, path=self.path, line=line, column=node.col_offset + 1, endLine=node.end_lineno or line)

    def _twin(self, name: str) -> str:
        """An imported name, with an asynchronous twin's package read as the package it mirrors."""
        for source, target in self._twins:
            if name == source or name.startswith(source + "."):
                return target + name[len(source) :]
        return name

    def _collect_imports(self, nodes: Iterable[ast.Import | ast.ImportFrom]) -> None:
        package = self.module if self.is_package else self.module.rpartition(".")[0]
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = self._twin(alias.name)
                    else:
                        head = alias.name.split(".")[0]
                        self.aliases[head] = self._twin(head)
                    # ``import pexpect`` here, ``from toolkits.shell_toolkit import pexpect`` in another module:
                    # ``toolkits.shell_toolkit.pexpect`` is that module (a re-export the linker follows).
                    bound = alias.asname or alias.name.split(".")[0]
                    self.reexports[f"{self.module}.{bound}"] = [self.aliases[bound]]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".") if package else []
                    keep = len(parts) - (node.level - 1)
                    prefix = ".".join(parts[: max(keep, 0)])
                    base = ".".join(p for p in (prefix, base) if p)
                    if base:
                        self.tree_modules.add(base)
                for alias in node.names:
                    if alias.name == "*":
                        self.star_import = True
                    else:
                        self.aliases[alias.asname or alias.name] = self._twin(
                            f"{base}.{alias.name}" if base else alias.name
                        )
                        if self.is_package and (node.level or base.startswith(f"{self.module}.")):
                            # ``from .agent import root_agent`` (or ``from pkg.agent import root_agent``) in
                            # ``pkg/__init__.py``: ``pkg.root_agent`` is that name of ``pkg.agent`` (a re-export
                            # the linker follows).
                            self.reexports[f"{self.module}.{alias.asname or alias.name}"] = [
                                self.aliases[alias.asname or alias.name]
                            ]
        for stmt in self.module_defs:
            self.local_defs[stmt.name] = f"{self.module}.{stmt.name}"

    def dotted(self, node: ast.AST, scope: Scope | None) -> tuple[str | None, bool]:
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
            if name in BUILTINS:
                return name, True
            return name, False
        if isinstance(node, ast.Attribute):
            # ``a.b.c``: the names after the base, innermost first, then the base resolved once.
            attrs: list[str] = []
            while True:
                value = node.value
                if isinstance(value, ast.Name) and value.id == "self" and self._class is not None:
                    base: str | None = self._self_attribute(self._class, node.attr, inherited=not attrs)
                    ok = True
                    break
                attrs.append(node.attr)
                if not isinstance(value, ast.Attribute):
                    held = f"{value.id}.{node.attr}" if isinstance(value, ast.Name) and scope is not None else ""
                    deep = f"{held}.{attrs[-2]}" if held and self.reads_lifespan and len(attrs) > 1 else ""
                    if held and held in scope.types:  # type: ignore[union-attr]
                        # ``ctx.deps`` of ``ctx: RunContext[Deps]``: the ``Deps`` the context holds.
                        base, ok = scope.types[held], True  # type: ignore[union-attr]
                        attrs.pop()
                    elif deep and deep in scope.types:  # type: ignore[union-attr]
                        # ``ctx.request_context.lifespan_context``: what the server's lifespan yields.
                        base, ok = scope.types[deep], True  # type: ignore[union-attr]
                        del attrs[-2:]
                    elif (package := self._super_package(value, node.attr)) is not None:
                        # ``super()._run(query)`` in a class extending one package class: that class's method.
                        base, ok = package, True
                    else:
                        base, ok = self.dotted(value, scope)
                    break
                node = value
            if not base:
                return None, ok
            if attrs and base.startswith(self.module_prefix):
                # ``deps.client.send()`` with ``deps: Deps`` and ``client: Client`` a field of ``Deps``.
                fields = self.class_attr_types.get(base[len(self.module_prefix) :])
                if fields is not None and attrs[-1] in fields:
                    base = fields[attrs.pop()]
            return (".".join([base, *reversed(attrs)]) if attrs else base), ok
        if isinstance(node, ast.Call):
            callee, ok = self.dotted(node.func, scope)
            return self._result_type(node, callee), ok
        if isinstance(node, ast.Await):
            return self.dotted(node.value, scope)
        if isinstance(node, ast.Subscript):
            item = self._held_item(node.value)
            if item is not None:
                return item, True
            # ``client[db_name]``, ``db["users"]`` on a package's object: a member of it, as ``client.users``
            # would be (``pymongo.MongoClient.[].users.insert_one``).
            member = self._member_type(node, scope)
            if member is not None:
                return member, True
            container, ok = self.dotted(node.value, scope)
            if ok and container and container.startswith(self.module_prefix):
                # ``paths[stream]`` of a class of this file whose ``__getitem__`` says what it gives (``-> Path``).
                got = self._return_types().get(f"{container}.__getitem__")
                if got is not None:
                    return got, True
            return container, ok
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self.dotted(node.left, scope)
        return None, False

    def _lifespan_type(self) -> str | None:
        """What the file's MCP server keeps as its lifespan context: the type the function of this file handed as
        ``lifespan=`` (``FastMCP("db", lifespan=app_lifespan)``) yields, by its annotation
        (``-> AsyncIterator[AppContext]``) or else by the class it builds where it yields (``yield AppContext(...)``)."""
        if self._lifespan is None:
            found: str | None = None
            for node in ast.walk(self.tree):
                if type(node) is ast.keyword and node.arg == "lifespan" and type(node.value) is ast.Name:
                    fn = next(
                        (
                            d
                            for d in self.module_defs
                            if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == node.value.id
                        ),
                        None,
                    )
                    found = self._yielded_type(fn) if fn is not None else None
                    if found is not None:
                        break
            self._lifespan = (found,)
        return self._lifespan[0]

    def _yielded_type(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """The class a generator function yields: the first argument of its ``Iterator``/``Generator`` annotation, else
        the one class of the file's imports or definitions every ``yield`` of it builds."""
        returns = fn.returns
        if type(returns) is ast.Subscript:
            item = returns.slice.elts[0] if type(returns.slice) is ast.Tuple and returns.slice.elts else returns.slice
            named = annotation_type(item)
            typed, ok = self.dotted(named, None) if named is not None else (None, False)
            if ok and typed and not typed.startswith(("typing.", "typing_extensions.", "collections.")):
                return typed
        built: set[str | None] = set()
        for node in walk(fn):
            if type(node) is ast.Yield:
                value = node.value
                callee, ok = self.dotted(value.func, None) if type(value) is ast.Call else (None, False)
                built.add(callee if ok and callee and callee.rpartition(".")[2][:1].isupper() else None)
        return next(iter(built)) if len(built) == 1 else None

    def _held_item(self, container: ast.expr) -> str | None:
        """What ``self.<field>[key]`` (``cls.<field>[key]`` in a classmethod) gives when the class (or a base of
        this file) stores one type of object under the keys of that field (``class_item_types``)."""
        if not (
            self.class_item_types
            and type(container) is ast.Attribute
            and type(container.value) is ast.Name
            and container.value.id in ("self", "cls")
            and self._class is not None
        ):
            return None
        for current in class_lineage(self._class, lambda c: self.classes.get(c, (frozenset(), []))[1]):
            held = self.class_item_types.get(current, {}).get(container.attr)
            if held is not None:
                return held
        return None

    def _member_type(self, node: ast.Subscript, scope: Scope | None) -> str | None:
        """What ``node`` holds when it takes a member of a package's object (``db = client[name]``), else None."""
        held, ok = self.dotted(node.value, scope)
        if ok and held and self._holds_items(node.value, held, scope):
            return f"{held}.{item_name(node.slice)}"
        return None

    def _holds_items(self, value: ast.expr, held: str, scope: Scope | None) -> bool:
        """Whether ``value[key]`` takes an item of an object a package's call made (``client = MongoClient(url)``,
        held by a local, a module name or ``self``), not of a module's value (``os.environ``) or one of the tree."""
        if held.startswith(self.module_prefix) or held.split(".", 1)[0] in self.local_defs:
            return False
        root = value
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if isinstance(root, ast.Call):
            # ``get_database(name)["users"]``: an item of what a call gives (a package's, or a helper's of the tree).
            return True
        if not isinstance(root, ast.Name):
            return False
        if root.id == "self":
            return self._class is not None
        return (scope is not None and root.id in scope.types) or root.id in self.module_types

    def _self_attribute(self, cls: str, attr: str, inherited: bool = False) -> str:
        """What ``self.attr`` denotes in a method of ``cls``: an attribute's type, or a method. With ``inherited``
        (``self.attr`` itself called, as ``@self.tool()``), a method the class does not define is its package
        base's; a member reached through it (``self.conn.execute``) is not: an attribute nobody assigned."""
        attrs = self.class_attr_types.get(cls, {})
        if attr in attrs:
            return attrs[attr]
        owner = self._method_owner(cls, attr)
        if owner is None and inherited:
            # ``class Server(FastMCP)``: ``self.tool`` the class does not define is its package base's.
            base = self._package_base(cls)
            if base is not None:
                return f"{base}.{attr}"
        return f"{self.module}.{owner or cls}.{attr}"

    def _callee(self, call: ast.Call, scope: Scope) -> tuple[str | None, bool]:
        """``dotted(call.func, scope)``. Statements ask it of the call they have just walked, which
        ``_call`` resolved already: that answer is reused unless a name was bound since."""
        last, last_scope, name, resolved = self._last_callee
        if last is call and last_scope is scope:
            return name, resolved
        return self.dotted(call.func, scope)

    def _type_of(self, node: ast.expr, scope: Scope) -> str | None:
        """``dotted(node, scope)``, through ``_callee`` for a call."""
        if type(node) is ast.Call:
            return self._result_type(node, self._callee(node, scope)[0])
        return self.dotted(node, scope)[0]

    def _module_functions(self) -> frozenset[str]:
        if self._functions is None:
            self._functions = frozenset(
                d.name for d in self.module_defs if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)
            )
        return self._functions

    def _result_type(self, call: ast.Call, callee: str | None) -> str | None:
        """The type of a call's value: what ``constructed_type`` says, but for a function or method
        of this file what it returns (``def get_pool() -> asyncpg.Pool``, a factory classmethod)."""
        typed = constructed_type(call, callee)
        if typed is not None and typed.startswith(self.module_prefix):
            returned = self._return_types().get(typed)
            if returned is not None:
                return returned
        return typed

    def _return_types(self) -> dict[str, str]:
        """What the file's functions and methods return, by qualname, where it says: a return
        annotation naming a class (``-> Pool``, ``-> Self``), or a classmethod that returns
        ``cls(...)`` (a factory: ``node = await Node.from_content(text)`` is a ``Node``)."""
        if self._returns is None:
            self._returns = {}
            for stmt in self.module_defs:
                if isinstance(stmt, ast.ClassDef):
                    classes = [(f"{self.module}.{stmt.name}", stmt)]
                    # Classes nested in it (``class _LogManager: class _LogPaths: ...``), by their qualname.
                    classes += [(f"{classes[0][0]}.{c.name}", c) for c in nested_classes(stmt)]
                    for owner, cls in classes:
                        for method in definitions(cls.body):
                            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                                typed = self._returned(method, owner)
                                if typed is not None:
                                    self._returns[f"{owner}.{method.name}"] = typed
                else:
                    typed = self._returned(stmt, None) if not isinstance(stmt, ast.ClassDef) else None
                    if typed is not None:
                        self._returns[f"{self.module}.{stmt.name}"] = typed
        return self._returns

    def _returned(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, owner: str | None) -> str | None:
        annotation = annotation_type(fn.returns)
        if type(annotation) is ast.Name and owner is not None:
            # ``def paths_for(self) -> _LogPaths`` with ``_LogPaths`` a class nested in the method's class (or
            # beside it, in the class the method's class is nested in).
            for enclosing in (owner, owner.rpartition(".")[0]):
                if annotation.id in self._nested_names().get(enclosing, ()):
                    return f"{enclosing}.{annotation.id}"
        if annotation is not None:
            typed, ok = self.dotted(annotation, None)
            if typed in ("typing.Self", "typing_extensions.Self", "Self"):
                return owner
            if ok and typed and not typed.startswith(("typing.", "typing_extensions.")) and typed != fn.name:
                return typed
            return None
        if owner is None:
            return self._built_and_returned(fn)
        if not any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list):
            return None
        for node in walk(fn):
            if (
                isinstance(node, ast.Return)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == (fn.args.args[0].arg if fn.args.args else "cls")
            ):
                return owner
        return None

    def _built_and_returned(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        """A module function without a return annotation that builds a package's object and returns it
        (``def load_model(): model = WhisperModel("small"); return model``, ``None`` on failure): that
        package class, when every value it returns but ``None`` is one."""
        built: dict[str, set[str | None]] = {}
        returned: list[ast.expr] = []
        # Assignments and returns are statements: reading the statements alone finds them all.
        for node in own_statements(fn.body):
            kind = type(node)
            if kind is ast.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target) is ast.Name:
                        built.setdefault(target.id, set()).add(self._package_built(node.value))  # type: ignore[attr-defined]
            elif kind is ast.Return and node.value is not None:  # type: ignore[attr-defined]
                returned.append(node.value)  # type: ignore[attr-defined]
        types: set[str | None] = set()
        for value in returned:
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            if isinstance(value, ast.Name):
                types |= built.get(value.id, {None})
            else:
                types.add(self._package_built(value))
        return next(iter(types)) if len(types) == 1 else None

    def _package_built(self, value: ast.expr) -> str | None:
        """The package class ``value`` constructs (``WhisperModel("small")``), if it is one."""
        if not isinstance(value, ast.Call):
            return None
        callee, ok = self.dotted(value.func, None)
        if not (ok and callee) or callee.startswith(self.module + ".") or not callee.rsplit(".", 1)[-1][:1].isupper():
            return None
        if callee.split(".", 1)[0] in BUILTINS or callee.split(".", 1)[0] in STDLIB_HEADS:
            return None
        return constructed_type(value, callee)

    def _collect_classes(self) -> None:
        """Methods and same-file bases of the module's classes, so ``self.m()`` finds an inherited ``m``."""
        for stmt in self.module_defs:
            if isinstance(stmt, ast.ClassDef):
                methods = frozenset(
                    d.name for d in definitions(stmt.body) if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)
                )
                prefix = self.module + "."
                bases = [b for b in (self.dotted(base, None)[0] for base in stmt.bases) if b]
                local = [b.removeprefix(prefix) for b in bases if b.startswith(prefix)]
                self.classes[stmt.name] = (methods, local)
                self.class_bases[stmt.name] = bases
                self.extended.update(local)

    def tree_bases(self) -> dict[str, list[str]]:
        """The bases of the module's classes that may be the tree's, by the class's qualname (``FileFacts.classBases``):
        those the file names by a dotted path that is no standard-library one."""
        out: dict[str, list[str]] = {}
        for name, bases in sorted(self.class_bases.items()):
            # ``typing.Protocol`` is kept: the linker dispatches a call on a protocol to the classes implementing it.
            kept = [b for b in bases if "." in b and (b.split(".", 1)[0] not in STDLIB_HEADS or b in PROTOCOLS)]
            if kept:
                out[f"{self.module}.{name}"] = kept
        return out

    def _ancestors(self, cls: str) -> set[str]:
        """Every base of ``cls`` by dotted name, through the classes of this file."""
        prefix = self.module + "."
        out: set[str] = set()
        for current in class_lineage(
            cls, lambda c: [b.removeprefix(prefix) for b in self.class_bases.get(c, ()) if b.startswith(prefix)]
        ):
            out.update(self.class_bases.get(current, ()))
        return out

    def _super_package(self, value: ast.expr, attr: str) -> str | None:
        """For ``super().<attr>`` in a method of a class of this file extending one package class, that class
        (None for anything else, and for ``super().__init__`` and the other dunders: the constructor's keywords
        are read where they build a tool, ``_built_base``)."""
        if (
            self._class is None
            or attr.startswith("__")
            or not isinstance(value, ast.Call)
            or not isinstance(value.func, ast.Name)
            or value.func.id != "super"
            or value.args
        ):
            return None
        return self._package_base(self._class)

    def _package_base(self, cls: str) -> str | None:
        """The one package class ``cls`` extends, through the classes of this file (None: none, or several)."""
        found = {
            base
            for base in self._ancestors(cls)
            if "." in base and not base.startswith(self.module_prefix) and base.split(".", 1)[0] not in self.local_defs
        }
        return found.pop() if len(found) == 1 else None

    def _method_owner(self, cls: str, method: str) -> str | None:
        """The class of this file whose ``method`` a ``cls`` instance runs: ``cls`` or a base, depth first."""
        for current in class_lineage(cls, lambda c: self.classes[c][1] if c in self.classes else ()):
            if current in self.classes and method in self.classes[current][0]:
                return current
        return None

    def _nested_names(self) -> dict[str, frozenset[str]]:
        """The names of the classes nested in each top-level class of the file, by the outer class's qualname."""
        if self._nested is None:
            self._nested = {
                f"{self.module}.{stmt.name}": frozenset(c.name for c in nested_classes(stmt))
                for stmt in self.module_defs
                if isinstance(stmt, ast.ClassDef)
            }
        return self._nested

    def _collect_class_attrs(self, cls: ast.ClassDef, key: str | None = None) -> None:
        """What ``self.x`` (or ``obj.x`` for an instance of the class) holds: the class's annotated fields
        (dataclass and pydantic fields, ``x: Client``), then what its methods assign (``self.x = X()``,
        ``self.x = await X.create()``), which says more. ``key``: a nested class's ``Outer.Inner``."""
        key = key or cls.name
        if key in self.class_attr_types:
            return
        attrs: dict[str, str] = {}
        for item in cls.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                annotation = annotation_type(item.annotation)
                if annotation is not None:
                    typed, ok = self.dotted(annotation, None)
                    if ok and typed:
                        attrs[item.target.id] = typed
            elif type(item) is ast.Assign and type(item.value) is ast.Call:
                # ``class Store: s3 = boto3.client("s3")``: a client the class holds, ``self.s3`` in its methods.
                typed, ok = self.dotted(item.value, None)
                if ok and typed:
                    for target in item.targets:
                        if type(target) is ast.Name:
                            attrs[target.id] = typed
        for method in definitions(cls.body):
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                self._method_attrs(method, attrs)
        caches = False
        annotated: list[ast.AnnAssign] = []  # ``self.pool: Dict[str, Runner] = {}``: read by ``_declared_items``
        for node in statements_breadth_first(cls):
            if type(node) is ast.AnnAssign and type(node.annotation) is ast.Subscript:
                annotated.append(node)
            elif isinstance(node, ast.Assign):
                caches = caches or any(_stores_item(target) for target in node.targets)
                value = node.value.value if isinstance(node.value, ast.Await) else node.value
                if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
                    # ``self.client = client or Anthropic(...)``: what is made when nothing was given.
                    value = next((v for v in value.values if isinstance(v, ast.Call)), value)
                if not isinstance(value, ast.Call):
                    continue
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        name, _ = self.dotted(value, None)
                        if name:
                            attrs[target.attr] = name
        for method in definitions(cls.body):
            if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and method.name not in attrs:
                held = self._property_type(method, attrs)
                if held is not None:
                    attrs[method.name] = held
        self.class_attr_types[key] = attrs
        items = self._item_types(cls) if caches else None
        declared = self._declared_items(cls.name, annotated) if annotated else {}
        if items or declared:
            self.class_item_types[key] = {**declared, **(items or {})}

    def _declared_items(self, cls: str, annotated: list[ast.AnnAssign]) -> dict[str, str]:
        """The container fields of the class ``cls`` annotated with the type of their items, among its ``annotated``
        assignments (``pool: Dict[str, Runner]`` in the class body, ``self.tools: list[Tool] = []`` in a method):
        ``self.pool[key]`` is a ``Runner``."""
        found: dict[str, str] = {}
        for node in annotated:
            assert isinstance(node.annotation, ast.Subscript)
            target = node.target
            if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                field = target.attr
            elif type(target) is ast.Name:
                field = target.id
            else:
                continue
            typed = self.held_type(node.annotation)
            if typed is not None:
                found[field] = typed[0]
                if typed[1]:
                    self.class_sequences.setdefault(cls, set()).add(field)
        return found

    def held_type(self, annotation: ast.Subscript) -> tuple[str, bool] | None:
        """What a container annotation holds, and whether iterating it gives that (a sequence, ``list[Runner]``) or
        only its ``values()`` do (a mapping, ``Dict[str, Runner]``); None for any other annotation."""
        outer = annotation.value
        container, ok = (
            (outer.id, True)
            if type(outer) is ast.Name and outer.id in _BUILTIN_CONTAINERS
            else self.dotted(outer, None)
        )
        if not ok or container is None:
            return None
        held = annotation.slice
        if container in _MAPPINGS and type(held) is ast.Tuple and len(held.elts) == 2:
            item, sequence = held.elts[1], False
        elif container in _SEQUENCES and type(held) is not ast.Tuple:
            item, sequence = held, True
        else:
            return None
        named = annotation_type(item)
        typed, known = self.dotted(named, None) if named is not None else (None, False)
        return (typed, sequence) if known and typed and "." in typed else None

    def _item_types(self, cls: ast.ClassDef) -> dict[str, str]:
        """The dict fields of ``cls`` its methods fill with one type of object: ``self._clients[key] = X(...)``
        (or ``cls._clients[key] = ...``, or a local built first: ``session = boto3.Session(); self._clients[key] =
        session.client("s3")``), a client cache. A field written with different types, or with something not
        built (a parameter, a string), holds nothing known."""
        found: dict[str, set[str | None]] = {}
        for method in definitions(cls.body):
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            statements = list(statements_breadth_first(method))
            writes = [
                (target, node.value)
                for node in statements
                if type(node) is ast.Assign
                for target in node.targets
                if _stores_item(target)
            ]
            if not writes:
                continue
            local: dict[str, set[str | None]] = {}
            for node in statements:
                if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                    local.setdefault(node.targets[0].id, set()).add(self._object_built(node.value, {}))
            known = {name: next(iter(kinds)) for name, kinds in local.items() if len(kinds) == 1}
            for target, value in writes:
                field = target.value.attr  # type: ignore[attr-defined]
                found.setdefault(field, set()).add(self._object_built(value, known))
        return {field: kinds.pop() for field, kinds in found.items() if len(kinds) == 1 and None not in kinds}  # type: ignore[misc]

    def _object_built(self, value: ast.expr, local: dict[str, str | None]) -> str | None:
        """The object ``value`` builds, when it is one (``made``): a class's instance, a factory's, a boto3 client,
        directly or through a local the method built first (``local``); else None."""
        if type(value) is ast.Await:
            value = value.value
        if type(value) is ast.Name:
            return local.get(value.id)
        if type(value) is not ast.Call:
            return None
        func = value.func
        if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id in local:
            owner = local[func.value.id]
            callee, ok = (f"{owner}.{func.attr}", True) if owner is not None else (None, False)
        else:
            callee, ok = self.dotted(func, None)
        typed = constructed_type(value, callee) if ok else None
        return typed if typed is not None and made(typed) else None

    def _property_type(self, method: ast.FunctionDef | ast.AsyncFunctionDef, attrs: dict[str, str]) -> str | None:
        """What a property gives (``@property def client(self): ... return self._client``, ``self._client`` built
        elsewhere in the class, or ``return Client(...)``), when every value it returns is the same known type;
        ``return None`` aside. None for a method that is no property."""
        if not any(name_text(d) in _PROPERTIES for d in method.decorator_list):
            return None
        found: set[str | None] = set()
        for node in statements_breadth_first(method):
            if type(node) is not ast.Return or node.value is None:
                continue
            value = node.value
            if type(value) is ast.Constant and value.value is None:
                continue
            if type(value) is ast.Attribute and type(value.value) is ast.Name and value.value.id == "self":
                found.add(attrs.get(value.attr))
            elif type(value) is ast.Call:
                typed, ok = self.dotted(value, None)
                found.add(typed if ok else None)
            else:
                found.add(None)
        return found.pop() if len(found) == 1 and None not in found else None

    def _method_attrs(self, method: ast.FunctionDef | ast.AsyncFunctionDef, attrs: dict[str, str]) -> None:
        """Attributes a method types without constructing them: ``self.x: Session | None = None`` and
        ``self.x = session`` for a parameter ``session: Session`` of the method."""
        params: dict[str, str] = {}
        for arg in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs):
            annotation = annotation_type(arg.annotation)
            if annotation is not None:
                typed, ok = self.dotted(annotation, None)
                if ok and typed:
                    params[arg.arg] = typed
        for node in statements_breadth_first(method):
            if isinstance(node, ast.AnnAssign):
                target: ast.expr = node.target
                annotation = annotation_type(node.annotation)
                typed, ok = self.dotted(annotation, None) if annotation is not None else (None, False)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name):
                target = node.targets[0]
                typed, ok = params.get(node.value.id), True
            else:
                continue
            if (
                ok
                and typed
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                attrs.setdefault(target.attr, typed)

    def constant_str(self, node: ast.AST | None) -> str | None:
        """The string an expression always denotes: a literal, a module constant of the file
        (``NAME = "x"``), a member of a class of the file (``Tools.READ = "read"`` in a ``str``
        ``Enum``), with ``.value`` read through."""
        if node is None:
            return None
        text = literal_str(node)
        if text is not None:
            return text
        if isinstance(node, ast.Name):
            return self._module_constants().get(node.id)
        if isinstance(node, ast.Attribute):
            value = node.value
            if node.attr == "value" and isinstance(value, ast.Attribute):
                return self.constant_str(value)
            if isinstance(value, ast.Name):
                return self._class_constants(value.id).get(node.attr)
        return None

    def _module_constants(self) -> dict[str, str]:
        if self._constants is None:
            self._constants = _string_assignments(self.tree.body)
        return self._constants

    def _class_constants(self, name: str) -> dict[str, str]:
        found = self._class_strings.get(name)
        if found is None:
            cls = next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == name), None)
            found = self._class_strings[name] = _string_assignments(cls.body) if cls is not None else {}
        return found


def class_lineage(cls: str, bases_of: Callable[[str], Iterable[str]]) -> Iterator[str]:
    """``cls`` and every class it extends by ``bases_of``, depth first and first base first, each once."""
    seen: set[str] = set()
    stack = [cls]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        stack.extend(reversed(list(bases_of(current))))


def nested_classes(cls: ast.ClassDef) -> list[ast.ClassDef]:
    """The classes defined directly in a class's body."""
    return [d for d in definitions(cls.body) if isinstance(d, ast.ClassDef)]


def _stores_item(target: ast.expr) -> bool:
    """Whether an assignment target is an item of the instance's or class's field: ``self._clients[key]``."""
    return (
        type(target) is ast.Subscript
        and type(target.value) is ast.Attribute
        and type(target.value.value) is ast.Name
        and target.value.value.id in ("self", "cls")
    )


# Class methods that build an instance of their class (``SQLDatabase.from_uri(...)``, ``Sandbox.create()``).
FACTORIES = frozenset({"create", "connect"})


def made(name: str) -> bool:
    """Whether a dotted type names an object something built: a class (``TavilyClient``), a class's factory
    (``SQLDatabase.from_uri``, ``Sandbox.create``) or a boto3 client or resource of a service (``boto3.client:s3``)."""
    if "." not in name:
        return False
    owner, _, last = name.rpartition(".")
    owner = owner.rpartition(".")[2]
    return (
        last[:1].isupper() or ":" in last or (owner[:1].isupper() and (last.startswith("from_") or last in FACTORIES))
    )


# Mapping annotations whose second argument types the values (``Dict[str, Runner]``).
_MAPPINGS = frozenset(
    {
        "dict",
        "typing.Dict",
        "typing.Mapping",
        "typing.MutableMapping",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
    }
)
_BUILTIN_CONTAINERS = frozenset({"list", "set", "dict"})
# Sequence annotations whose argument types the elements (``list[Runner]``).
_SEQUENCES = frozenset(
    {
        "list",
        "set",
        "typing.List",
        "typing.Set",
        "typing.Sequence",
        "typing.Iterable",
        "collections.abc.Sequence",
        "collections.abc.Iterable",
    }
)
# The bases that make a class a structural protocol: whatever defines its methods implements it.
PROTOCOLS = frozenset({"typing.Protocol", "typing_extensions.Protocol"})


def is_user_callee(name: str, resolved: bool, analyzer: AnalyzerBase) -> bool:
    """Calls the linker may resolve to code in the repository (not the standard library or SDKs)."""
    if name in BUILTINS:
        return False
    head = name.split(".", 1)[0]
    if name.startswith(analyzer.module + ".") or head in analyzer.local_defs:
        return True
    if not resolved:
        return "." not in name or name.count(".") <= 3
    return head not in STDLIB_HEADS


def _string_assignments(body: Sequence[ast.stmt]) -> dict[str, str]:
    """``NAME = "text"`` (or annotated) in a block: the string constants it defines."""
    out: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target: ast.expr = stmt.targets[0]
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target = stmt.target
        else:
            continue
        text = literal_str(stmt.value)
        if text is not None and isinstance(target, ast.Name):
            out[target.id] = text
    return out
