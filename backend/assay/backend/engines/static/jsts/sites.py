"""Call sites that are facts: model uses, actions (sinks), dynamic dispatch, run-time tools, unresolved calls."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ActionSite, FrontierSite, ModelSite, SqlKind, ToolDef
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.gates import GateLogic
from assay.backend.engines.static.jsts.scope import EMPTY, Scope, Taint
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, unwrap
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import FrontierKind, Location

_SQL_WRITE = re.compile(r"^\s*(insert|update|delete|drop|alter|create|replace|truncate|merge|upsert)\b", re.I)
# Model properties of an options object, in the order they are read.
_MODEL_KEYS = ("model", "modelName", "modelId", "model_id")
# An environment variable's name (``ANTHROPIC_MODEL``): never a model id, the key a setting is read by.
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
# Provider names of package or prefix vendors that differ from the bundle's provider vocabulary.
_VENDORS = {"azure": "azure_openai", "amazon-bedrock": "bedrock", "google-vertex": "google", "vertex": "google"}
# Options naming the host a client talks to.
_BASE_URL_KEYS = ("baseURL", "baseUrl", "basePath")
# Providers whose protocol other hosts serve (an OpenAI-compatible client pointed elsewhere is that host's).
_HOSTED_PROTOCOLS = frozenset({"openai", "openai-compatible", "unknown"})
_SQL_READ = re.compile(r"^\s*(select|with|show|pragma|describe|desc|explain|values|table)\b", re.I)


def sql_kind(text: str) -> SqlKind | None:
    """Whether SQL fixed in the code writes or only reads (neither: ``BEGIN``, not SQL at all)."""
    if _SQL_WRITE.match(text):
        return "write"
    return "read" if _SQL_READ.match(text) else None


class SiteLogic(GateLogic):
    """What a resolved call is, by the rules: a model use, an action, or a frontier item."""

    def command(self, name: str, args: list[Node], scope: Scope) -> tuple[str | None, Node | None]:
        """``client.send(new XCommand({...}))`` (AWS SDK v3): the command's name and its input."""
        if not name.endswith(".send") or not args:
            return None, None
        arg = unwrap(args[0])
        if arg is None:
            return None, None
        if arg.type == "identifier" and self.code.text(arg) in scope.types:
            return scope.types[self.code.text(arg)], None
        if arg.type != "new_expression":
            return None, None
        command, _ = self.dotted(arg.child_by_field_id(self.fields.constructor), scope)
        cargs = arg.child_by_field_id(self.fields.arguments)
        return command, (cargs.named_children[0] if cargs is not None and cargs.named_children else None)

    def model(self, node: Node, name: str, command: str | None, args: list[Node], scope: Scope) -> Location | None:
        """Records a model use at ``node`` when the call is one; returns its location."""
        rule = self.rules.model(name)
        provider: str | None = None
        model_id: str | None = None
        if rule is not None:
            provider = rule.match.get("providers", {}).get(name, rule.provider)
            if rule.match.get("provider_from_model_arg"):
                provider = self.provider_from_model_arg(args, scope) or provider
            if rule.match.get("provider_from_package") and name.startswith("@ai-sdk/"):
                vendor = name.split("/", 1)[1].split(".", 1)[0]
                provider = _VENDORS.get(vendor, vendor)
            elif rule.match.get("provider_from_package"):
                if "#" in name:
                    return None  # an API's shape on an object of the tree's own classes (a fake, a wrapper)
                provider = self.client_package(name) or provider
            if provider in _HOSTED_PROTOCOLS:
                # A call on a client built for another host, or the building of one (``createOpenAI({ baseURL })``).
                provider = self.served_by(node, scope) or self.client_host(node, scope) or provider
            model_id = self.model_id(args, scope)
            if rule.match.get("provider_from_model_prefix") and model_id and ":" in model_id:
                vendor, _, model_id = model_id.partition(":")  # initChatModel("openai:gpt-4o")
                provider = _VENDORS.get(vendor, vendor)
            words: dict[str, str] | None = rule.match.get("vendor_words")
            if words is not None:
                # A rule for frameworks nobody wrote one for: the vendor from the model string's prefix
                # (``model: "openai/gpt-4o"``, ``"anthropic:claude-..."``) or from a vendor word in the
                # call's name (``googleAI.model("gemini-2.5-flash")``, ``ollama({ model })``); no model
                # named, or no vendor found: not a model use this rule can vouch for.
                provider = None
                if model_id and rule.match.get("model_prefix"):
                    vendor, sep, rest = next(
                        (model_id.partition(c) for c in ("/", ":") if c in model_id), (model_id, "", "")
                    )
                    if sep and vendor.lower() in words:
                        provider, model_id = words[vendor.lower()], rest
                    elif not sep and not self.model_handle(args):
                        # ``new LlmAgent({ model: "gemini-2.5-flash" })``: a bare id of a vendor's model family
                        # (a handle in the option, ``openai("gpt-4o")``, is its own model use).
                        lowered = model_id.lower()
                        families: list[list[str]] = rule.match.get("model_id_prefixes", [])
                        provider = next((v for prefix, v in families if lowered.startswith(prefix)), None)
                if provider is None and rule.match.get("vendor_from_name"):
                    lowered = name.lower()
                    provider = next((v for w, v in words.items() if w in lowered), None)
                if not model_id:
                    # ``gemini({ model: GEMINI_MODEL.GEMINI_PRO })``, ``genkit({ model: gemini20Flash })``:
                    # a model named by a constant a vendor's package exports (the id is the package's,
                    # not written here); the vendor from the call's name, else from that package.
                    reference = self.package_model(args, scope)
                    if reference is None:
                        return None
                    if provider is None:
                        lowered = reference.lower()
                        provider = next((v for w, v in words.items() if w in lowered), None)
                if provider is None:
                    return None
        elif command is not None:
            rule = self.rules.model_command(command)
            provider = rule.provider if rule is not None else None
        if rule is None and self.rules.network(name) is not None:
            found = self.http_model(args, scope)
            if found is not None:
                rule, provider = found
        if rule is None or (rule.match.get("returns_handle") and self.chosen_for_model_call(node, scope)):
            return None
        location = self.loc(node)
        via: Literal["sdk", "http"] = "http" if ("http_hosts" in rule.match or "http_paths" in rule.match) else "sdk"
        self.models.append(
            ModelSite(
                id=short_id("mdl", self.path, location.line, location.column, rule.id),
                provider=provider or "unknown",
                api=command or name,
                via=via,
                ruleId=rule.id,
                location=location,
                model=model_id,
            )
        )
        return location

    def option_model(self, node: Node, args: list[Node], scope: Scope) -> None:
        """``ai.generate({ model: gemini20Flash, prompt })`` with ``ai`` exported by another module of the
        tree (a callee the rules cannot name before the linker resolves it): the ``model`` option holds a
        model a vendor's package exports (``@genkit-ai/googleai.gemini20Flash``), so the call names that model
        whatever it is; the vendor from that package's name, the id unknown."""
        rule = self.rules.option_model_rule
        if rule is None:
            return
        reference = self.package_model(args, scope)
        words: dict[str, str] = rule.match.get("vendor_words", {})
        package = reference.rsplit(".", 1)[0].lower() if reference else ""
        provider = next((v for w, v in words.items() if w in package), None)
        if provider is None:
            return
        location = self.loc(node)
        self.models.append(
            ModelSite(
                id=short_id("mdl", self.path, location.line, location.column, rule.id),
                provider=provider,
                api=reference or "",
                via="sdk",
                ruleId=rule.id,
                location=location,
            )
        )

    def client_package(self, name: str) -> str | None:
        """The package a model call's client comes from, as a provider word (``groq`` for
        ``groq-sdk.Groq.chat.completions.create``); None when the name does not start with a package the
        file imports (a client handed in as a parameter, an object of the tree)."""
        package = name.split(".", 1)[0]
        if "#" in name or not any(v.split(".", 1)[0] == package for v in self.imports.aliases.values()):
            return None
        vendor = package.rsplit("/", 1)[-1].removesuffix("-sdk").removesuffix("-ai")
        return _VENDORS.get(vendor, vendor)

    def chosen_for_model_call(self, node: Node, scope: Scope) -> bool:
        """``generateText({ model: openai("gpt-4o") })``: the provider function names the model of the
        generation call around it, which is the model use (one, not two)."""
        pair = node.parent
        while pair is not None and pair.type in WRAPPERS:
            pair = pair.parent
        if pair is None or pair.type != "pair" or self.code.raw(pair.child_by_field_id(self.fields.key)) != b"model":
            return False
        options = pair.parent
        arguments = options.parent if options is not None else None
        outer = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if outer is None or outer.type not in ("call_expression", "new_expression"):
            return False
        field = self.fields.function if outer.type == "call_expression" else self.fields.constructor
        name, _ = self.dotted(outer.child_by_field_id(field), scope)
        rule = self.rules.model(name) if name else None
        return rule is not None and not rule.match.get("returns_handle")

    def model_handle(self, args: list[Node]) -> bool:
        """The model option of a call's options is a call (``{ model: openai("gpt-4o") }``): a handle."""
        props = self.code.object_props(args[0] if args else None)
        value = unwrap(next((props[k] for k in _MODEL_KEYS if k in props), None))
        return value is not None and value.type in ("call_expression", "new_expression")

    def option_model_id(self, node: Node, scope: Scope) -> str | None:
        """The model id a call into the tree names in its options object (``openai.chat.completions.create({ model })``
        on a client another module exports), kept on its ``CallFact``: only the linker knows the call is a model
        call. Read only from an options object with a model key."""
        args_node = node.child_by_field_id(self.fields.arguments)
        if args_node is None or args_node.type != "arguments" or not args_node.named_child_count:
            return None
        first = unwrap(args_node.named_child(0))
        if first is None or first.type != "object":
            return None
        props = self.code.props(first)
        if not any(key in props for key in _MODEL_KEYS):
            return None
        return self.model_id([first], scope)

    def model_id(self, args: list[Node], scope: Scope, depth: int = 0) -> str | None:
        """The model a call names: its first argument (``openai("gpt-4o")``), or the ``model`` property
        of its options (``{ model: "gpt-4o" }``, ``{ model: anthropic("claude-...") }``, ``modelName``)."""
        first = unwrap(args[0]) if args else None
        if first is None or depth > 2:
            return None
        if first.type != "object":
            return self.constant(first, scope) or self.fallback(first, scope)
        props = self.code.props(first)
        value = unwrap(next((props[k] for k in _MODEL_KEYS if k in props), None))
        nested = unwrap(props.get("options"))
        if value is None and nested is not None and nested.type == "object":
            # ``query({ prompt, options: { model: "claude-sonnet-4-5" } })`` (Claude Agent SDK)
            inner_props = self.code.props(nested)
            value = unwrap(next((inner_props[k] for k in _MODEL_KEYS if k in inner_props), None))
        if value is None:
            return None
        if value.type in ("call_expression", "new_expression"):
            inner = value.child_by_field_id(self.fields.arguments)
            given = inner.named_children if inner is not None else []
            key = self.constant(given[0], scope) if given else None
            if key is not None and _ENV_NAME.match(key):
                # ``env("ANTHROPIC_MODEL", "claude-sonnet-4-5")``: a setting read by its name, the literal
                # after it the default; no default, no model id.
                return self.constant(given[1], scope) if len(given) > 1 else None
            return self.model_id(given, scope, depth + 1)
        return self.constant(value, scope) or self.fallback(value, scope)

    def package_model(self, args: list[Node], scope: Scope) -> str | None:
        """The resolved name of a ``model`` option that is a constant imported from a package
        (``@llamaindex/google.GEMINI_MODEL.GEMINI_PRO``, ``@genkit-ai/googleai.gemini20Flash``), or None."""
        value = unwrap(self.code.object_props(args[0] if args else None).get("model"))
        if value is None or value.type not in ("identifier", "member_expression"):
            return None
        name, known = self.dotted(value, scope)
        head = value
        while head.type == "member_expression":
            inner = unwrap(head.child_by_field_id(self.fields.object))
            if inner is None:
                return None
            head = inner
        if not known or not name or "#" in name or head.type != "identifier":
            return None
        return name if self.code.text(head) in self.imports.aliases else None

    def client_host(self, made: Node, scope: Scope) -> str | None:
        """The provider of the model host a client is built for: ``new OpenAI({ baseURL: "http://localhost:11434/v1" })``,
        ``createOpenAI({ baseURL: process.env.BASE_URL ?? OLLAMA_URL })`` (a literal, a ``const``, an environment
        read's fallback) naming a host of the model rules' ``http_hosts``; None otherwise. Read once, where the
        client is bound."""
        args = made.child_by_field_id(self.fields.arguments)
        if args is None or args.type != "arguments" or not args.named_child_count:
            return None
        props = self.code.object_props(args.named_child(0))
        value = unwrap(next((props[k] for k in _BASE_URL_KEYS if k in props), None))
        if value is None:
            return None
        url = self.constant(value, scope) or self.fallback(value, scope)
        if url is None:
            return None
        for _, hosts in self.rules.http_hosts:
            for host, provider in hosts.items():
                if host in url:
                    return str(provider)
        return None

    def served_by(self, node: Node, scope: Scope) -> str | None:
        """The provider of the host the client a call is made on was built for (``ollama("llama3.2")``,
        ``client.chat.completions.create(...)`` with ``client`` bound to such a client, here or at module level)."""
        func = node.child_by_field_id(self.fields.function)
        while func is not None and func.type == "member_expression":
            func = func.child_by_field_id(self.fields.object)
        if func is None or func.type != "identifier":
            return None
        name = self.code.text(func)
        return scope.hosts.get(name) or self.module_hosts.get(name)

    def fallback(self, node: Node, scope: Scope) -> str | None:
        """The literal a value falls back to (``process.env.MODEL ?? "gpt-5"``, or a name bound to that):
        the model used unless the environment says otherwise."""
        if node.type in ("identifier", "shorthand_property_identifier"):  # ``{ model }`` too
            name = self.code.text(node)
            return scope.fallbacks.get(name) or self.module_fallbacks.get(name)
        if node.type == "binary_expression" and self.code.operator_of(node) in ("??", "||"):
            return self.code.string_value(unwrap(node.child_by_field_id(self.fields.right)))
        return None

    def provider_from_model_arg(self, args: list[Node], scope: Scope) -> str | None:
        """Vercel AI SDK: ``model: anthropic("...")`` from ``@ai-sdk/anthropic`` names the provider."""
        model = self.code.object_props(args[0] if args else None).get("model")
        name, _ = self.dotted(model, scope)
        if name and name.startswith("@ai-sdk/"):
            vendor = name.split("/", 1)[1].split(".", 1)[0]
            handle = unwrap(model)
            if vendor in _HOSTED_PROTOCOLS and handle is not None and handle.type == "call_expression":
                # ``model: ollama("qwen3:4b")`` with ``ollama = createOpenAI({ baseURL: OLLAMA_URL })``.
                return self.served_by(handle, scope) or vendor
            return vendor
        rule = self.rules.model(name) if name else None
        if (
            rule is not None
            and rule.match.get("returns_handle")
            and rule.provider not in (None, "unknown", "vercel-ai")
        ):
            return rule.provider  # ``model: ollama("qwen3:8b")`` of a community provider package
        return None

    def http_model(self, args: list[Node], scope: Scope) -> tuple[Rule, str] | None:
        url = self.constant(args[0], scope) if args else None
        if url is None:
            return None
        for rule, hosts in self.rules.http_hosts:
            for host, provider in hosts.items():
                if host in url:
                    return rule, provider
        for rule, paths in self.rules.http_paths:
            for path, provider in paths.items():
                if path in url:
                    return rule, provider
        return None

    def pipeline_may_write(self, args: list[Node]) -> bool:
        """Whether an aggregation pipeline may write (MongoDB ``$out`` / ``$merge`` stages): one not
        written in the code (the model's or a caller's) may, one written out may when it names such a
        stage; a run with ``{ explain }`` only plans it."""
        first = unwrap(args[0]) if args else None
        if first is None:
            return False
        if len(args) > 1 and "explain" in self.code.object_props(args[1]):
            return False
        if first.type == "array":
            raw = self.code.raw(first)
            return b"$out" in raw or b"$merge" in raw
        return True

    def action_rule(
        self,
        name: str,
        command: str | None,
        command_input: Node | None,
        args: list[Node],
        func: Node | None,
        scope: Scope,
    ) -> Rule | None:
        if command is not None:
            rule = self.rules.action_command(command)
            required = rule.match.get("require_true") if rule is not None else None
            if rule is not None and required:
                flag = self.code.object_props(command_input).get(required)
                if flag is None or flag.type == "false":
                    return None
            return rule
        rule = self.rules.action(name)
        if rule is None:
            return None
        if rule.match.get("sql_write"):
            if name in rule.match.get("tagged_only", ()) and not (len(args) == 1 and args[0].type == "template_string"):
                return None  # ``postgres(url)`` makes the client; ``sql`...` `` runs a query
            sql = self.sql_text(args, func, scope)
            if sql is None:  # SQL not fixed in the code: executed verbatim, whatever it says
                dynamic = rule.match.get("sql_dynamic_rule")
                return self.rules.by_id.get(dynamic, rule) if dynamic else rule
            if _SQL_WRITE.match(sql):
                return rule
            read = rule.match.get("sql_read_rule")
            return self.rules.by_id.get(read) if read and _SQL_READ.match(sql) else None
        reads = rule.match.get("command_reads")
        if reads and args and name.rpartition(".")[2] in reads["methods"]:
            # ``client.sendCommand(["ZRANGE", key, "0", "-1"])``: the command word written out says what runs.
            word = self.command_word(args[0])
            if word is not None and word.upper() in reads["reads"]:
                return self.rules.by_id.get(reads["rule"], rule)
        pipeline = rule.match.get("pipeline_write")
        if pipeline and name.rpartition(".")[2] in pipeline["methods"] and self.pipeline_may_write(args):
            return self.rules.by_id.get(pipeline["rule"], rule)
        if rule.actionClass == "network.egress" and args and (self.rules.message_hosts or self.rules.url_paths):
            url = self.url_text(args[0], scope)
            if url:
                for message_rule, hosts in self.rules.message_hosts:
                    if any(host in url for host in hosts):
                        return message_rule
                # A substitution's value is unknown (``/orders/${id}/capture``): the patterns' ``*``.
                for path_rule, paths in self.rules.url_paths:
                    if paths.matches(url):
                        return path_rule
        return rule

    def command_word(self, first: Node) -> str | None:
        """The command a call names in its first argument: the string itself (``call("GET", key)``) or the
        first element of an array of them (``sendCommand(["GET", key])``); None when chosen at run time."""
        inner = unwrap(first)
        if inner is not None and inner.type == "array" and inner.named_children:
            inner = unwrap(inner.named_children[0])
        return self.code.string_value(inner) if inner is not None and inner.type == "string" else None

    def env_read(self, root: Node, scope: Scope, active: frozenset[str]) -> None:
        """``process.env.GITHUB_TOKEN`` / ``process.env["API_KEY"]``: a credential read when the
        variable is named like one (``root`` is the ``process`` of the expression)."""
        rule = self.rules.credential
        env = root.parent
        if (
            rule is None
            or env is None
            or env.type != "member_expression"
            or self.code.raw(env.child_by_field_id(self.fields.property)) != b"env"
        ):
            return
        holder = env.parent
        key: str | None = None
        if (
            holder is not None
            and holder.type == "member_expression"
            and holder.child_by_field_id(self.fields.object) == env
        ):
            key = self.code.text(holder.child_by_field_id(self.fields.property))
        elif holder is not None and holder.type == "subscript_expression":
            key = self.constant(holder.child_by_field_id(self.fields.index), scope)
        elif holder is not None and holder.type in ("arguments", "return_statement"):
            # The whole environment read as data (``JSON.stringify(process.env)``), not handed to a child.
            self.add_action(rule, env, "process.env", scope, active, EMPTY)
            return
        if not key or not self.credential_name(key):
            return
        self.add_action(rule, holder or env, f"process.env.{key}", scope, active, EMPTY)

    def credential_name(self, key: str) -> bool:
        memo = self.rules.env_memo
        found = memo.get(key)
        if found is None:
            found = memo[key] = self.rules.credential_env.matches(key.upper())
        return found

    def add_action(
        self,
        rule: Rule,
        node: Node,
        target: str,
        scope: Scope,
        active: frozenset[str],
        taint: Taint,
        gates: Iterable[str] = (),
        sql_param: str | None = None,
    ) -> None:
        location = self.loc(node)
        scope.actions.append(
            trusted(
                ActionSite,
                id=short_id("act", self.path, location.line, location.column, rule.id),
                actionClass=rule.actionClass or "network.egress",
                impact=rule.impact or "medium",
                ruleId=rule.id,
                target=target,
                location=location,
                dominatingGates=sorted(set(active) | set(gates)),
                taint=sorted(taint, key=origin_key),
                sqlParam=sql_param,
            )
        )

    def value_shape(self, node: Node | None, taint: Taint, scope: Scope) -> tuple[SqlKind | None, bool]:
        """What a value is, for a SQL parameter it may be passed to: SQL fixed in the code that reads or
        writes; or (``whole``) exactly its one origin, unchanged: a parameter by its own name, a
        variable bound to it or to a call's result, or a call of the tree."""
        kinds = self.code.kinds
        inner = unwrap(node)
        if inner is None:
            return None, False
        kind = kinds[inner.kind_id]
        if any(o.kind == "field" for o in taint):
            # The instance's fields are set when it is configured (``${this.database}``), as ``constant``
            # reads them: they leave the text fixed here (what a tainted field carries, the linker adds).
            taint = frozenset(o for o in taint if o.kind != "field")
        if not taint:
            if kind in ("string", "template_string", "identifier"):
                text = self.constant(inner, scope, strict=True)
                if text is not None:
                    return sql_kind(text), False
            return None, False
        if len(taint) != 1:
            return None, False
        (origin,) = taint
        if kind == "call_expression":
            return None, origin.kind == "call_return"
        if kind == "identifier":
            name = self.code.text(inner)
            if name in scope.assembled:
                return None, False
            return None, origin.kind == "call_return" or (origin.kind == "param" and origin.param == name)
        return None, False

    def sql_param(self, args: list[Node], func: Node | None, scope: Scope) -> str | None:
        """The enclosing function's parameter that is a SQL sink's text, unchanged (``all(query) {
        this.db.all(query) }``): the sink then runs whatever SQL each caller passes."""
        node = self.sql_node(args, func)
        if node is None or node.type != "identifier":
            return None
        name = self.code.text(node)
        if name not in scope.params or name in scope.assembled:
            return None
        taint = scope.taint_of(name)
        return name if len(taint) == 1 and next(iter(taint)).param == name else None

    def sql_node(self, args: list[Node], func: Node | None) -> Node | None:
        """Where a SQL call's text is: ``prepare(sql)`` for ``db.prepare(sql).run(...)``, the ``text``
        (pg) or ``sql`` (mysql2) of a query object (``query({ text, values })``), or the first argument."""
        func = unwrap(func)
        if func is not None and func.type == "member_expression":
            receiver = unwrap(func.child_by_field_id(self.fields.object))
            if receiver is not None and receiver.type == "call_expression":
                inner = unwrap(receiver.child_by_field_id(self.fields.function))
                if (
                    inner is not None
                    and inner.type == "member_expression"
                    and self.code.raw(inner.child_by_field_id(self.fields.property)) == b"prepare"
                ):
                    inner_args = receiver.child_by_field_id(self.fields.arguments)
                    named = inner_args.named_children if inner_args is not None else []
                    return unwrap(named[0]) if named else None
        first = unwrap(args[0]) if args else None
        if first is not None and first.type == "object":
            props = self.code.props(first)
            return unwrap(props.get("text") or props.get("sql"))
        return first

    def sql_text(self, args: list[Node], func: Node | None, scope: Scope) -> str | None:
        """The SQL a call runs, when it is fixed in the code (see ``sql_node``)."""
        node = self.sql_node(args, func)
        if node is None or node.type not in ("string", "template_string", "identifier"):
            return None
        # A tagged template (``sql`... ${id}` ``) binds its substitutions as parameters: its constant
        # text is the SQL. Anywhere else a substitution is assembled into the text.
        tagged = node.type == "template_string" and node.parent is not None and node.parent.type == "call_expression"
        return self.constant(node, scope, strict=not tagged)

    def dispatch(self, func: Node | None, node: Node, scope: Scope) -> None:
        """``handlers[name](args)`` / ``tools[toolName].execute(args)`` / ``const h = map[k]; h()``."""
        rule = self.rules.dispatch_rule
        func = unwrap(func)
        if rule is None or func is None:
            return
        target = func
        if func.type == "member_expression":
            target = unwrap(func.child_by_field_id(self.fields.object)) or func
            method = self.code.text(func.child_by_field_id(self.fields.property))
            if target.type == "subscript_expression" and method not in rule.match.get("element_methods", ()):
                return  # ``lines[i].trim()``: a method of an element, not a function looked up by key
        if target.type == "identifier" and self.code.text(target) in scope.dispatch_vars:
            detail = f"{self.code.text(target)} holds a function looked up with a key chosen at run time"
        elif target.type == "subscript_expression":
            index = target.child_by_field_id(self.fields.index)
            if index is None or index.type in ("string", "number"):
                return
            if index.type == "identifier" and self.code.text(index) in scope.choices:
                return  # ``collection[m](...)`` with ``m`` one of a few literals: no key chosen at run time
            if func is target and self.model_keyed_table(target.child_by_field_id(self.fields.object), index, scope):
                return  # ``TOOL_MAP[parsed.tool_name](input)``: the table's functions are the model's tools
            detail = f"{self.code.text(target.child_by_field_id(self.fields.object)) or 'a table'}[...] is called with a key chosen at run time"
        else:
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

    def model_keyed_table(self, table: Node | None, index: Node, scope: Scope) -> bool:
        """``TOOL_MAP[toolName](input)`` with ``const TOOL_MAP = { executeCommand, fetchPage }`` at the top level and
        ``toolName`` taken from the model's answer: the model picks a function of the table by name, so each entry is
        a tool named by its key and run by its function (JS-TOOL-TABLE-001). False, and nothing made, for a table
        holding anything but functions named by reference, or a key the model's answer does not carry."""
        rule = self.rules.table_rule
        table = unwrap(table)
        if rule is None or table is None or table.type != "identifier":
            return False
        key = unwrap(index)
        base = key
        while base is not None and base.type == "member_expression":
            base = unwrap(base.child_by_field_id(self.fields.object))
        if base is None or base.type != "identifier":
            return False
        if not self.holds_model_answer(base, scope):
            return False
        entries = self.function_table(self.code.text(table))
        if not entries:
            return False
        resolved = [(name, at, self.resolve_name(self.code.text(value), None)) for name, at, value in entries]
        if not all(ok and function for _, _, (function, ok) in resolved):
            return False
        for name, at, (function, _) in resolved:
            tool = ToolDef.found(rule, name, self.loc(at), function=function)
            if function and name == function.rpartition("#")[2].rpartition(".")[2]:
                # Named as its function: one tool with any other definition of it, at the function's def.
                tool = tool.model_copy(update={"byFunction": True})
            self.tools.append(tool)
        return True

    def holds_model_answer(self, name: Node, scope: Scope) -> bool:
        """Whether the variable ``name`` holds part of the model's answer: its taint says so, or, once a check of it
        against the table cleaned that (``if (!TOOL_MAP[tool]) continue``), the value it was declared with
        (``let tool = parsed.tool_name``, ``parsed`` the model's answer parsed)."""
        if any(origin.kind == "model_output" for origin in scope.taint_of(self.code.text(name))):
            return True
        function = name.parent
        while function is not None and function.type not in FUNCTIONS and function.type != "program":
            function = function.parent
        wanted = self.code.raw(name)
        stack = [function] if function is not None else []
        while stack:
            node = stack.pop()
            if node.type == "variable_declarator" and self.code.raw(node.child_by_field_id(self.fields.name)) == wanted:
                value = unwrap(node.child_by_field_id(self.fields.value))
                while value is not None and value.type in ("member_expression", "subscript_expression"):
                    value = unwrap(value.child_by_field_id(self.fields.object))
                return (
                    value is not None
                    and value.type == "identifier"
                    and any(origin.kind == "model_output" for origin in scope.taint_of(self.code.text(value)))
                )
            stack.extend(c for c in node.named_children if c.type not in FUNCTIONS)
        return False

    def function_table(self, name: str) -> list[tuple[str, Node, Node]] | None:
        """The entries of the top-level object literal ``name`` is declared with, when each is a function named by
        reference (``{ executeCommand }``, ``{ run: executeCommand }``): (key, entry, the function's name)."""
        for stmt in self.root.named_children:
            declaration = stmt.child_by_field_id(self.fields.declaration) if stmt.type == "export_statement" else stmt
            if declaration is None or declaration.type not in ("lexical_declaration", "variable_declaration"):
                continue
            for declarator in declaration.named_children:
                if (
                    declarator.type != "variable_declarator"
                    or self.code.text(declarator.child_by_field_id(self.fields.name)) != name
                ):
                    continue
                value = unwrap(declarator.child_by_field_id(self.fields.value))
                if value is None or value.type != "object":
                    return None
                entries: list[tuple[str, Node, Node]] = []
                for entry in value.named_children:
                    if entry.type == "shorthand_property_identifier":
                        entries.append((self.code.text(entry), entry, entry))
                    elif entry.type == "pair":
                        held = unwrap(entry.child_by_field_id(self.fields.value))
                        key = self.code.key_name(entry.child_by_field_id(self.fields.key))
                        if held is None or held.type != "identifier" or not key:
                            return None
                        entries.append((key, entry, held))
                    elif entry.type != "comment":
                        return None
                return entries
        return None

    def frontier_tools(self, node: Node, name: str, args: list[Node], scope: Scope) -> None:
        rule = self.rules.frontier_tools(name)
        kind: FrontierKind
        if rule is not None:
            kind = (
                "runtime_registered_tools"
                if rule.match.get("frontier_kind", "runtime") == "runtime"
                else "config_registered_tools"
            )
            detail = f"tools obtained at run time through {name}; their reach is not visible to analysis"
        else:
            config = self.rules.config_rule
            if config is None or name not in config.match.get("config_file_reads", []):
                return
            path = self.constant(args[0], scope) if args else None
            if path is None or "tool" not in path.lower() or not path.endswith((".json", ".yaml", ".yml")):
                return
            rule, kind = config, "config_registered_tools"
            detail = f"tools read from {path}; their implementations are chosen at run time"
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

    def typed_call(self, callee: str, node: Node, scope: Scope) -> None:
        """A method called on a value typed by a type of the tree (``client.execute(cmd)`` with ``client:
        ISSHClient``, an interface of this file or an imported one): an ``unresolved_call`` site the linker keeps
        only when nothing in the tree answers the call (no class implements the type, no function returns
        what it names), so a call into code the tree does not hold stays visible."""
        rule = self.rules.unresolved_rule
        owner, _, method = callee.rpartition(".")
        local = owner.partition("#")[2]
        if rule is None or not method or not local or "." in local or callee in scope.reported:
            return
        if owner not in self.imports.own_types.values() and not (local[0].isupper() and owner in self.imported_names()):
            return
        scope.reported.add(callee)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "unresolved_call", self.path, scope.qualname, callee),
                kind="unresolved_call",
                detail=(
                    f"{callee} is a method of a type of the tree that no class or function of the tree implements; "
                    "what it runs is not visible"
                ),
                location=self.loc(node),
                ruleId=rule.id,
            )
        )

    def imported_names(self) -> frozenset[str]:
        """The names of the tree this file imports (``<module>#<Name>``), read once."""
        if self._imported_names is None:
            self._imported_names = frozenset(v for v in self.imports.aliases.values() if "#" in v)
        return self._imported_names

    def unresolved(self, func: Node | None, name: str, resolved: bool, node: Node, scope: Scope) -> None:
        """At most one ``unresolved_call`` per function and callee, for calls that could be anything:
        a bare name bound nowhere in the file, or a name imported through a project path alias."""
        rule = self.rules.unresolved_rule
        func = unwrap(func)
        if rule is None or func is None or name in scope.reported:
            return
        if not self.imports.unresolvable and func.type != "identifier":
            return  # (both cases below need one or the other; most calls on locals stop here)
        root = func
        while root.type == "member_expression":
            root = unwrap(root.child_by_field_id(self.fields.object)) or root
            if root.type != "member_expression":
                break
        if root.type != "identifier":
            return
        head = self.code.text(root)
        if head in self.imports.unresolvable and not scope.declared(head):
            detail = f"{name} is imported through a project path alias that one file cannot resolve"
        elif (
            func.type == "identifier"
            and not resolved
            and not scope.declared(head)
            and not self.module_scope.declared(head)
        ):
            if (
                head in self.rules.unresolved_skip
                or head in self.imports.aliases
                or head in self.imports.local_defs
                or self.code.bound_around(node, head)
            ):
                return
            detail = f"{name} is not defined, imported or known; what it runs is not visible to analysis"
        else:
            return
        scope.reported.add(name)
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "unresolved_call", self.path, scope.qualname, name),
                kind="unresolved_call",
                detail=detail,
                location=location,
                ruleId=rule.id,
            )
        )
