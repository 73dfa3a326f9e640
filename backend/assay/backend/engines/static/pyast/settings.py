"""Settings values: the model id a call names through application settings (``model=settings.MODEL``,
``Agent(model=configs.agent_settings.model)``, ``messages.create(**params)`` with ``params`` a method's
``{"model": self.config.model, ...}``).

A class's fields with a literal default (``model: str = "claude-sonnet-4"``, ``model: str =
Field(default="gemini-2.0-flash-001")``, ``MODEL = "gpt-4o"``: dataclasses, pydantic models and settings,
plain classes) and the classes its fields are typed by (``agent_settings: AgentModel = ...``) are recorded
by qualname (``FileFacts.constants`` and ``FileFacts.bindings``). An attribute chain over a class or an
instance of one (a module-level ``settings = Settings()``, ``self.config`` typed by its class) is read
field by field: here when the classes are this file's, by the linker (``ModelSite.modelRef``) when they are
another module's. A default is what runs unless the environment overrides it, and is reported as the model
id (the corpus labels it so); a value nothing spells out stays unknown (model null).
"""

from __future__ import annotations

import ast

from assay.backend.engines.static.pyast.base import AnalyzerBase
from assay.backend.engines.static.pyast.literals import annotation_type, kwarg
from assay.backend.engines.static.pyast.syntax import walk

# Fields followed from class to class, at most.
HOPS = 8
# The suffix of a function's qualname that names what a call of it (without arguments) returns.
RESULT = "()"


def settings_default(ref: str, defaults: dict[str, str], types: dict[str, str]) -> str | None:
    """``pkg.config.Config.agent_settings.model`` -> the default it ends at, through the classes the fields
    are typed by (``Config.agent_settings: AgentModel``, ``AgentModel.model = "gemini-2.0-flash-001"``)."""
    for _ in range(HOPS):
        found = defaults.get(ref)
        if found is not None:
            return found
        if ref.endswith(RESULT):
            # ``pkg.clients.get_model()``: what the function returns when the code takes its default path.
            returned = types.get(ref)
            if returned is not None:
                ref = returned
                continue
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            head = ".".join(parts[:cut])
            # ``config = get_config()`` is typed by the function: the type its result is, where one is recorded.
            typed = types.get(head)
            typed = types.get(f"{typed}{RESULT}", typed) if typed is not None else types.get(f"{head}{RESULT}")
            if typed is not None:
                ref = ".".join([typed, *parts[cut:]])
                break
        else:
            return None
    return None


