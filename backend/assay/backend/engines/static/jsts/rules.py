"""The JavaScript rules of the pack, compiled once per pack digest, with per-name lookups memoised.

Names repeat heavily across a tree (``console.log``, ``z.string``...), so each lookup caches its answer
by name: rule matching then costs one dict probe per call site.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assay.backend.engines.static.rules.js_globals import javascript_globals
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import Rule, RuleKind, RulePack

_Table = list[tuple[Rule, Patterns]]


class _Lookup:
    """First matching rule of a table, by name, memoised."""

    def __init__(self, table: _Table, accept: Callable[[Rule, str], bool] | None = None) -> None:
        self.table = table
        self.accept = accept
        self.memo: dict[str, Rule | None] = {}

    def __call__(self, name: str) -> Rule | None:
        try:
            return self.memo[name]
        except KeyError:
            pass
        found: Rule | None = None
        for rule, patterns in self.table:
            if patterns.matches(name) and (self.accept is None or self.accept(rule, name)):
                found = rule
                break
        self.memo[name] = found
        return found


class _SandboxLookup:
    """The first action rule for a call name: a rule naming it (``calls``), else, for a method of a remote
    sandbox's SDK (a package a gate rule lists under ``sandbox_sdks``), the first rule whose
    ``sandbox_methods`` ends the name (``executeSync``, ``commands.run``, ``fs.uploadFiles``): what the
    method does in the sandbox, whatever the client is called. Memoised."""

    def __init__(self, named: _Lookup, sdks: frozenset[str], methods: list[tuple[Rule, tuple[str, ...]]]) -> None:
        self.named = named
        self.table = named.table
        self.sdks = sdks
        self.methods = methods
        self.memo: dict[str, Rule | None] = {}

    def __call__(self, name: str) -> Rule | None:
        try:
            return self.memo[name]
        except KeyError:
            pass
        found = self.named(name)
        if found is None and self.of_sdk(name):
            found = next((rule for rule, suffixes in self.methods if name.endswith(suffixes)), None)
        self.memo[name] = found
        return found

    def of_sdk(self, name: str) -> bool:
        """Whether ``name`` is a member of a sandbox SDK (``@runloop/api-client.Runloop.devboxes...``)."""
        return "." in name and _package_of(name) in self.sdks


def _not_a_size(rule: Rule, name: str) -> bool:
    """A ceiling named for a size (``byteLimit``, ``MAX_FILE_SIZE``: the rule's ``size_names``) bounds how
    much is read or kept, not what is spent."""
    return not Patterns(rule.match.get("size_names", [])).matches(name)


def _not_excluded(rule: Rule, name: str) -> bool:
    return not any(name.startswith(p + ".") for p in rule.match.get("exclude_packages", []))


@dataclass(frozen=True)
class Classified:
    """Everything the rules say about one resolved call name (most names: nothing)."""

    gate: Rule | None = None
    tool: bool = False
    model: Rule | None = None
    taint_source: Rule | None = None
    network: bool = False
    frontier: Rule | None = None
    config_read: bool = False
    action: Rule | None = None
    command: bool = False

    @property
    def anything(self) -> bool:
        return self != NOTHING


NOTHING = Classified()


class JsRules:
    """Lookups over the ``language: javascript`` rules (their ``match`` keys: docs/rule-pack-javascript.md)."""

    def __init__(self, pack: RulePack) -> None:
        def of(kind: RuleKind) -> list[Rule]:
            return pack.for_language("javascript", kind)

        def pats(items: list[Rule], key: str) -> _Table:
            return [(r, Patterns(r.match[key])) for r in items if key in r.match]

        models, actions, gates, tools, frontier = of("model"), of("action"), of("gate"), of("tool"), of("frontier")
        self.model = _Lookup(pats(models, "calls"))
        self.model_command = _Lookup(pats(models, "commands"))
        # A ``model`` option naming a model a vendor's package exports, on a call the rules cannot name yet
        # (``ai.generate({ model: gemini20Flash })`` with ``ai`` from another module of the tree).
        self.option_model_rule = next((r for r in models if r.match.get("option_models")), None)
        self.taint_source = _Lookup(pats(of("taint_source"), "calls"))
        # Packages a generator writes into the project (Prisma's client at ``output = "../generated/prisma"``), by
        # the path endings they are written at: an import of one is that package.
        self.generated_packages: tuple[tuple[str, str], ...] = tuple(
            (ending, package)
            for r in actions
            for package, endings in r.match.get("generated_packages", {}).items()
            for ending in endings
        )
        # Methods chaining a runnable onto another (LangChain ``prompt.pipe(model).pipe(parser)``): the chain answers
        # as the model piped into it does.
        self.chain_methods: frozenset[str] = frozenset(
            m for r in of("taint_source") for m in r.match.get("chain_methods", ())
        )
        self.http_hosts = [(r, dict(r.match["http_hosts"])) for r in models if "http_hosts" in r.match]
        self.http_paths = [(r, dict(r.match["http_paths"])) for r in models if "http_paths" in r.match]
        # Remote sandbox SDKs (E2B, Daytona, Modal, Runloop, CodeSandbox...): a method of their clients is
        # classed by what it is named for (``sandbox_methods``), inside a sandbox gate.
        self.sandbox_sdks = frozenset(p for r in gates for p in r.match.get("sandbox_sdks", ()))
        self.action = _SandboxLookup(
            _Lookup(pats(actions, "calls")),
            self.sandbox_sdks,
            [(r, tuple("." + m for m in r.match["sandbox_methods"])) for r in actions if "sandbox_methods" in r.match],
        )
        self.action_command = _Lookup(pats(actions, "commands") + pats(actions, "command_patterns"), _not_excluded)
        self.network = _Lookup([(r, p) for r, p in pats(actions, "calls") if r.actionClass == "network.egress"])
        self.gate = _Lookup(pats(gates, "calls") + pats(gates, "name_patterns"))
        self.allowlist = _Lookup(pats(gates, "membership_names"))
        # A question put to a person with choices (``notifier.notify({ actions })``): the call patterns,
        # each with the option keys that offer the choices.
        self.choice_prompts = [
            (r, Patterns([p]), frozenset(k.encode() for k in keys))
            for r in gates
            for p, keys in r.match.get("choice_prompts", {}).items()
        ]
        self.choice_memo: dict[str, tuple[Rule, frozenset[bytes]] | None] = {}
        # Levels of a policy table that stop the effect (``Level.FORBIDDEN``, ``Level.REQUIRES_APPROVAL``),
        # by the constant's name upper-cased without underscores.
        self.refusing_level = _Lookup(pats(gates, "refusing_levels"))
        self.spend = _Lookup(pats(gates, "comparison_names"), _not_a_size)
        # A count of uses compared with its limit (``usage.queryCount >= usage.limit``): the rule, and the
        # names of counts and of limits.
        self.count_limits = [
            (r, Patterns(r.match["count_comparisons"]["counts"]), Patterns(r.match["count_comparisons"]["limits"]))
            for r in gates
            if "count_comparisons" in r.match
        ]
        self.value_check = next((r for r in gates if r.match.get("value_checks")), None)
        # Members a provider's API sets on the model's reply from its own vocabulary (``block.type``,
        # ``choice.finish_reason``): what the model returned, never what it may do.
        self.reply_kinds: frozenset[str] = frozenset(
            self.value_check.match.get("reply_kind_members", []) if self.value_check is not None else []
        )
        # Statement keywords that only read (``select``): a test refusing text that starts with one admits writes.
        self.read_only_prefixes: frozenset[str] = frozenset(
            w.lower() for w in (self.value_check.match.get("read_only_prefixes", []) if self.value_check else [])
        )
        self.path_check = next((r for r in gates if r.match.get("prefix_checks")), None)
        self.readonly_check = next((r for r in gates if r.match.get("readonly_flags")), None)
        self.readonly_flags = (
            re.compile(self.readonly_check.match["readonly_flags"], re.I) if self.readonly_check is not None else None
        )
        self.sandbox_target = _Lookup(
            pats(gates, "sandbox_targets")
            + [(r, Patterns(f"{p}.*" for p in r.match["sandbox_sdks"])) for r in gates if "sandbox_sdks" in r.match]
        )
        self.tool_property_gate = next((r for r in gates if "tool_property" in r.match), None)
        # Hooks that run before every tool call (``onToolStart``, ``PreToolUse``, ``canUseTool``).
        self.hook_gate = next((r for r in gates if "before_tool_hooks" in r.match), None)
        # A run's option holding every tool call of the run for approval (``{ requireToolApproval: true }``).
        self.run_approval = next((r for r in gates if "run_approval_options" in r.match), None)
        # Authentication middleware put in front of a route (``app.post("/mcp", requireAuth, handler)``).
        self.auth_middleware = next((r for r in gates if "middleware_names" in r.match), None)
        self.auth_names = Patterns(self.auth_middleware.match["middleware_names"] if self.auth_middleware else [])
        self.route_methods: frozenset[str] = frozenset(
            self.auth_middleware.match.get("route_methods", []) if self.auth_middleware else []
        )
        # Fastify hook phases that run before a route's handler (``addHook("onRequest", fn)``).
        self.hook_phases: frozenset[str] = frozenset(
            self.auth_middleware.match.get("hook_phases", []) if self.auth_middleware else []
        )
        # Decorators putting guard classes in front of a controller's routes (NestJS ``@UseGuards(G)``), and the
        # errors a guard throws for an unauthenticated request (the rest refuse as forbidden).
        self.guard_decorators: frozenset[str] = frozenset(
            self.auth_middleware.match.get("guard_decorators", []) if self.auth_middleware else []
        )
        self.unauthorized_errors: frozenset[str] = frozenset(
            self.auth_middleware.match.get("unauthorized_errors", []) if self.auth_middleware else []
        )
        # Statuses a middleware answers a refused request with (401: authentication, 403: permission).
        self.refusals: dict[int, Rule] = {s: r for r in gates for s in r.match.get("refusal_statuses", ())}
        self.object_tool = _Lookup(pats(tools, "object_tool_calls"))
        self.fn_tool = _Lookup(pats(tools, "fn_tool_calls"))
        self.builtin_tool = _Lookup(
            [(r, Patterns(r.match["builtin_tools"])) for r in tools if "builtin_tools" in r.match]
        )
        self.mcp_server = _Lookup(pats(tools, "mcp_server_types"))
        self.class_tool = _Lookup(pats(tools, "class_tool_bases"))
        self.code_tool = _Lookup(pats(tools, "code_tools"))
        # Tools a library's factory gives (``wiki()`` from ``@llamaindex/tools`` is ``wikipedia``): call
        # pattern -> (name, effects), the effects as (action class, impact) pairs.
        self.library_tools: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
            pattern: (spec["name"], tuple((c, i) for c, i in spec.get("effects", [])))
            for r in tools
            for pattern, spec in r.match.get("library_tools", {}).items()
        }
        self.library_tool = _Lookup(
            [(r, Patterns(r.match["library_tools"])) for r in tools if "library_tools" in r.match]
        )
        self.agent_class_tool = _Lookup(
            [
                (r, Patterns("*." + k for k in r.match["agent_class_tools"]))
                for r in tools
                if "agent_class_tools" in r.match
            ]
            + [(r, Patterns(r.match["agent_class_tools"])) for r in tools if "agent_class_tools" in r.match]
        )
        # Tool classes that wrap an agent given as an option (``new AgentTool({ agent })``): the class-name
        # suffix, with the options naming the agent.
        self.agent_option_tool = _Lookup(
            [
                (r, Patterns("*" + k for k in r.match["agent_tool_classes"]))
                for r in tools
                if "agent_tool_classes" in r.match
            ]
        )
        # A library's ready-made tool objects placed in a tools list by name (``tools: [GOOGLE_SEARCH]``):
        # exported name -> (rule, the name the model sees).
        self.builtin_objects: dict[str, tuple[Rule, str]] = {
            k: (r, v) for r in tools for k, v in r.match.get("builtin_tool_objects", {}).items()
        }
        # Calls that run an agent class of the tree (``this.runAgentTool(Cls, ...)``): method name -> the
        # agent's method that runs.
        self.agent_runners: dict[str, str] = {k: v for r in tools for k, v in r.match.get("agent_runners", {}).items()}
        # Lists of built-in tool names (``allowedTools: ["Bash", "Read"]``): (rule, keys, packages, name ->
        # (action class, impact) or None).
        self.builtin_lists = [
            (
                r,
                frozenset(k.encode() for k in r.match["builtin_lists"]["keys"]),
                frozenset(r.match["builtin_lists"]["packages"]),
                {
                    name: (tuple(effect) if effect else None)
                    for name, effect in r.match["builtin_lists"]["tools"].items()
                },
            )
            for r in tools
            if "builtin_lists" in r.match
        ]
        # Options whose agents the framework gives the model as one delegation tool (``subAgents``).
        self.subagent_tools: dict[bytes, tuple[Rule, str]] = {
            k.encode(): (r, v) for r in tools for k, v in r.match.get("subagent_options", {}).items()
        }
        self.subagent_calls = Patterns(c for r in tools for c in r.match.get("subagent_calls", ()))
        # Tools by role (any package): the rule that names their positional form and server prefixes.
        self.generic_tool = next((r for r in tools if "positional_names" in r.match), None)
        # ``class RiddleTool extends Tool { name = "Riddle"; _run() {...} }`` from any package: a tool by role.
        self.role_class_tool = next((r for r in tools if "class_tools" in r.match), None)
        # ``class SetTool { name = "set"; execute() {...} }`` gathered and served to a model: a tool by role.
        self.listed_class_rule = next((r for r in tools if "listed_classes" in r.match), None)
        self.call_requests = frozenset(
            c.encode() for r in tools for c in r.match.get("listed_classes", {}).get("call_requests", ())
        )
        self.literal_tools = [r for r in tools if "object_literal" in r.match and "hosted_types" not in r.match]
        # Function declarations handed to a model (Gemini ``functionDeclarations``): ``jsts/declarations.py``.
        self.declaration_rule = next((r for r in tools if "declaration_keys" in r.match), None)
        # A table of functions looked up by a key the model's answer holds (``TOOL_MAP[parsed.tool](x)``).
        self.table_rule = next((r for r in tools if r.match.get("model_keyed_tables")), None)
        # Where a tool-shaped literal only shapes or checks data (``schema_uses``): reply options, checks.
        self.schema_only_keys = frozenset(k for r in tools for k in r.match.get("schema_only_keys", ()))
        self.schema_only_calls = Patterns(c for r in tools for c in r.match.get("schema_only_calls", ()))
        self.hosted_tool = next((r for r in tools if "hosted_types" in r.match), None)
        # Tools placed under a key (``{ weather: weatherTool }``), and the calls whose ``tools`` object
        # is a model's tool set (every key a tool).
        self.placement_rule = next((r for r in tools if "tool_sets" in r.match), None)
        self.tool_sets = Patterns(self.placement_rule.match["tool_sets"] if self.placement_rule else [])
        # Options under which a call is given a model's tools (``tools: [...]``): every element a tool.
        self.tool_list_keys = frozenset(
            k.encode() for k in (self.placement_rule.match.get("tool_list_keys", []) if self.placement_rule else [])
        )
        # Tool definitions written as objects (``{ name, description, handler }``).
        self.definition_rule = next((r for r in tools if "definition_objects" in r.match), None)
        # Calls whose callback receives what the model sends a tool (MCP ``setRequestHandler``).
        self.request_handler = _Lookup(pats(tools, "request_handlers"))
        self.frontier_tools = _Lookup(pats(frontier, "calls"))
        self.dispatch_rule = next((r for r in frontier if r.match.get("dynamic_dispatch")), None)
        self.config_rule = next((r for r in frontier if r.match.get("json_tool_imports")), None)
        # The general rule for SDKs the pack does not list: an awaited call into a third-party package.
        self.client_rule = next((r for r in actions if "client_calls" in r.match), None)
        client = self.client_rule.match if self.client_rule is not None else {}
        self.local_packages = Patterns(client.get("local_packages", []))
        # Classes whose objects are a service's client (``*Client``): every method of one talks to the service.
        classes = client.get("client_classes", [])
        self.client_classes = Patterns(classes) if classes else None
        self.local_memo: dict[str, bool] = {}
        # Packages some rule already models: their other calls (a pool's ``getConnection``, a sandbox's
        # ``kill``) are plumbing around the calls that rule names, not a service nobody listed.
        self._pack_rules = pack.rules
        self._modelled: frozenset[str] | None = None
        # A rule naming only a package's token fetches (``googleapis.google.auth.GoogleAuth.getAccessToken``)
        # says nothing of its other calls (``calendar.events.insert``): those still talk to the service.
        self.known_packages = frozenset(
            _package_of(pattern)
            for rule in pack.rules
            if rule.language == "javascript" and not (rule.kind == "action" and rule.actionClass == "credential.read")
            for key in (
                "calls",
                "commands",
                "command_patterns",
                "sandbox_targets",
                "sandbox_sdks",
                "object_tool_calls",
                "fn_tool_calls",
            )
            for pattern in rule.match.get(key, ())
            if isinstance(pattern, str) and not pattern.startswith("*")
        )
        self.classified: dict[str, Classified] = {}
        # Types of the platform that no import names, which rules match on (``SqlStorage.exec``).
        self.global_types = frozenset(
            t for r in pack.rules if r.language == "javascript" for t in r.match.get("global_types", ())
        )
        # A package's client type named where no value is built (``apiClient: AxiosInstance``), by what
        # builds such a client (``axios.create``): a value so typed is that call's result.
        self.client_types: dict[str, str] = {
            typ: built
            for r in pack.rules
            if r.language == "javascript"
            for typ, built in r.match.get("client_types", {}).items()
        }
        self.by_id = {r.id: r for r in actions}
        self.message_hosts = [(r, tuple(r.match["http_hosts"])) for r in actions if "http_hosts" in r.match]
        # HTTP calls whose URL names an endpoint of a class of its own (a payment API's capture or refund).
        self.url_paths = [(r, Patterns(r.match["url_paths"])) for r in actions if "url_paths" in r.match]
        self.credential = next((r for r in actions if "env_names" in r.match), None)
        self.credential_env = Patterns(self.credential.match["env_names"] if self.credential is not None else [])
        self.env_memo: dict[str, bool] = {}
        # Every name ``classify`` could say something about, bar its three special cases.
        self.any_call = Patterns.union(
            patterns
            for lookup in (
                self.gate,
                self.object_tool,
                self.fn_tool,
                self.builtin_tool,
                self.agent_class_tool,
                self.agent_option_tool,
                self.code_tool,
                self.library_tool,
                self.model,
                self.taint_source,
                self.network,
                self.frontier_tools,
                self.action,
            )
            for _, patterns in lookup.table
        )
        self.config_reads = frozenset(self.config_rule.match.get("config_file_reads", []) if self.config_rule else [])
        self.unresolved_rule = next((r for r in frontier if r.match.get("unresolved_calls")), None)
        unresolved = self.unresolved_rule.match if self.unresolved_rule else {}
        self.unresolved_skip = frozenset(unresolved.get("skip", [])) | (
            javascript_globals() if unresolved.get("skip_globals") else frozenset()
        )

    def choice_prompt(self, name: str) -> tuple[Rule, frozenset[bytes]] | None:
        """The rule and the option keys of a call that puts a question with choices to a person."""
        if name not in self.choice_memo:
            self.choice_memo[name] = next(
                ((rule, keys) for rule, patterns, keys in self.choice_prompts if patterns.matches(name)), None
            )
        return self.choice_memo[name]

    def level_rule(self, constant: str) -> Rule | None:
        """The gate rule of a policy level that stops the effect (``Level.REQUIRES_APPROVAL``,
        ``Decision.Deny``), by the constant's last name upper-cased without underscores."""
        return self.refusing_level(constant.rpartition(".")[2].replace("_", "").upper())

    def modelled_package(self, package: str) -> bool:
        """Whether some JavaScript rule names ``package`` in any of its patterns: itself, or a family it
        belongs to (``@langchain/``, ``@aws-sdk/client-``). Read broadly (every string of every rule's
        match): a name taken for a package here only keeps the reading every import of it had before."""
        if self._modelled is None:
            self._modelled = frozenset(
                _package_of(text)
                for rule in self._pack_rules
                if rule.language == "javascript"
                for text in _strings(rule.match)
                if text and not text.startswith("*")
            )
        if package in self._modelled:
            return True
        return any(known.endswith(("/", "-")) and package.startswith(known) for known in self._modelled)

    def local_package(self, package: str) -> bool:
        """Whether calls into ``package`` stay in the process (Node built-ins, validation, formatting,
        the agent frameworks whose calls are model uses), by the general rule's list, or are modelled
        by a rule of their own."""
        found = self.local_memo.get(package)
        if found is None:
            found = self.local_memo[package] = package in self.known_packages or self.local_packages.matches(package)
        return found


def _strings(value: object) -> Iterator[str]:
    """Every string in a rule's match data (lists, objects, nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _package_of(name: str) -> str:
    """The package a resolved name or pattern starts with (``@scope/pkg`` or ``pkg``)."""
    if name.startswith("@"):
        scope, _, rest = name.partition("/")
        return f"{scope}/{rest.split('.', 1)[0].split('*', 1)[0]}"
    return name.split(".", 1)[0].split("*", 1)[0]


_COMPILED: dict[str, JsRules] = {}


def compile_rules(pack: RulePack) -> JsRules:
    """The pack's JavaScript rules, compiled once per pack digest."""
    compiled = _COMPILED.get(pack.digest)
    if compiled is None:
        compiled = _COMPILED[pack.digest] = JsRules(pack)
    return compiled


def classify(rules: JsRules, name: str) -> Classified:
    """What the rules say about a call name, memoised per name."""
    memo = rules.classified
    found = memo.get(name)
    if found is None:
        owner, _, method = name.rpartition(".")
        if (
            not rules.any_call.matches(name)
            and not rules.action.of_sdk(name)
            and method not in ("tool", "registerTool", "registerToolTask", "addTool", "send")
            and name not in rules.config_reads
        ):
            memo[name] = NOTHING  # most names: no rule pattern could match them
            return NOTHING
        found = Classified(
            gate=rules.gate(name),
            tool=rules.object_tool(name) is not None
            or rules.fn_tool(name) is not None
            or rules.builtin_tool(name) is not None
            or rules.agent_class_tool(name) is not None
            or rules.agent_option_tool(name) is not None
            or rules.code_tool(name) is not None
            or rules.library_tool(name) is not None
            or (method in ("tool", "registerTool", "registerToolTask") and rules.mcp_server(owner) is not None)
            or (rules.generic_tool is not None and method in rules.generic_tool.match["positional_names"]),
            model=rules.model(name),
            taint_source=rules.taint_source(name),
            network=rules.network(name) is not None,
            frontier=rules.frontier_tools(name),
            config_read=name in rules.config_reads,
            action=rules.action(name),
            command=name.endswith(".send"),
        )
        if found == NOTHING:
            found = NOTHING
        memo[name] = found
    return found
