"""Model ids a call names through values the code spells out: the model id is what runs unless the
environment or a caller says otherwise, as for settings defaults (``settings.py``).

``client.chat.completions.create(model=model)`` and ``OpenAIModel(llm, ...)`` name their model through a
value: a local bound once (``llm = os.getenv("MODEL_CHOICE", "gpt-4o-mini")``), a module constant bound once
(``MODEL = os.environ.get("MODEL") or "gpt-4o"``), a parameter's default (``def run(model: str =
"gpt-4o-mini")``, ``def __init__(self, model: str = _DEFAULT_MODEL)`` kept in ``self._model``), a string
formatted or joined from such values (``f"ollama/{model_name}"``, ``"openai/" + os.getenv("MODEL", "gpt-oss")``), or a function of the file called without arguments
whose every return spells the same id (``def get_model(): return "gpt-4.1"``). Each is read back to the
literal it ends at, or to nothing: a value bound twice, a parameter without a default, an argument a caller
passes. A parameter of a module-level function the file calls is left to its callers
(``SiteLogic._resolve_param_models``), who may pass another model.
"""

from __future__ import annotations

import ast
from functools import cached_property

from assay.backend.engines.static.pyast.literals import kwarg
from assay.backend.engines.static.pyast.settings import SettingsLogic
from assay.backend.engines.static.pyast.syntax import walk
from assay.backend.engines.static.rules.pack import Rule

# Environment reads whose second argument (or ``default=``) is the value used when the variable is unset.
ENV_READS = frozenset({"os.getenv", "os.environ.get", "getenv", "environ.get"})
# How many values are followed from the call to the literal, at most.
DEPTH = 4

Function = ast.FunctionDef | ast.AsyncFunctionDef


