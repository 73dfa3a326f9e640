"""Tools by role: what makes a function or a name a tool whatever the framework, from the rule pack's
role rules (``rules/python-roles.json``), for code no framework rule names.

- A function decorated by a third-party decorator whose name denotes a tool (``@tool``,
  ``@function_tool``, ``@kernel_function``, ``@tools.registry.action(...)``) is a tool, named as such
  frameworks name it: the decorator's ``name=`` (or, for the decorators that take it so, its first
  positional string), else the function's name; a Semantic Kernel function is ``<Plugin>-<function>``.
  Approval switches on the decorator (``requires_confirmation=True``), a confirming ``pre_hook`` and a
  ``domains=[...]`` filter are gates over the whole tool.
- What a call into a third-party framework is given under a tools parameter (``tools=``,
  ``functions=``, ``plugins=``, ``skills=``, ``allowed_tools=``...) is given to a model: the tree's
  functions listed there are tools named after them; names spelled as strings are tools of the SDK, with
  the effect the pack gives SDK built-ins (Claude Code's ``Bash`` runs the model's commands); a library
  object or a run-time list the analysis cannot enumerate is a frontier item naming the call.
- A code executor configured on an agent (``code_executor=...``) runs the code its model writes.
- A package's class built as a model client (``ChatOpenAI(...)``, ``BedrockModel(model_id=...)``,
  ``OpenAIChatGenerator(...)``) or any package's constructor given a model id (``Agent(model="gemini-2.0-flash")``)
  is a model use, its provider named by the class, the model string or the model id.
"""

from __future__ import annotations

import ast

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ActionSite, TaintOrigin
from assay.backend.engines.static.pyast.literals import declines
from assay.backend.engines.static.pyast.role_agents import AgentRoles
from assay.backend.engines.static.pyast.role_rules import STDLIB, third_party
from assay.backend.engines.static.pyast.scope import MODULE_PARAMS, Scope
from assay.backend.engines.static.rules.pack import Rule