class SettingsLogic(AnalyzerBase):
    """Class field defaults and types of this file, and model ids read through them."""

    _fields: tuple[dict[str, str], dict[str, str]] | None = None

    def class_fields(self) -> tuple[dict[str, str], dict[str, str]]:
        """(defaults, types) of the fields of this file's top-level classes, by qualname."""
        if self._fields is None:
            defaults: dict[str, str] = {}
            types: dict[str, str] = {}
            for cls in self.module_defs:
                if isinstance(cls, ast.ClassDef):
                    self._class_fields(cls, defaults, types)
            self._fields = (defaults, types)
        return self._fields

    def _class_fields(self, cls: ast.ClassDef, defaults: dict[str, str], types: dict[str, str]) -> None:
        prefix = f"{self.module}.{cls.name}."
        for item in cls.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                name, value = item.target.id, item.value
                annotation = annotation_type(item.annotation)
                typed, ok = self.dotted(annotation, None) if annotation is not None else (None, False)
                if ok and typed and "." in typed:
                    types[prefix + name] = typed
            elif isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                name, value = item.targets[0].id, item.value
            else:
                continue
            text = _default_text(value)
            if text is not None:
                defaults[prefix + name] = text
        # What its methods assign (``self.client = OpenAIClient(config)`` in ``__init__``): a subclass in another
        # module holds the same (``self.client.complete(...)`` in a tool class extending this base).
        for name, typed in self.class_attr_types.get(cls.name, {}).items():
            if "." in typed:
                types.setdefault(prefix + name, typed)

    def settings_ref(self, node: ast.expr | None, scope: object = None) -> str | None:
        """The qualified attribute chain an expression reads (``configs.agent_settings.model`` ->
        ``pkg.config.Config.agent_settings.model``), when its base is a class or a typed instance; for a call
        without arguments of another module's function or of a method of a typed instance (``get_model()``,
        ``settings.get_model()``), that qualname with ``()``: what it returns (``function_results``)."""
        if isinstance(node, ast.Call) and not node.args and not node.keywords:
            if not isinstance(node.func, ast.Name | ast.Attribute):
                return None
            name, ok = self.dotted(node.func, scope)  # type: ignore[arg-type]
            if not ok or not name or name.count(".") < 1 or name.startswith(self.module_prefix):
                return None  # this file's functions are read here (``ModelValueLogic``)
            return f"{name}{RESULT}"
        if not isinstance(node, ast.Attribute):
            return None
        name, ok = self.dotted(node, scope)  # type: ignore[arg-type]
        return name if ok and name and name.count(".") >= 2 else None

    def function_results(self) -> tuple[dict[str, str], dict[str, str]]:
        """(literals, chains) that this file's functions without parameters (and methods taking only ``self``)
        return on their default path, by ``<qualname>()``: the function's last statement returns them, and any
        earlier return sits under ``if self.<field>:`` on a field whose default is ``None`` (a legacy override
        the environment may set). A chain is a settings attribute (``config.GEMINI_MODEL``, ``self.model`` ->
        ``pkg.settings.Settings.model``) or the callee of a call without arguments (``return Config()``)."""
        literals: dict[str, str] = {}
        chains: dict[str, str] = {}
        for node in self.module_defs:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function_result(node, f"{self.module}.{node.name}", None, literals, chains)
            elif isinstance(node, ast.ClassDef):
                unset = _unset_fields(node)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        qualname = f"{self.module}.{node.name}.{item.name}"
                        self._function_result(item, qualname, unset, literals, chains)
        return literals, chains

    def _function_result(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        unset: frozenset[str] | None,
        literals: dict[str, str],
        chains: dict[str, str],
    ) -> None:
        args = function.args
        params = [*args.posonlyargs, *args.args]
        method = unset is not None
        if args.vararg or args.kwarg or args.kwonlyargs or len(params) != (1 if method else 0):
            return
        body = function.body
        last = body[-1] if body else None
        if not isinstance(last, ast.Return) or last.value is None:
            return
        for stmt in body[:-1]:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            test = stmt.test if isinstance(stmt, ast.If) and not stmt.orelse else None
            if not (
                unset
                and isinstance(test, ast.Attribute)
                and isinstance(test.value, ast.Name)
                and test.value.id == params[0].arg
                and test.attr in unset
            ):
                return
        value = last.value
        key = f"{qualname}{RESULT}"
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            literals[key] = value.value
        elif method and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            if value.value.id == params[0].arg:
                chains[key] = f"{qualname.rsplit('.', 1)[0]}.{value.attr}"
        elif isinstance(value, ast.Attribute | ast.Call) and not method:
            target = value.func if isinstance(value, ast.Call) else value
            if isinstance(value, ast.Call) and (value.args or value.keywords):
                return
            name, ok = self.dotted(target, None)
            if ok and name and "." in name:
                chains[key] = name

    def settings_value(self, ref: str | None) -> str | None:
        """The default a chain ends at, when the classes it goes through are this file's."""
        if ref is None:
            return None
        defaults, types = self.class_fields()
        return settings_default(ref, defaults, types)

    def unpacked_model(self, call: ast.Call) -> ast.expr | None:
        """``create(**params)`` with ``params = self.prepare()`` (a method of this class returning
        ``{"model": self.config.model, ...}``), ``params = {"model": ...}`` or ``params = dict(model=...)``:
        the ``model`` value."""
        for keyword in call.keywords:
            if keyword.arg is not None or not isinstance(keyword.value, ast.Name):
                continue
            bound = self._bound_value(keyword.value.id, call)
            if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "dict":
                return kwarg(bound, "model")
            if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Attribute):
                bound = self._returned_dict(bound.func)
            if isinstance(bound, ast.Dict):
                for key, value in zip(bound.keys, bound.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "model":
                        return value
        return None

    def _bound_value(self, name: str, at: ast.AST) -> ast.expr | None:
        """The one value ``name`` is assigned in the function around ``at``, before it."""
        function = self._function_around(at)
        if function is None:
            return None
        found = [
            node.value
            for node in walk(function)
            if isinstance(node, ast.Assign)
            and node.lineno <= getattr(at, "lineno", 0)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        ]
        return found[0] if len(found) == 1 else None

    def _returned_dict(self, func: ast.Attribute) -> ast.Dict | None:
        """``self.prepare`` in a class of this file: the dict literal its every return gives."""
        if not (isinstance(func.value, ast.Name) and func.value.id == "self"):
            return None
        for cls in self.module_defs:
            if not isinstance(cls, ast.ClassDef):
                continue
            method = next(
                (m for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name == func.attr),
                None,
            )
            if method is None:
                continue
            returns = [n.value for n in walk(method) if isinstance(n, ast.Return)]
            if len(returns) == 1 and isinstance(returns[0], ast.Dict):
                return returns[0]
        return None

    def _function_around(self, at: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        line = getattr(at, "lineno", 0)
        best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        for node in self.tree_functions:
            if node.lineno <= line <= (node.end_lineno or node.lineno) and (best is None or node.lineno >= best.lineno):
                best = node
        return best


def _unset_fields(cls: ast.ClassDef) -> frozenset[str]:
    """The fields of a class whose default is ``None`` (``openai_model: str | None = None``)."""
    return frozenset(
        item.target.id
        for item in cls.body
        if isinstance(item, ast.AnnAssign)
        and isinstance(item.target, ast.Name)
        and isinstance(item.value, ast.Constant)
        and item.value.value is None
    )


def _default_text(value: ast.expr | None) -> str | None:
    """A field's literal default: ``"x"``, ``Field(default="x")``, ``Field("x")``."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    given = kwarg(value, "default")
    if given is None and called in ("Field", "field") and value.args:
        given = value.args[0]  # ``Field("gpt-4o")``
    elif given is None and called in ("getenv", "get") and len(value.args) > 1:
        given = value.args[1]  # ``os.getenv("MODEL", "gpt-4o")``: the default the code spells out
    elif called not in ("Field", "field", "getenv", "get"):
        return None
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return given.value
    return None
