"""Call sites that are facts: model uses, actions (sinks), run-time tools, dynamic dispatch, unresolved calls."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Literal

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    FrontierSite,
    ModelSite,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.fixed_text import bound_values, is_fixed, leading_text
from assay.backend.engines.static.pyast.gates import GateLogic
from assay.backend.engines.static.pyast.literals import (
    declines,
    kwarg,
    literal_str,
    name_text,
    opens_for_writing,
    string_text,
)
from assay.backend.engines.static.pyast.model_values import ModelValueLogic, param_default
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.names import PY_BUILTINS
from assay.backend.engines.static.pyast.rules import CallProfile, display_name
from assay.backend.engines.static.pyast.scope import (
    MODULE_PARAMS,
    NO_TAINT,
    Scope,
    local_constant,
    model_output,
    origin_key,
)
from assay.backend.engines.static.pyast.syntax import child_nodes, walk
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import FrontierKind, Location

_SQL_WRITE = re.compile(r"^\s*(insert|update|delete|drop|alter|create|replace|truncate|merge|upsert)\b", re.I)
_SQL_READ = re.compile(r"^\s*(select|with|show|describe|explain|pragma)\b", re.I)
_SQL_GRANT = re.compile(r"^\s*(grant|revoke)\b", re.I)
# Cypher clauses that change the graph, wherever they stand (``MATCH (n) SET n.x = 1``).
_CYPHER_WRITE = re.compile(r"\b(create|merge|set|delete|remove|drop|load\s+csv)\b", re.I)


class SiteLogic(GateLogic, ModelValueLogic):
    """What a call is when the rules name it: a model call, an action, a run-time tool source."""

    def _model_call(
        self, node: ast.Call, name: str, profile: CallProfile, scope: Scope | None = None
    ) -> frozenset[TaintOrigin] | None:
        """A model API call (an SDK's or an HTTP call to a model host): recorded, and the origin of its
        value; ``None`` for other calls."""
        model_rule = profile.model
        if model_rule is None:
            http = self._http_model(node) if profile.http_egress else None
            if http is None:
                return None
            model_rule, provider = http
            location = self.loc(node)
            self._model(model_rule, provider, name, "http", location, self.http_model_id(node))
            return model_output(location)
        match = model_rule.match
        if match.get("provider_from_package") and name.startswith(self.module_prefix):
            return None  # an API's shape on an object of this file's own classes (a fake, a wrapper) is no model
        if "config_kwarg" in match:
            return self._configured_agent(node, name, model_rule)
        model: str | None = next(
            (found for key in match.get("model_kwargs", ()) if (found := self.constant_str(kwarg(node, key)))), None
        )
        if model is None and name in match.get("model_strings", ()) and node.args:
            model = self.constant_str(node.args[0])
        vendor_kwarg = match.get("provider_kwarg")
        vendor = self.constant_str(kwarg(node, vendor_kwarg)) if vendor_kwarg is not None else None
        ref: str | None = None
        if model is None:
            # ``model=settings.MODEL``, ``create(**params)`` with ``params["model"]`` a settings field.
            given = next((kwarg(node, key) for key in match.get("model_kwargs", ()) if kwarg(node, key)), None)
            given = given if given is not None else self.unpacked_model(node)
            if given is None and name in match.get("model_strings", ()) and node.args:
                given = node.args[0]
            model = self.constant_str(given) if given is not None else None
            ref = self.settings_ref(given, scope) if model is None else None
            model = model or self.settings_value(ref)
            # ``model=model`` with ``model = os.getenv("MODEL", "gpt-4o")``, a default, a ``self._model``.
            model = model or self.model_value(given, node)
            ref = ref if model is None else None
        provider, model = self._model_named(model_rule, name, model, vendor)
        if model is None and ref is None and name in match.get("model_strings", ()) and node.args:
            # ``Agent(f"google-gla:{settings.model}")``, also through a local bound to such text on one branch
            # (``model = f"google-gla:{name}"`` there, a model object on the other): the vendor is written, and
            # the model id is what fills the text in when that is all the rest (a setting, a default).
            written = self._formatted_vendor(node.args[0], node)
            if written is not None:
                provider = self.rules.vendors[written[0]]
                filled = written[1]
                if isinstance(filled, ast.Name):
                    # The name's one binding before the text (``model_name = settings.gemini_model`` on its branch).
                    filled = self._bound_value(filled.id, written[2]) or filled
                if filled is not None:
                    ref = self.settings_ref(filled, scope)
                    model = self.settings_value(ref) or self.model_value(filled, node)
                    ref = ref if model is None else None
        provider = self.served_by(node, provider) or provider  # ``OpenAI(base_url="https://api.groq.com/openai/v1")``
        if not match.get("constructors"):
            provider = self.served_by_receiver(node, provider) or provider  # a call on such a client
        if model is None and scope is not None:
            # ``LLM(model=model)`` in ``def build(model: str)``: the callers of the file may name it.
            given = next((kwarg(node, key) for key in match.get("model_kwargs", ()) if kwarg(node, key)), None)
            if isinstance(given, ast.Name) and given.id in scope.params and scope.params is not MODULE_PARAMS:
                self._param_models.append(
                    (self.loc(node), model_rule, name, scope.qualname, given.id, scope.params.index(given.id))
                )
        location = self.loc(node)
        self._model(model_rule, provider, name, "sdk", location, model, ref)
        if scope is not None and scope.params is not MODULE_PARAMS and (model is None or vendor_kwarg is not None):
            self._factory_params(node, match, name, vendor is None, scope)
        if match.get("constructors"):
            return NO_TAINT  # the client or agent is not model output; what its calls return is
        return model_output(location)

    def _configured_agent(self, node: ast.Call, name: str, rule: Rule) -> frozenset[TaintOrigin] | None:
        """``AssistantAgent(name, llm_config={...})`` (AutoGen 0.2 / AG2): a model use when the agent is given a
        config, of the model it names (``model``, else the first ``config_list`` entry's) and the vendor its
        ``api_type`` says; ``llm_config=False`` or none at all calls no model."""
        match = rule.match
        config = kwarg(node, match["config_kwarg"])
        if isinstance(config, ast.Name):
            bound = self._config_value(config.id, node)
            config = bound if bound is not None else config
        if config is None or (isinstance(config, ast.Constant) and config.value in (False, None)):
            return None
        entry = config if isinstance(config, ast.Dict) else None
        listed = _dict_value(entry, "config_list") if entry is not None else None
        if entry is not None and _dict_value(entry, "model") is None and isinstance(listed, ast.List | ast.Tuple):
            first = listed.elts[0] if listed.elts else None
            entry = first if isinstance(first, ast.Dict) else None
        model = self.constant_str(_dict_value(entry, "model")) if entry is not None else None
        api = self.constant_str(_dict_value(entry, "api_type")) if entry is not None else None
        provider = match.get("api_types", {}).get(api or "", rule.provider or "openai")
        self._model(rule, provider, name, "sdk", self.loc(node), model)
        return NO_TAINT

    def _formatted_vendor(self, value: ast.expr, at: ast.Call) -> tuple[str, ast.expr | None, ast.expr] | None:
        """The vendor an f-string model id begins with (``f"google-gla:{name}"``), given in place or bound to the local
        ``value`` names in the function around ``at``, before it (the one such binding), the expression that fills
        in the rest when the text is nothing more, and the text."""
        if isinstance(value, ast.Name):
            function = self._function_around(at)
            if function is None:
                return None
            line = at.lineno
            bound = [
                node.value
                for node in walk(function)
                if type(node) is ast.Assign
                and node.lineno <= line
                and any(type(t) is ast.Name and t.id == value.id for t in node.targets)
            ]
        else:
            bound = [value]
        written = [(v, text) for text in bound if (v := self._vendor_head(text)) is not None]
        if len(written) != 1:
            return None
        vendor, text = written[0]
        rest = text.values[1:]  # type: ignore[attr-defined]
        head = text.values[0].value  # type: ignore[attr-defined]
        whole = (
            len(rest) == 1
            and head.endswith(":")
            and type(rest[0]) is ast.FormattedValue
            and rest[0].format_spec is None
        )
        return vendor, rest[0].value if whole else None, text

    def _vendor_head(self, value: ast.expr) -> str | None:
        """``f"google-gla:{...}"``: the known vendor an f-string's literal head writes before a colon."""
        if type(value) is not ast.JoinedStr or not value.values:
            return None
        head = value.values[0]
        if type(head) is not ast.Constant or not isinstance(head.value, str) or ":" not in head.value:
            return None
        prefix = head.value.split(":", 1)[0]
        return prefix if prefix in self.rules.vendors else None

    def _config_value(self, name: str, at: ast.Call) -> ast.expr | None:
        """The one value ``name`` is bound to, in the function around ``at`` or else at the module's top level."""
        if self._function_around(at) is not None:
            return self._bound_value(name, at)
        values = [
            stmt.value
            for stmt in self.tree.body
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        ]
        return values[0] if len(values) == 1 else None

    def _model_named(self, rule: Rule, name: str, model: str | None, vendor: str | None) -> tuple[str, str | None]:
        """The provider and model id a model call names: ``Agent("openai:gpt-4o")`` and
        ``init_chat_model(m, model_provider="google_genai")`` name the vendor; crewAI's
        ``LLM(model="openai/gpt-4o")`` names it before a slash."""
        match = rule.match
        provider = match.get("providers", {}).get(name, rule.provider or "unknown")
        if match.get("provider_from_package"):
            provider = self._client_package(name) or provider
        if model is not None and ":" in model and name in match.get("model_strings", ()):
            prefix, rest = model.split(":", 1)
            # ``"ollama/gemma2:27b"``: a colon after a slash is the model's tag, not a vendor's separator.
            if "/" not in prefix and (prefix in self.rules.vendors or provider != "ollama"):
                # ``"ollama:qwen3:4b"`` names the vendor; an Ollama model's own id carries a tag after a
                # colon (``ChatOllama(model="qwen3:4b")``), which is no vendor.
                provider, model = self.rules.vendors.get(prefix, provider), rest
        elif model is not None and "/" in model and name in match.get("slash_models", ()):
            prefix, rest = model.split("/", 1)
            if prefix in self.rules.vendors:
                provider, model = self.rules.vendors[prefix], rest
        if "provider_kwarg" in match:
            if vendor is None and model is not None and model.split(":", 1)[0] in self.rules.vendors:
                vendor, model = model.split(":", 1)
            provider = self.rules.vendors.get(vendor or "", provider)
        return provider, model

    def _factory_params(
        self, node: ast.Call, match: dict[str, object], name: str, no_vendor: bool, scope: Scope
    ) -> None:
        """``def get_llm(model, provider): return init_chat_model(model, model_provider=provider)``: the model id or
        vendor a module-level function's parameters give the call, kept on its model site (``factoryParams``) for the
        linker to read at the function's calls in other modules."""
        if scope.qualname.count(".") != self.module.count(".") + 1:
            return  # methods and nested functions: their callers are not looked for
        given: dict[str, str] = {}
        keys: tuple[str, ...] = match.get("model_kwargs", ())  # type: ignore[assignment]
        value = next((kwarg(node, key) for key in keys if kwarg(node, key) is not None), None)
        if value is None and name in match.get("model_strings", ()) and node.args:  # type: ignore[operator]
            value = node.args[0]
        if isinstance(value, ast.Name) and value.id in scope.params:
            given["model"] = value.id
        vendor_kwarg = match.get("provider_kwarg")
        vendor = kwarg(node, vendor_kwarg) if isinstance(vendor_kwarg, str) and no_vendor else None
        if isinstance(vendor, ast.Name) and vendor.id in scope.params:
            given["provider"] = vendor.id
        if given:
            given["function"] = scope.qualname
            self.models[-1] = self.models[-1].model_copy(update={"factoryParams": given})

    def _client_package(self, name: str) -> str | None:
        """The package a model call's client comes from (``groq`` for ``groq.Groq.chat.completions.create``,
        ``client = Groq()``), as a provider word; None when the name does not start with a package the
        file imports (a client handed in as a parameter, an object of the tree's own modules)."""
        head = name.split(".", 1)[0]
        own = self.module.split(".", 1)[0]
        if head == own or not any(v.split(".", 1)[0] == head for v in self.aliases.values()):
            return None
        return head.removesuffix("_sdk").replace("_", "-")

    def _resolve_param_models(self) -> None:
        """Model ids passed as a parameter (``def build(model): LLM(model=model)``) that every call of the
        function in this file gives the same value: a literal, a module constant, an environment read's
        default (``os.getenv("MODEL", DEFAULT_MODEL)``), or a local bound once to one of those."""
        for location, rule, name, qualname, param, index in self._param_models:
            function = qualname.rsplit(".", 1)[-1]
            if qualname != f"{self.module}.{function}":
                continue  # methods and nested functions: their callers are not looked for
            defined = next(
                (
                    d
                    for d in self.module_defs
                    if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == function
                ),
                None,
            )
            default = param_default(defined, param) if defined is not None else None
            values = {
                self._argument_value(call, index, param, caller, default) for call, caller in self._calls_of(function)
            }
            if len(values) != 1 or None in values:
                continue
            provider, model = self._model_named(rule, name, values.pop(), None)
            site_id = short_id("mdl", self.path, location.line, location.column, rule.id)
            self.models = [
                m.model_copy(update={"provider": provider, "model": model}) if m.id == site_id else m
                for m in self.models
            ]

    def _calls_of(self, function: str) -> list[tuple[ast.Call, ast.AST]]:
        """Calls of a module-level function by its name, each with the function (or module) it is in."""
        found: list[tuple[ast.Call, ast.AST]] = []
        owners: list[ast.AST] = [self.tree]
        owners.extend(d for d in walk(self.tree) if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef))
        for owner in owners:
            stack = list(child_nodes(owner))
            while stack:
                node = stack.pop()
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                    continue
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function:
                    found.append((node, owner))
                stack.extend(child_nodes(node))
        return found

    def _argument_value(
        self, call: ast.Call, index: int, param: str, owner: ast.AST, default: ast.expr | None
    ) -> str | None:
        """The model a call passes for ``param`` (its default when the call passes none), as spelled in the caller."""
        value: ast.expr | None = kwarg(call, param)
        starred = any(isinstance(a, ast.Starred) for a in call.args)
        if value is None and index < len(call.args) and not starred:
            value = call.args[index]
        if value is None:
            if default is None or starred or any(k.arg is None for k in call.keywords):
                return None  # no default, or ``*args`` / ``**kwargs`` that may pass one
            return self.spelled(default, None, 1)
        caller = owner if isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef) else None
        return self.spelled(value, caller, 1)

    def _frontier_tools(self, node: ast.Call, name: str, rules: Sequence[Rule]) -> None:
        for rule in rules:
            runtime = self.rules.frontier_runtime[rule.id]
            kind: FrontierKind = "runtime_registered_tools" if name in runtime else "config_registered_tools"
            self._tools_frontier(
                node, kind, f"tools obtained at run time through {name}; their reach is not visible to analysis", rule
            )

    def _served_functions(self, node: ast.Call, name: str) -> None:
        """``demo.launch(mcp_server=True)`` (Gradio): the app's functions are served to a model as MCP tools, which
        analysis does not enumerate: a frontier item naming the call, never a silent zero (``False`` serves none)."""
        for rule, keys in self.rules.serving_kwargs:
            if any(kw.arg in keys and not declines(kw.value) for kw in node.keywords):
                detail = (
                    f"{name}(...) serves the app's functions to a model as MCP tools; analysis does not enumerate "
                    "them, so what they reach is not visible"
                )
                self._tools_frontier(node, "runtime_registered_tools", detail, rule)
                return

    def _tools_frontier(self, node: ast.Call, kind: FrontierKind, detail: str, rule: Rule) -> None:
        """A frontier item at the call: tools a model is given there that analysis cannot enumerate."""
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", kind, self.path, location.line, location.column),
                kind=kind,
                detail=detail,
                location=location,
                ruleId=rule.id,
            )
        )

    def _action(
        self,
        node: ast.Call | ast.Subscript,
        name: str,
        profile: CallProfile,
        rule: Rule,
        tainted: frozenset[TaintOrigin],
        scope: Scope,
        active: frozenset[str],
    ) -> None:
        location = self.loc(node)
        gates = sorted(active)
        sandbox = profile.gate
        if sandbox is not None and sandbox.gateKind == "sandbox":
            # ``client.containers.run(image, cmd)``: the execution target is the sandbox itself.
            gates = sorted({*gates, self._gate(scope, sandbox, node, name)})
        elif (
            rule.match.get("sandboxed")
            and self.rules.sandbox_rule is not None
            and not any(g.kind == "sandbox" and g.id in active for g in scope.gates)
        ):
            # ``self.sandbox.run_code(code)``: the call runs in the sandbox its receiver is, wherever that
            # sandbox was made (``__init__``, another function); a sandbox made here already gates it.
            gates = sorted({*gates, self._gate(scope, self.rules.sandbox_rule, node, name)})
        if type(node) is ast.Call and rule.match.get("model_written"):
            # ``CodeAgent(tools=..., model=...)`` runs the code its model writes: that code is model
            # output reaching the sink here, run by the agent's executor (a sandbox or this process).
            tainted = tainted | model_output(location)
            executor = self._executor_sandbox(node, scope)
            if executor is not None:
                gates = sorted({*gates, executor})
        scope.actions.append(
            trusted(
                ActionSite,
                id=short_id("act", self.path, location.line, location.column, rule.id),
                actionClass=rule.actionClass or "network.egress",
                impact=rule.impact or "medium",
                ruleId=rule.id,
                target=profile.display,
                location=location,
                dominatingGates=gates,
                taint=sorted(tainted, key=origin_key),
                sqlParam=None,
            )
        )

    def _library_run(
        self, node: ast.Call, name: str, scope: Scope, tainted: frozenset[TaintOrigin], active: frozenset[str]
    ) -> bool:
        """A library tool instance called by the code itself (``draft({...})`` with ``draft =
        GmailCreateDraft(...)``): the library's action, performed at the call. (``tool.run(x)`` and the
        other run methods are action rules of their own: ``library_tool_calls``.)"""
        found = self.rules.library_tools.get(name)
        if found is None or found[1].action_class is None:
            return False
        rule, tool = found
        location = self.loc(node)
        scope.actions.append(
            trusted(
                ActionSite,
                id=short_id("act", self.path, location.line, location.column, rule.id, tool.name),
                actionClass=tool.action_class,
                impact=tool.impact or "medium",
                ruleId=rule.id,
                target=f"{display_name(name)}:{tool.name}",
                location=location,
                dominatingGates=sorted(active),
                taint=sorted(tainted, key=origin_key),
                sqlParam=None,
            )
        )
        return True

    def _executor_sandbox(self, node: ast.Call, scope: Scope) -> str | None:
        """The sandbox gate of a code agent whose executor is a sandbox: a keyword naming one
        (``executor_type="e2b"``) or an executor constructed from a sandbox class
        (``executor=E2BExecutor(...)``, ``code_executor=DockerCommandLineCodeExecutor()``, or a
        variable holding one)."""
        found = self.rules.executor_sandbox
        if found is None:
            return None
        rule, kwargs, executors = found
        for keyword in node.keywords:
            if keyword.arg is None:
                continue
            values = kwargs.get(keyword.arg)
            if values is not None:
                text = self.constant_str(keyword.value)
                if text is not None and text in values:
                    return self._gate(scope, rule, node, f"{keyword.arg}={text!r}")
                continue
            value = keyword.value
            if type(value) is ast.Call or type(value) is ast.Name:
                executor = self._type_of(value, scope)
                if executor is not None and executors.matches(executor):
                    return self._gate(scope, rule, node, f"{keyword.arg}={executor}")
        return None

    def _model(
        self,
        rule: Rule,
        provider: str,
        name: str,
        via: Literal["sdk", "http"],
        location: Location,
        model: str | None = None,
        model_ref: str | None = None,
    ) -> None:
        self.models.append(
            trusted(
                ModelSite,
                id=short_id("mdl", self.path, location.line, location.column, rule.id),
                provider=provider,
                api=display_name(name),
                via=via,
                ruleId=rule.id,
                location=location,
                model=model,
                modelRef=model_ref,
            )
        )

    def _http_model(self, node: ast.Call) -> tuple[Rule, str] | None:
        # ``*args`` as written (a starred string is not a URL argument).
        texts = [text for value in (*node.args, *(k.value for k in node.keywords)) if (text := string_text(value))]
        for rule, hosts in self.rules.http_hosts:
            for host, provider in hosts.items():
                for text in texts:
                    if host in text:
                        return rule, provider
        return self.http_host_of(node)  # a URL built from a constant or an environment read's default

    def _token_body(self, node: ast.Call, keys: frozenset[str], scope: Scope) -> bool:
        """A request body asking for an OAuth token: a dict literal with a ``grant_type`` key, given in
        the call or bound to a local of the function that the call passes (``data=data``)."""
        if not keys:
            return False
        values = [*node.args, *(k.value for k in node.keywords)]
        names = {v.id for v in values if isinstance(v, ast.Name) and v.id not in scope.params}
        if names and scope.function is not None:
            values += [
                stmt.value
                for stmt in walk(scope.function)
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in stmt.targets)
            ]
        return any(
            isinstance(v, ast.Dict) and any(string_text(k) in keys for k in v.keys if k is not None) for v in values
        )

    def _fixed_str(self, arg: ast.expr, scope: Scope) -> bool:
        if isinstance(arg, ast.Constant) or self.constant_str(arg) is not None:
            return True
        return isinstance(arg, ast.Name) and arg.id not in scope.params and local_constant(scope, arg.id) is not None

    def _url_texts(self, node: ast.Call) -> list[str]:
        """The texts of a call's arguments where a URL would be: literals, f-strings and ``+`` concatenations, with
        the module constants they are built from read in (``f"{API_URL}/mail/send"``, ``API_URL = "https://..."``);
        a piece known only at run time reads as empty."""
        return [text for value in (*node.args, *(k.value for k in node.keywords)) if (text := self._text_of(value))]

    def _text_of(self, value: ast.expr) -> str:
        kind = type(value)
        if kind is ast.Constant:
            text = value.value  # type: ignore[attr-defined]
            return text if type(text) is str else ""
        if kind is ast.JoinedStr:
            return "".join(
                self._text_of(v.value if type(v) is ast.FormattedValue else v)
                for v in value.values  # type: ignore[attr-defined]
            )
        if kind is ast.Name:
            return self.constant_str(value) or ""
        if kind is ast.BinOp and type(value.op) is ast.Add:  # type: ignore[attr-defined]
            return self._text_of(value.left) + self._text_of(value.right)  # type: ignore[attr-defined]
        return ""

    def _action_rule(self, node: ast.Call, profile: CallProfile, scope: Scope) -> Rule | None:
        display = profile.display
        for rule in profile.actions:
            match = rule.match
            if match.get("write_mode") and not opens_for_writing(node, scope.function):
                continue
            if match.get("read_mode") and opens_for_writing(node, scope.function):
                continue
            if "nonliteral_arg" in match:
                index = match["nonliteral_arg"]
                # A literal, a module constant or a local only ever bound to one literal: a name fixed in
                # the code (``importlib.import_module(MODULE)``), not one chosen at run time.
                if len(node.args) > index and self._fixed_str(node.args[index], scope):
                    continue
            if "key_names" in match and not self._names_credential(rule, node.args[0] if node.args else None):
                continue
            if "without_kwargs" in match and any(k.arg in match["without_kwargs"] for k in node.keywords):
                continue
            if "memory_buffers" in match and self._in_memory(node, match["memory_buffers"], scope):
                continue  # ``zipfile.ZipFile(io.BytesIO(), "w")``: an archive built in memory
            if "off_when_false" in match and any(
                k.arg in match["off_when_false"] and type(k.value) is ast.Constant and k.value.value is False
                for k in node.keywords
            ):
                continue  # ``builder.build(task, coding=False)``: switched off where it is called
            if match.get("sql_write"):
                return self._sql_rule(rule, node, scope)
            if rule.actionClass == "network.egress" and self.rules.messaging is not None:
                messaging, hosts = self.rules.messaging
                if any(host in text for text in self._url_texts(node) for host in hosts):
                    return messaging
            if rule.actionClass == "network.egress" and self.rules.token_fetch is not None:
                token_rule, urls, keys = self.rules.token_fetch
                if any(url in text for text in self._url_texts(node) for url in urls) or self._token_body(
                    node, keys, scope
                ):
                    return token_rule
            excluded = match.get("exclude_services")
            if excluded and display.startswith("boto3.client:"):
                service = display.split(":", 1)[1].split(".", 1)[0]
                if service in excluded:
                    continue
            return rule
        return None

    def _in_memory(self, node: ast.Call, buffers: list[str], scope: Scope) -> bool:
        """Whether the file a call opens is a buffer in memory (``io.BytesIO()``, or a name holding one)."""
        target = (
            node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("file", "name")), None)
        )
        return target is not None and self.dotted(target, scope)[0] in buffers

    def _sql_rule(self, rule: Rule, node: ast.Call, scope: Scope) -> Rule | None:
        """Raw SQL by its text: a literal ``GRANT`` is a privilege change, a literal write ``db.write``, a
        literal read ``db.read``; so is text assembled only from pieces the code spells out, by the
        statement every one of its values starts with (``f"UPDATE t SET {', '.join(fields)} WHERE id = ?"``,
        ``fields`` only ever given literals: ``pyast/fixed_text.py``); other text assembled at run time
        (a parameter, an f-string with a value, a call) is executed verbatim: ``sql.exec``.
        ``execute(text(q))`` is that ``text(q)`` already."""
        keywords = rule.match.get("sql_keywords", ())
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in keywords), None)
        if first is None:
            return None
        builders = rule.match.get("statement_builders")
        if builders and type(first) is not ast.Constant:
            built = self._statement_kind(first, builders, scope)
            if built is not None:
                return rule if built == "write" else self.rules.db_read
        wrapped = self._text_clause(first, scope)
        if wrapped is not None:
            # ``execute(text("SELECT ..."))``, or a local only ever bound to one: the SQL given to ``text``.
            kind = self._sql_text_kind(wrapped, scope)
            if kind is not None:
                return rule if kind == "write" else self.rules.db_read
            if type(first) is ast.Call:
                return None  # ``execute(text(q))`` is that ``text(q)`` already
        sql = string_text(first)
        assembled = type(first) is ast.JoinedStr and any(type(v) is ast.FormattedValue for v in first.values)
        if sql is None or assembled:
            sql = self._fixed_sql(first, scope)
            if sql is None:
                return self.rules.sql_exec or rule
        if rule.match.get("query_language") == "cypher":
            return rule if _CYPHER_WRITE.search(sql) else self.rules.db_read
        if self.rules.sql_grant is not None and _SQL_GRANT.match(sql):
            return self.rules.sql_grant
        if _SQL_WRITE.match(sql):
            return rule
        if self.rules.db_read is not None and _SQL_READ.match(sql):
            return self.rules.db_read
        return None

    def _text_clause(self, node: ast.expr, scope: Scope) -> ast.expr | None:
        """The SQL given to a ``text(...)`` clause that ``node`` is (``text("SELECT 1")``), or that a local ``node``
        names and is only ever bound to (``sql = text(\"\"\"SELECT ...\"\"\")``); None otherwise."""
        if type(node) is ast.Name and scope.function is not None:
            values = bound_values(scope.function, node.id)
            node = values[0] if values is not None and len(values) == 1 else node
        if type(node) is ast.Call and node.args and (name_text(node.func) or "").rsplit(".", 1)[-1] == "text":
            return node.args[0]
        return None

    def _statement_kind(self, node: ast.expr, builders: dict[str, list[str]], scope: Scope) -> str | None:
        """``conn.execute(select(t).limit(n))`` (or a local bound to one): a statement a library builds, no text,
        read or written by its builder (``statement_builders`` of the rule: ``read`` / ``write``)."""
        if type(node) is ast.Name:
            built = scope.types.get(node.id)
        elif type(node) is ast.Call:
            built = self._type_of(node, scope)
        else:
            return None
        if not built:
            return None
        for kind in ("write", "read"):
            if any(built == head or built.startswith(head + ".") for head in builders.get(kind, ())):
                return kind
        return None

    def _sql_text_kind(self, node: ast.expr, scope: Scope) -> Literal["read", "write"] | None:
        """Whether SQL text fixed in the code reads or writes (a literal, or text assembled only from pieces the
        code spells out); None for text chosen at run time or that is no statement of either kind."""
        sql = string_text(node)
        if sql is None or (type(node) is ast.JoinedStr and any(type(v) is ast.FormattedValue for v in node.values)):
            sql = self._fixed_sql(node, scope)
        kind = _statement_kind(sql) if sql is not None else None
        if kind == "read":
            return "read"
        return "write" if kind == "write" else None

    def _fixed_sql(self, node: ast.expr, scope: Scope) -> str | None:
        """The leading text of SQL assembled only from pieces fixed in the code, when every value it
        may take starts with the same kind of statement; None otherwise."""
        if not is_fixed(node, scope.function, lambda n: self.constant_str(n) is not None):
            return None
        texts = leading_text(node, scope.function)
        kinds = {_statement_kind(t) for t in texts}
        return texts[0] if len(kinds) == 1 and None not in kinds else None

    def _names_credential(self, rule: Rule, key: ast.expr | None) -> bool:
        """Whether an environment read names a credential: ``os.environ["GITHUB_TOKEN"]``, ``getenv(API_KEY)``."""
        text = literal_str(key) if key is not None else None
        if text is None and isinstance(key, ast.Name | ast.Attribute):
            text = name_text(key)
        return text is not None and self.rules.key_names[rule.id].matches(text)

    def _env_read(self, node: ast.Subscript, scope: Scope, active: frozenset[str]) -> None:
        """``os.environ["API_KEY"]``: a credential read, like ``os.environ.get("API_KEY")``."""
        name, _ = self.dotted(node.value, scope)
        if name != "os.environ":
            return
        profile = self.rules.profile(name)
        for rule in profile.actions:
            if "key_names" in rule.match and self._names_credential(rule, node.slice):
                self._action(node, name, profile, rule, NO_TAINT, scope, active)
                return

    def _unresolved(self, node: ast.Call, name: str, profile: CallProfile, scope: Scope) -> None:
        """One ``unresolved_call`` per function and name, for a bare name bound nowhere in the file."""
        rule = self.rules.unresolved_rule
        if (
            rule is None
            or self.star_import
            or name in scope.reported
            or name in scope.taint
            or name in scope.outer
            or name in self.module_bound
            or name in PY_BUILTINS
            or name in self.rules.unresolved_skip
            or profile.gate is not None
        ):
            return
        scope.reported.add(name)
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "unresolved_call", self.path, scope.qualname, name),
                kind="unresolved_call",
                detail=f"{name} is not defined, imported or a builtin in this file; what it runs is not visible",
                location=location,
                ruleId=rule.id,
            )
        )

    def _model_keyed_table(self, lookup: ast.Subscript, scope: Scope) -> bool:
        """``TOOL_MAP[tool](arg)`` with ``TOOL_MAP = {"execute_command": execute_command, ...}`` at module level and
        ``tool`` taken from the model's answer: the model picks a function of the table by name, so each entry is a
        tool named by its key and run by its function (PY-TOOL-TABLE-001). False, and nothing made, for a table
        holding anything but functions named by reference, or a key the model's answer does not carry."""
        rule = self.rules.table_rule
        if rule is None or not isinstance(lookup.value, ast.Name) or not self._holds_model_answer(lookup.slice, scope):
            return False
        table = self._module_bindings.get(lookup.value.id, [])
        if len(table) != 1 or not isinstance(table[0], ast.Dict) or not table[0].keys:
            return False
        entries: list[tuple[str, ast.expr, str]] = []
        for key, value in zip(table[0].keys, table[0].values, strict=True):
            name = self.constant_str(key) if key is not None else None
            function, ok = self.dotted(value, None) if isinstance(value, ast.Name | ast.Attribute) else (None, False)
            if key is None or not name or not ok or not function or not is_user_callee(function, ok, self):
                return False
            entries.append((name, key, function))  # at the key, where the table spells the name
        for name, at, function in entries:
            tool = ToolDef.found(rule, name, self.loc(at), function=function)
            if name == function.rsplit(".", 1)[-1]:
                tool = tool.model_copy(update={"byFunction": True})  # at the function's def, one tool with it
            self.tools.append(tool)
        return True

    def _holds_model_answer(self, key: ast.expr, scope: Scope) -> bool:
        """Whether a lookup key holds part of the model's answer: its root name's taint says so, or, once a check
        against the table cleaned that (``if tool not in TOOL_MAP: continue``), the value it was bound to once."""
        root: ast.expr | None = key
        while isinstance(root, ast.Subscript | ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if any(origin.kind == "model_output" for origin in scope.taint.get(root.id, NO_TAINT)):
            return True
        bound = self.bound_once(root.id, key)
        while isinstance(bound, ast.Subscript | ast.Attribute):
            bound = bound.value
        return isinstance(bound, ast.Name) and any(
            origin.kind == "model_output" for origin in scope.taint.get(bound.id, NO_TAINT)
        )

    def _dynamic_dispatch(self, node: ast.Call, scope: Scope) -> None:
        rule = self.rules.dispatch_rule
        if rule is None:
            return
        func = node.func
        detail: str | None = None
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr":
            if len(func.args) >= 2 and not isinstance(func.args[1], ast.Constant):
                detail = "getattr(...) with a name chosen at run time is called"
        elif isinstance(func, ast.Subscript) and not isinstance(func.slice, ast.Constant):
            if self._model_keyed_table(func, scope):
                return  # ``TOOL_MAP[parsed["tool_name"]](...)``: the table's functions are the model's tools
            detail = f"{name_text(func.value) or 'a table'}[...] is called with a key chosen at run time"
        if detail is None:
            return
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "dynamic_dispatch", self.path, location.line, location.column),
                kind="dynamic_dispatch",
                detail=detail,
                location=location,
                ruleId=rule.id,
            )
        )


# ----- helpers -------------------------------------------------------------------------------------


def _statement_kind(sql: str) -> str | None:
    if _SQL_GRANT.match(sql):
        return "grant"
    if _SQL_WRITE.match(sql):
        return "write"
    return "read" if _SQL_READ.match(sql) else None


def _dict_value(node: ast.Dict | None, key: str) -> ast.expr | None:
    """The value a dict literal gives a string key."""
    if node is None:
        return None
    return next(
        (v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant) and k.value == key),
        None,
    )