class RoleLogic(AgentRoles):
    """Tools, gates, reach and code execution recognised by the role a name plays, not by its spelling
    (decorators and hooks in ``role_decorators``, tools parameters and builders in ``role_params``, agents
    run by functions or handed over as tools in ``role_agents``)."""

    # --- clients of network services -----------------------------------------------------------

    def _client_call(self, name: str, resolved: bool) -> bool:
        """``client.list_models(...)`` with ``client = bigquery.Client()``: a method of an object built
        from a package's client class, which no other rule names, talks to that package's service. Whether
        the class is a package's (not one of the tree's modules imported by an absolute name, which the
        file alone cannot tell) is the linker's to say (``CallFact.client``)."""
        if not resolved:
            return False
        found = self._client_calls.get(name)
        if found is None:
            found = self._client_calls[name] = self._client_method(name)
        return found

    def _client_method(self, name: str) -> bool:
        """``_client_call`` of a resolved name, read once per file and name (the answer depends on nothing else)."""
        roles = self.roles
        if roles.client_rule is None or "." not in name:
            return False
        parts = name.split(".")
        head = parts[0]
        if parts[-1] in roles.client_lifecycle:
            return False  # closing a client sends nothing the tool asked for
        if head in STDLIB or head in roles.client_excluded or head == self.module.split(".", 1)[0]:
            return False
        if self.of_tree(name) or head in self.local_defs:
            return False
        # A client class followed by at least one method: ``pkg.Client.method`` or ``pkg.Client.sub.method``.
        return any(
            segment[:1].isupper() and roles.client_classes.matches(segment) for segment in parts[1 : len(parts) - 1]
        )

    def _client_receiver(self, name: str, resolved: bool) -> bool:
        """``client.send_message(m)`` with ``client = create_client(...)`` (a function named as a client
        factory) or ``resolver = A2ACardResolver(base_url=...)`` (a call handed where to connect): one
        method of a package's client. Whether the package is one (not a module of the tree, which the
        file alone cannot tell) is the linker's to say (``CallFact.client``)."""
        if not resolved:
            return False
        found = self._client_receivers.get(name)
        if found is None:
            found = self._client_receivers[name] = self._receiver_shape(name)
        receiver, factory = found
        return receiver is not None and (receiver in self.network_built or factory)

    def _client_resource(self, node: ast.Call, scope: Scope) -> bool:
        """``client.widgets.delete(i)`` with ``client = Acme(api_key=k)``, ``Acme(api_key=k).widgets.archive(i)``:
        a method of a resource reached from a client by attributes alone is that client's. Through a call's
        result (``(await crawler.arun(u)).metadata.get(k)``) the object is data the client gave, not the client."""
        func = node.func
        if not self.network_built or type(func) is not ast.Attribute or type(func.value) is not ast.Attribute:
            return False
        root: ast.expr = func.value
        held: ast.expr = func.value
        while type(root) is ast.Attribute:
            held, root = root, root.value
        if type(root) is ast.Name and root.id == "self" and held is not func.value:
            # ``self.client.widgets.delete(i)`` with ``self.client = Acme(api_key=k)``: the client the object holds.
            built = self.dotted(held, scope)[0]
        elif type(root) is ast.Name:
            built = scope.types.get(root.id) or self.module_types.get(root.id)
        elif type(root) is ast.Call:
            built = self.dotted(root.func, scope)[0]
        else:
            return False
        # The client itself (a class's object), not what one of its methods gave (``result = crawler.arun(url=u)``).
        return built is not None and built in self.network_built and built.rpartition(".")[2][:1].isupper()

    def _receiver_shape(self, name: str) -> tuple[str | None, bool]:
        """What ``_client_receiver`` reads of a resolved name, once per file and name: the receiver whose method
        it is (None when no client's method could be called so) and whether a client factory made it."""
        roles = self.roles
        if roles.client_rule is None or name.count(".") < 2:
            return None, False
        receiver, _, method = name.rpartition(".")
        head = name.split(".", 1)[0]
        if method in roles.client_lifecycle or head in STDLIB or head in roles.client_excluded:
            return None, False
        if self.of_tree(name) or head in self.local_defs:
            return None, False
        factory = receiver.rpartition(".")[2]
        return receiver, bool(factory[:1].islower() and roles.client_factories.matches(factory))

    def _network_built(self, node: ast.Call, name: str, resolved: bool, scope: Scope) -> None:
        """``A2ACardResolver(httpx_client=c, base_url=URL)``, ``EmailLoader(imap_url=u, ...)``: a package's object
        handed where to connect (a URL, an endpoint, a host, an HTTP client; a keyword named so, or ending as
        one does: ``imap_url``, ``smtp_host``) is a client of a network service; its methods are reach. So is
        an object a package's class builds with the credentials of a service (``Acme(api_key=k)``,
        ``Letta(api_key=k)``): only the service a key is for ever checks it; and one a package's class builds
        over an open connection to a service (``AdServiceStub(channel)`` with ``channel =
        grpc.insecure_channel(addr)``, a generated gRPC stub): its methods are calls to that service."""
        roles = self.roles
        kwargs = roles.network_kwargs
        head = name.split(".", 1)[0]
        if (
            not resolved
            or head in STDLIB
            or head in roles.client_excluded
            or head in self.local_defs
            or self.of_tree(name)
        ):
            return
        # Credentials make a client of the object a class builds (``Acme(api_key=k)``); what a function or a
        # method given them returns is the data it fetched, or a pydantic model, not a client.
        constructed = name.rpartition(".")[2][:1].isupper()
        handed = bool(kwargs or roles.credential_kwargs) and any(
            kw.arg in kwargs
            or kw.arg.endswith(roles.network_kwarg_suffixes)
            or (kw.arg in roles.credential_kwargs and constructed)
            for kw in node.keywords
            if kw.arg
        )
        if handed or (constructed and roles.connection_calls.exact and self._over_connection(node, scope)):
            self.network_built.add(name)

    def _over_connection(self, node: ast.Call, scope: Scope) -> bool:
        """Whether a call is handed an open connection to a service: a name bound to, or a call of, one of the
        ``connection_calls`` (``grpc.insecure_channel(addr)``)."""
        for value in (*node.args, *(kw.value for kw in node.keywords)):
            if type(value) is ast.Name:
                held = scope.types.get(value.id) or self.module_types.get(value.id)
            elif type(value) is ast.Call:
                held, known = self.dotted(value.func, scope)
                held = held if known else None
            else:
                continue
            if held is not None and self.roles.connection_calls.matches(held):
                return True
        return False

    # --- code executors ---------------------------------------------------------------------------

    def _role_code_executor(self, node: ast.Call, name: str, scope: Scope, active: frozenset[str]) -> None:
        """``Agent(code_executor=VertexAiCodeExecutor())``, AutoGen 0.2 ``UserProxyAgent(code_execution_config=
        {"work_dir": "coding", "use_docker": False})``: the agent runs the code its model writes."""
        roles = self.roles
        rule = roles.executor_rule
        if rule is None or not third_party(name, True):
            return
        for kw in node.keywords:
            config = kw.arg in roles.executor_configs
            if (kw.arg not in roles.executor_kwargs and not config) or declines(kw.value):
                continue
            value = kw.value
            location = self.loc(value)
            configured, container = self._configured_executor(value) if config else (value, False)
            executor = self.dotted(configured.func if isinstance(configured, ast.Call) else configured, scope)[0] or ""
            gates = set(active)
            if (container or roles.sandbox_executors.matches(executor)) and self.rules.sandbox_rule is not None:
                runs_in = executor or f"{kw.arg} container"
                gates.add(self._gate(scope, self.rules.sandbox_rule, value, f"{runs_in} runs code in a sandbox"))
            shown = executor.rsplit(".", 1)[-1] or "..."
            self._executor_actions(node, scope).append(
                ActionSite(
                    id=short_id("act", self.path, location.line, location.column, rule.id),
                    actionClass=rule.actionClass or "code.exec",
                    impact=rule.impact or "critical",
                    ruleId=rule.id,
                    target=f"{name.rsplit('.', 1)[-1]}({kw.arg}={shown})",
                    location=location,
                    dominatingGates=sorted(gates),
                    taint=[TaintOrigin(kind="model_output", location=location)],
                )
            )

    def _executor_actions(self, node: ast.Call, scope: Scope) -> list[ActionSite]:
        """Where the code an agent's executor runs is recorded: in the function a module-level agent of the
        file is (``calc = LlmAgent(name="calc", code_executor=...)``), so that what runs the agent (an
        ``AgentTool(agent=calc)``, a function calling it) reaches it; in the scope the agent is built in
        otherwise."""
        if scope.params is MODULE_PARAMS:
            target = next((name for name, call in self._module_agents.items() if call is node), None)
            qualname = f"{self.module}.{target}"
            built = next((f for f in reversed(self.functions) if f.qualname == qualname), None) if target else None
            if built is not None:
                return built.actions
        return scope.actions

    def _configured_executor(self, value: ast.expr) -> tuple[ast.expr, bool]:
        """The executor a config dict names (its ``executor`` entry, else the dict itself) and whether a
        container flag in it is set to something other than off (``"use_docker": True`` or an image)."""
        if not isinstance(value, ast.Dict):
            return value, False
        entries = {k.value: v for k, v in zip(value.keys, value.values, strict=True) if isinstance(k, ast.Constant)}
        inner = next((entries[k] for k in self.roles.executor_config_keys if k in entries), value)
        flag = next((entries[k] for k in self.roles.container_flags if k in entries), None)
        return inner, flag is not None and not declines(flag)

    # --- model clients ----------------------------------------------------------------------------

    def _model_module_tail(self, name: str) -> str | None:
        """For a class kept in a package's models module (``agno.models.openai.OpenAIChat``,
        ``phi.model.anthropic.Claude``), the lowered module path below that segment (``openai``; empty when the
        class sits in the models module itself); None for any other name."""
        parts = name.split(".")[1:-1]
        for i, part in enumerate(parts):
            if part in self.roles.model_modules:
                return ".".join(parts[i + 1 :]).lower()
        return None

    def _model_shape(self, name: str) -> tuple[bool, bool, str, str | None, bool]:
        """What a callee's name alone says for ``_role_model``: whether a word excludes it, whether it is a
        constructor, its class name lowered (empty for a method or function, whose name says nothing of its
        vendor: only its model string can), the vendor module a package keeps its class in, and whether it is
        a model client's class."""
        roles = self.roles
        cls = name.rsplit(".", 1)[-1]
        constructor = cls[:1].isupper()
        excluded = any(word in cls.lower() for word in roles.model_excluded)
        # ``agno.models.openai.OpenAIChat(id="gpt-4o")``, ``agno.models.anthropic.Claude(...)``: a class a package
        # keeps in its models module is a model client, whatever its name; the module under it names the vendor.
        vendor_module = self._model_module_tail(name)
        model_class = constructor and (roles.model_classes.matches(cls) or vendor_module is not None)
        return excluded, constructor, cls.lower() if constructor else "", vendor_module, model_class

    def _role_model(self, node: ast.Call, name: str, decorator: bool = False) -> bool:
        """``ChatOpenAI(model="gpt-4.1-mini")`` from any package, ``BedrockModel(model_id=...)``,
        ``dspy.LM("openai/gpt-4o-mini")``, ``LlmAgent(model=MODEL)``, ``client.agents.create(model="openai/gpt-4o")``:
        a model client, or an agent or call naming its model, recorded there (no rule names it). Nothing is recorded when neither the class,
        nor the model string, nor the model id says whose model it is. True when what was recorded is a model
        client's class (a chat model, an LLM): what it answers (``llm.invoke(q)``) is model output."""
        roles = self.roles
        rule = roles.model_rule
        if rule is None or not third_party(name, True) or name.startswith(self.module_prefix):
            return False
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None} if node.keywords else {}
        chosen = (
            next((keywords[key] for key in roles.model_choice_kwargs if key in keywords), None) if keywords else None
        )
        if chosen is not None:
            self._model_choice(rule, node, name, chosen)
            return False  # a configuration naming the model: not the client that answers
        shape = roles.model_shapes.get(name)
        if shape is None:
            shape = roles.model_shapes[name] = self._model_shape(name)
        excluded, constructor, lowered, vendor_module, model_class = shape
        if excluded:
            return False
        keys = roles.model_class_kwargs if model_class else roles.model_id_kwargs
        given = next((keywords[key] for key in keys if key in keywords), None) if keywords else None
        if given is None and not model_class and keywords and roles.model_role_kwarg_suffixes:
            # ``AgentTeam(manager_llm="gpt-4o-mini")``: the model a role of the team runs on, named as a model id.
            suffixes = roles.model_role_kwarg_suffixes
            given = next((value for key, value in keywords.items() if key.endswith(suffixes)), None)
        model = self.constant_str(given) if given is not None else None
        if model is None and model_class and node.args:
            model = self.constant_str(node.args[0])  # ``LM("openai/gpt-4o-mini")``, ``OpenAIModel("gpt-4o")``
        if model is None and given is None and node.args:
            # ``create_agent("ollama:qwen3:4b", tools=[...])``, ``ModelFallbackMiddleware("openai:gpt-4o")``:
            # a string naming a vendor and its model, whatever the call's name.
            # A decorator handed ``"vendor/model"`` (``@llm.call("openai/gpt-5-mini")``) runs the function with that
            # model; elsewhere the slash form is also a hub's repository (``from_pretrained("openai/whisper-...")``).
            first = self.constant_str(node.args[0])
            colon = first is not None and ":" in first and first.partition(":")[0] in self.rules.vendors
            if first is not None and (colon or (decorator and self.rules.vendor_split(first) is not None)):
                model = first
        # ``Agent(model=configs.agent_settings.model)``: a settings field's default, here or in another module.
        ref = self.settings_ref(given) if model is None else None
        model = model or self.settings_value(ref)
        if model is None and (model_class or ref is not None):
            # ``OpenAIModel(llm, ...)`` with ``llm = os.getenv("MODEL_CHOICE", "gpt-4o-mini")``, a parameter's
            # default, ``self._model``: the id the code spells out for a client recorded here anyway.
            value = given if given is not None else node.args[0] if model_class and node.args else None
            model = self.model_value(value, node)
        ref = ref if model is None else None
        if not model_class and model is None and ref is None:
            return False
        provider = next((p for word, p in roles.vendor_words if word in lowered), None)
        if provider is None and constructor and vendor_module:
            provider = next((p for word, p in roles.vendor_words if word in vendor_module), None)
        # ``ChatOpenAI(base_url="https://openrouter.ai/api/v1")``: whoever serves the host the client is pointed at.
        provider = self.served_by(node, provider) or provider
        split = self.rules.vendor_split(model) if model is not None else None
        if split is not None and provider in (None, split[0]):
            provider, model = split
        provider = provider or roles.class_providers.get(name)
        if provider is None and model is not None:
            provider = next((p for start, p in roles.model_id_prefixes if model.lower().startswith(start)), None)
        if provider is None and ref is not None:
            provider = ""  # the model id the linker reads from the settings field says whose model it is
        if provider is None:
            return False
        self._model(rule, provider, name, "sdk", self.loc(node), model, ref)
        return model_class

    def _model_choice(self, rule: Rule, node: ast.Call, name: str, chosen: ast.expr) -> None:
        """``OpenAIGPTConfig(chat_model="ollama/llama3.1:8b")``, ``chat_model=model or OpenAIChatModel.GPT4o``: a
        keyword that names the chat model a package's client or configuration calls is a model use, whatever the
        class is called (a configuration too). The provider is the vendor before the model string's first ``/``
        or ``:``, else the model id's family; a member of a package's model enum is the id the pack gives it
        (``OpenAIChatModel.GPT4o`` -> ``gpt-4o``), else an enum of a vendor's name says the provider alone;
        ``x or default`` chooses the default where the code names one."""
        roles = self.roles
        if isinstance(chosen, ast.BoolOp) and isinstance(chosen.op, ast.Or):
            chosen = chosen.values[-1]
        model = self.constant_str(chosen)
        provider: str | None = None
        if model is not None:
            split = self.rules.vendor_split(model)
            if split is not None:
                provider, model = split
            else:
                provider = next((p for start, p in roles.model_id_prefixes if model.lower().startswith(start)), None)
        elif isinstance(chosen, ast.Attribute):
            enum, resolved = self.dotted(chosen.value, None)
            if resolved and enum and third_party(enum, True) and not enum.startswith(self.module_prefix):
                cls = enum.rsplit(".", 1)[-1]
                model = roles.model_enums.get(enum.split(".", 1)[0], {}).get(cls, {}).get(chosen.attr)
                if model is not None:
                    provider = next(
                        (p for start, p in roles.model_id_prefixes if model.lower().startswith(start)), None
                    )
                provider = provider or next((p for vendor, p in roles.vendor_words if vendor in cls.lower()), None)
        if provider is not None:
            self._model(rule, provider, name, "sdk", self.loc(node), model, None)