class ModelValueLogic(SettingsLogic):
    """The literal a model argument ends at through locals, constants, defaults, returns and formats."""

    def model_value(self, value: ast.expr | None, at: ast.AST) -> str | None:
        """The model id ``value`` (an argument of the call ``at``) always denotes, or None."""
        if value is None:
            return None
        return self.spelled(value, self._function_around(at), 0)

    def served_by(self, node: ast.Call, provider: str | None) -> str | None:
        """The provider of the host an OpenAI-compatible client is pointed at
        (``OpenAI(base_url="https://api.groq.com/openai/v1")``, ``ChatOpenAI(base_url=os.getenv("BASE_URL",
        "https://openrouter.ai/api/v1"))``): a client of ``provider``'s protocol talks to whoever serves that
        host; so does a client whose name says no vendor (pandasai's ``LocalLLM(api_base=...)``). None when
        ``provider``'s protocol is no other host's (a LiteLLM client routes by its model id, its ``api_base``
        the backend of that route), no keyword names a host the pack knows, or the code does not spell it out."""
        keys = self.rules.base_url_kwargs
        if not keys or not node.keywords or not self.spells_base_url:
            return None
        if provider is not None and provider != "unknown" and provider not in self.rules.base_url_providers:
            return None
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg in keys:
                found = self._host_provider(value, node)
                if found is not None:
                    return found
            else:
                if isinstance(value, ast.Name):
                    # ``provider = OpenAIProvider(base_url=...)`` then ``OpenAIChatModel(m, provider=provider)``.
                    value = self.bound_once(value.id, node)  # type: ignore[assignment]
                if not isinstance(value, ast.Call) or not value.keywords:
                    continue
                # ``OpenAIChatModel("qwen3:1.7b", provider=OllamaProvider(base_url="http://localhost:11434/v1"))``:
                # the connection object handed to the client says which host serves it.
                for inner in value.keywords:
                    if inner.arg in keys:
                        found = self._host_provider(inner.value, node)
                        if found is not None:
                            return found
        return None

    def served_by_receiver(self, node: ast.Call, provider: str | None) -> str | None:
        """The provider of the host the client a method call is made on was pointed at when it was built
        (``client = OpenAI(base_url="http://localhost:11434/v1")`` ... ``client.chat.completions.create(...)``):
        the client bound once to a constructor call, as a local, a module name or ``self.<attr>``; None
        when ``provider``'s protocol is no other host's or the constructor names no host the pack knows."""
        if provider not in self.rules.base_url_providers or not self.spells_base_url:
            return None
        receiver = node.func
        while isinstance(receiver, ast.Attribute) and not _is_self_attr(receiver):
            receiver = receiver.value
        built: ast.expr | None = None
        if isinstance(receiver, ast.Name):
            built = self.bound_once(receiver.id, node)
        elif isinstance(receiver, ast.Attribute):
            built = self._self_assigned_once(receiver.attr, node)
        if isinstance(built, ast.Await):
            built = built.value
        return self.served_by(built, provider) if isinstance(built, ast.Call) else None

    def bound_once(self, name: str, at: ast.AST) -> ast.expr | None:
        """The one value ``name`` is bound to where ``at`` reads it: in the function around ``at``, else at
        module level (not a parameter of that function); None when bound twice or not at all."""
        owner = self._function_around(at)
        bound = self._bindings(owner, name) if owner is not None else []
        if not bound and not (owner is not None and _is_param(owner, name)):
            bound = self._module_bindings.get(name, [])
        return bound[0] if len(bound) == 1 else None

    @cached_property
    def spells_base_url(self) -> bool:
        """Whether any call of the file passes a base-URL keyword (``base_url=``, ``api_base=``...): the host
        a client is pointed at is only ever read from such a keyword of a call of this file."""
        keys = self.rules.base_url_kwargs
        text = self.ascii_text
        if not keys or (text is not None and not any(key in text for key in keys)):
            return False
        return any(kw.arg in keys for node in self.tree_calls for kw in node.keywords)

    @cached_property
    def _binding_index(self) -> dict[int, tuple[dict[str, list[ast.expr]], dict[str, int]]]:
        """Each function's bindings (``_index_bindings``), by the function's id, filled on first use."""
        return {}

    @cached_property
    def _module_bindings(self) -> dict[str, list[ast.expr]]:
        """The values each name is bound to by the module's own statements (``NAME = v``), in order."""
        found: dict[str, list[ast.expr]] = {}
        for stmt in self.tree.body:
            named = _plain_binding(stmt)
            if named is not None:
                found.setdefault(named[0], []).append(named[1])
        return found

    def _bindings(self, function: Function, name: str) -> list[ast.expr]:
        """Every value ``name`` is bound to in ``function``; a binding that is no plain assignment (a loop
        target, an augmented assignment, ``with ... as``) is a value of its own, unknown (``None``). The
        function's bindings are indexed once, on first use."""
        index = self._binding_index.get(id(function))
        if index is None:
            index = self._binding_index[id(function)] = _index_bindings(function)
        plain, other = index
        found = plain.get(name, [])
        unknown = other.get(name, 0)
        return [*found, *(ast.Constant(None) for _ in range(unknown))] if unknown else found

    def http_host_of(self, node: ast.Call) -> tuple[Rule, str] | None:
        """The provider of the model host a network call's URL names when the URL is a value the code spells
        out elsewhere (``requests.post(f"{OLLAMA_URL}/api/chat", ...)`` with ``OLLAMA_URL = os.getenv(
        "OLLAMA_URL", "http://localhost:11434")``, ``requests.post(url, ...)`` with ``url`` a constant)."""
        url = node.args[0] if node.args else kwarg(node, "url")
        if url is None or isinstance(url, ast.Constant):
            return None
        return self._host_rule(url, node)

    def http_model_id(self, node: ast.Call) -> str | None:
        """The model a raw HTTP call to a model host names in its JSON body (``json={"model": MODEL, ...}``,
        ``json=payload`` with ``payload`` a dict literal bound once)."""
        body = kwarg(node, "json")
        if isinstance(body, ast.Name):
            body = self.bound_once(body.id, node)
        if not isinstance(body, ast.Dict):
            return None
        for key, value in zip(body.keys, body.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "model":
                return self.model_value(value, node)
        return None

    def _host_provider(self, value: ast.expr, at: ast.Call) -> str | None:
        """The provider of the host a base-URL value names (a literal, an environment read's default...)."""
        found = self._host_rule(value, at)
        return found[1] if found is not None else None

    def _host_rule(self, value: ast.expr, at: ast.Call) -> tuple[Rule, str] | None:
        url = self.model_value(value, at)
        if url is not None:
            for rule, hosts in self.rules.http_hosts:
                found = next((p for host, p in hosts.items() if host in url), None)
                if found is not None:
                    return rule, found
        return None

    def _self_assigned_once(self, attr: str, at: ast.AST) -> ast.expr | None:
        """The one value ``self.<attr>`` is assigned in the methods of the class around ``at``."""
        found = self._self_assignments(attr, self._function_around(at))
        return found[0][1] if len(found) == 1 else None

    def _self_assignments(self, attr: str, owner: Function | None) -> list[tuple[Function, ast.expr]]:
        """Each value ``self.<attr>`` is assigned, with its method, in the class whose body holds ``owner``."""
        cls = next(
            (c for c in walk(self.tree) if isinstance(c, ast.ClassDef) and any(item is owner for item in c.body)),
            None,
        )
        if cls is None:
            return []
        return [
            (method, assigned)
            for method in cls.body
            if isinstance(method, Function)
            for node in walk(method)
            if (assigned := _self_assigned(node, attr)) is not None
        ]

    def spelled(self, value: ast.expr, owner: Function | None, depth: int) -> str | None:
        """The string ``value`` denotes in ``owner`` (a function, or None for the module)."""
        text = self.constant_str(value)
        if text is not None or depth > DEPTH:
            return text
        if isinstance(value, ast.Name):
            return self._name_value(value.id, owner, depth)
        if isinstance(value, ast.Call):
            return self._call_value(value, owner, depth)
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            # ``os.environ.get("MODEL") or "gpt-4o"``: the value used when the first is empty.
            return self.spelled(value.values[-1], owner, depth + 1)
        if isinstance(value, ast.JoinedStr):
            return self._formatted(value, owner, depth)
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            # ``"openai/" + os.getenv("MODEL", "gpt-oss:latest")``: both sides spelled out, joined.
            left = self.spelled(value.left, owner, depth + 1)
            if left is None:
                return None
            right = self.spelled(value.right, owner, depth + 1)
            return left + right if right is not None else None
        if isinstance(value, ast.Attribute):
            return self._self_value(value, owner, depth)
        return None

    def _name_value(self, name: str, owner: Function | None, depth: int) -> str | None:
        if owner is not None:
            default = param_default(owner, name)
            if default is not None or _is_param(owner, name):
                if default is None or self._bindings(owner, name) or self._called_here(owner):
                    return None  # no default, reassigned, or the file's calls say which model
                return self.spelled(default, None, depth + 1)
            bound = self._bindings(owner, name)
            if bound:
                return self.spelled(bound[0], owner, depth + 1) if len(bound) == 1 else None
        bound = self._module_bindings.get(name, [])
        return self.spelled(bound[0], None, depth + 1) if len(bound) == 1 else None

    def _call_value(self, call: ast.Call, owner: Function | None, depth: int) -> str | None:
        callee = self.dotted(call.func, None)[0]
        if callee in ENV_READS:
            given = call.args[1] if len(call.args) > 1 else kwarg(call, "default")
            return self.spelled(given, owner, depth + 1) if given is not None else None
        func = call.func
        if not isinstance(func, ast.Name) or call.args or call.keywords:
            return None
        function = next((d for d in self.module_defs if isinstance(d, Function) and d.name == func.id), None)
        if function is None:
            return None
        returns = {
            self.spelled(node.value, function, depth + 1) if node.value is not None else None
            for node in walk(function)
            if isinstance(node, ast.Return)
        }
        return returns.pop() if len(returns) == 1 else None

    def _formatted(self, value: ast.JoinedStr, owner: Function | None, depth: int) -> str | None:
        parts: list[str] = []
        for part in value.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    return None
                text = self.spelled(part.value, owner, depth + 1)
            else:
                text = self.constant_str(part)
            if text is None:
                return None
            parts.append(text)
        return "".join(parts)

    def _self_value(self, value: ast.Attribute, owner: Function | None, depth: int) -> str | None:
        """``self._model`` assigned once in the methods of the class around ``owner``."""
        if owner is None or not (isinstance(value.value, ast.Name) and value.value.id == "self"):
            return None
        found = self._self_assignments(value.attr, owner)
        if len(found) != 1:
            return None
        method, assigned = found[0]
        return self.spelled(assigned, method, depth + 1)

    def _called_here(self, function: Function) -> bool:
        """A module-level function the file calls: its callers name the model (``_resolve_param_models``)."""
        if not any(d is function for d in self.module_defs):
            return False
        name = function.name
        return any(isinstance(node.func, ast.Name) and node.func.id == name for node in self.tree_calls)


def _is_self_attr(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id == "self"


def _plain_binding(stmt: ast.AST) -> tuple[str, ast.expr] | None:
    """The name and value ``stmt`` binds plainly: ``name = v`` or ``name: T = v``."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            return targets[0].id, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None


def _index_bindings(function: Function) -> tuple[dict[str, list[ast.expr]], dict[str, int]]:
    """The plain bindings of each name in ``function`` (nested definitions included), in ``ast.walk``
    order, and how many other bindings (loop targets, tuple unpacking, ``with ... as``...) each name has."""
    plain: dict[str, list[ast.expr]] = {}
    targets: set[int] = set()
    stores: list[ast.Name] = []
    for node in walk(function):
        if type(node) is ast.Name:
            if isinstance(node.ctx, ast.Store):
                stores.append(node)
            continue
        named = _plain_binding(node)
        if named is not None:
            plain.setdefault(named[0], []).append(named[1])
            targets.add(id(node.targets[0] if isinstance(node, ast.Assign) else node.target))  # type: ignore[attr-defined]
    other: dict[str, int] = {}
    for store in stores:
        if id(store) not in targets:
            other[store.id] = other.get(store.id, 0) + 1
    return plain, other


def _is_param(function: Function, name: str) -> bool:
    args = function.args
    return any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a)


def param_default(function: Function, name: str) -> ast.expr | None:
    """The default of ``function``'s parameter ``name``, as written (None: no such parameter, or no default)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True):
        if arg.arg == name:
            return default
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == name:
            return kw_default
    return None


def _self_assigned(node: ast.AST, attr: str) -> ast.expr | None:
    """The value ``node`` assigns to ``self.<attr>``, if it is such an assignment."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target: ast.expr = node.targets[0]
        value: ast.expr | None = node.value
    elif isinstance(node, ast.AnnAssign):
        target, value = node.target, node.value
    else:
        return None
    if (
        isinstance(target, ast.Attribute)
        and target.attr == attr
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return value
    return None
