"""The rule pack's Python rules, compiled once per rule pack for the analyzer (``pyast/frontend.py``).

Besides the tables of each kind, ``CallProfile`` gathers everything the rules say about one callee
name (is it a model API, an action, a gate, a tool registration...): a call site then costs one dict
probe instead of a lookup in each table.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from assay.backend.engines.static.rules.match import Patterns, RuleTable
from assay.backend.engines.static.rules.pack import Rule, RuleKind, RulePack


def display_name(name: str) -> str:
    """A readable API name: ``pathlib.Path.resolve.parent.write_text`` is shown as ``pathlib.Path.write_text``."""
    if name.startswith("pathlib.Path.") and name.count(".") > 2:
        return "pathlib.Path." + name.rsplit(".", 1)[-1]
    return name


@dataclass(frozen=True)
class CallProfile:
    """What the rules say about calls to one (resolved) name."""

    display: str  # ``display_name(name)``
    model: Rule | None  # the first model rule for the name
    http_egress: bool  # an egress call that may reach a model host (``_http_model``)
    frontier: tuple[Rule, ...]  # frontier rules: tools obtained at run time through the call
    tool_call: Rule | None  # a call that registers a tool (``StructuredTool.from_function(f)``)
    tool_list: bool  # a call that may be given a list of tools
    tool_object: Rule | None  # a tool object dispatched by its name (``mcp.types.Tool(name=...)``)
    actions: tuple[Rule, ...]  # action rules for the displayed name, in rule-pack order
    gate: Rule | None  # the first gate rule for the name
    action_gate: Rule | None  # ``gate`` unless the call is an action too (then it is gated where it runs)
    unconditional: bool  # a gate that holds from where it runs, even when its result is only assigned
    held: bool  # a gate that holds after the statement it runs in, in any expression (``interrupt``)
    response: bool = False  # a method on a response an action rule returned (``client.get(url).json()``)
    # A method of an agent or engine that runs what its model writes (``NLSQLTableQueryEngine(...).query``):
    # its answer is model output.
    model_answer: bool = False
    # Action rules marked ``alongside``: what the call also does besides its first action (boto3's
    # ``upload_file`` sends a file and reads it from the local disk), each reported at the call too.
    alongside: tuple[Rule, ...] = ()


@dataclass(frozen=True)
class CompiledRules:
    """The Python rules of one rule pack by what they match, and answers per name, memoised (like the
    ``RuleTable`` answers: kept for the life of the process, one entry per distinct name)."""

    models: RuleTable
    http_hosts: list[tuple[Rule, dict[str, str]]]
    actions: RuleTable
    egress: RuleTable
    sql_grant: Rule | None
    gates: RuleTable  # call rules first, then name-pattern rules
    gate_decorators: list[tuple[Rule, Patterns]]
    allowlist: RuleTable
    spend: RuleTable
    tool_decorators: list[tuple[Rule, Patterns]]
    tool_decorator_attrs: list[tuple[Rule, frozenset[str]]]
    tool_decorator_on: list[tuple[Rule, frozenset[str]]]
    # ``decorator_attrs_on`` by attribute: the rules, each with the classes that attribute is a decorator on.
    receiver_attrs: dict[str, tuple[tuple[Rule, tuple[str, ...]], ...]]
    receiver_types: frozenset[str]  # every class ``receiver_attrs`` names: the tool registries of the pack
    tool_calls: RuleTable
    tool_classes: list[tuple[Rule, frozenset[str]]]
    tool_dicts: list[Rule]
    frontier_tools: RuleTable
    frontier_runtime: dict[str, frozenset[str]]  # rule id -> names that register tools at run time
    dispatch_rule: Rule | None
    assigned_gates: Patterns  # gate calls that hold from where they run, even when only assigned
    tool_lists: list[tuple[Rule, Patterns, tuple[int | str, ...]]]  # (rule, call, where the list is)
    tool_list_calls: RuleTable  # the same calls, memoised: most calls are not one
    unresolved_rule: Rule | None
    context_gates: RuleTable
    unresolved_skip: frozenset[str]
    sql_exec: Rule | None  # raw SQL whose text is not a literal (``cursor.execute(q)``)
    db_read: Rule | None  # raw SQL whose literal text reads (``SELECT``)
    messaging: tuple[Rule, tuple[str, ...]] | None  # HTTP to a messaging API's host is ``message.send``
    # HTTP that asks for an OAuth token (a token URL, a ``grant_type`` in its body) is ``credential.read``
    token_fetch: tuple[Rule, tuple[str, ...], frozenset[str]] | None
    compared_gates: Patterns  # gate calls that count only where their answer is compared (``input``)
    # Calls asking a person through the client (``ctx.elicit``) that approve only when the answer is a yes or
    # no: (calls, keywords naming the answer's type, types that are a yes or no).
    yes_no_asks: tuple[Patterns, tuple[str, ...], frozenset[str]] | None
    server_kwargs: tuple[tuple[Rule, frozenset[str]], ...]  # a server's keywords that gate all its tools
    # A tool's own keywords handing it a check run before it (``auth=require_roles(...)``), and the words that make
    # that check a permission check rather than authentication.
    tool_auth_kwargs: tuple[tuple[Rule, frozenset[str], tuple[str, ...]], ...]
    # Middleware added to a server or the HTTP app it makes: (rule, attach methods, app methods, auth names,
    # the server constructor's keywords listing its middleware).
    server_middleware: tuple[Rule, frozenset[str], frozenset[str], Patterns, frozenset[str]] | None
    # Middleware refusing requests whose Host is not listed (``TrustedHostMiddleware``): (names, host keyword).
    host_middleware: tuple[Patterns, str] | None
    # How a server is served over stdio only, where no request carries a token for its auth= to check:
    # (run methods, local transports, stdio-only run methods, HTTP app methods).
    stdio_runs: tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None
    approval_kwargs: tuple[tuple[Rule, frozenset[str]], ...]  # tool flags that require approval or run guardrails
    # The agent a registration names as the one running the tool (AutoGen's ``executor=``), when it asks a person
    # before each reply (``human_input_mode``, by keyword or by its class's default).
    executor_modes: tuple[Rule, dict[str, Any]] | None
    switch_kwargs: tuple[tuple[Rule, frozenset[str]], ...]  # tool flags a setting turns off (``enabled=``)
    prefix_gate: tuple[Rule, frozenset[str], tuple[str, ...]] | None  # ``resolved.startswith(root)``
    collection_gate: Rule | None  # membership in, or a lookup of, a module-level literal collection
    callable_classes: tuple[tuple[Rule, str, str, frozenset[str]], ...]  # (rule, name attr, method, markers)
    handler_attrs: frozenset[str]  # decorators naming the function that runs every tool of a server
    handler_kwargs: dict[str, str]  # constructor -> the keyword naming that function
    route_decorators: dict[str, tuple[Rule, str]]  # ``fastapi.APIRouter.post`` -> (rule, HTTP method)
    route_servers: frozenset[str]  # calls serving a web app's routes to a model as MCP tools (``FastApiMCP``)
    serving_kwargs: tuple[tuple[Rule, frozenset[str]], ...]  # ``launch(mcp_server=True)``: functions served as tools
    vendors: dict[str, str]  # a vendor's name in model strings and settings -> its provider
    base_url_kwargs: frozenset[str]  # a model client's keywords naming the host it talks to (``base_url=``)
    base_url_providers: frozenset[str]  # providers whose protocol other hosts serve (OpenAI-compatible clients)
    key_names: dict[str, Patterns]  # rule id -> names of variables that hold credentials
    library_tools: dict[str, tuple[Rule, LibraryTool]]
    # The methods through which a library tool runs (``_run``, ``invoke``): a subclass defining one acts
    # where that method hands the call to the library's (``super()._run(query)``), not where it is built.
    library_run_methods: frozenset[str]
    toolkits: dict[str, Toolkit]
    toolkit_methods: frozenset[str]  # ``toolkit.get_tools()``, ``spec.to_tool_list()``: where tools are taken
    unknown_toolkit: Rule | None  # frontier rule for a toolkit or tool spec the pack does not describe
    spec_classes: tuple[tuple[Rule, frozenset[str], str], ...]  # (rule, bases, attr naming the tool methods)
    toolkit_classes: tuple[ToolkitClass, ...]  # toolkits written in the code (Agno ``Toolkit`` subclasses)
    gate_by_kind: dict[str, Rule]  # the first gate rule of each kind (gates a library tool brings)
    # ``asyncio.to_thread(f, *args)``: runner -> position of ``f``; ``threading.Thread(target=f, args=(...))``: its keyword
    callback_runners: dict[str, int | str]
    context_generics: dict[str, str]  # ``RunContext[Deps]`` -> ``deps``: the attribute holding the ``Deps``
    # ``ctx: Context`` of an MCP server -> ``request_context.lifespan_context``: where it holds what the server's
    # lifespan yields.
    lifespan_contexts: dict[str, str]
    attribute_gate: tuple[Rule, frozenset[str], Patterns] | None  # ``if not creds.valid:`` (attrs, receivers)
    # ``if role != "admin": raise PermissionError``: exceptions whose raising says what the test checked.
    denials: tuple[tuple[Rule, Patterns], ...]
    # HTTP statuses an exception raised with refuses by (``HTTPException(status_code=401)``): status -> rule.
    denial_statuses: dict[int, Rule]
    # Calls giving the common path of a root and a path (``os.path.commonpath``), compared with the root.
    common_paths: tuple[Rule, frozenset[str]] | None
    # Attributes listing a path's parent directories (``root in p.parents``): a containment test.
    parent_lists: tuple[Rule, frozenset[str]] | None
    # ``if ".." in path: return``: substrings that climb out of a directory, a path refused when it holds one.
    traversal_markers: tuple[Rule, frozenset[str]] | None
    # ``if decision != "APPROVED": return``: words a decision is compared with (allowing, refusing), upper case.
    decision_words: tuple[Rule, frozenset[str], frozenset[str]] | None
    # ``for p in PATTERNS: if re.search(p, text): return``: searches that make a literal list of patterns a deny list.
    deny_searches: tuple[Rule, frozenset[str]] | None
    statement_prefixes: tuple[Rule, frozenset[str]] | None  # ``startswith("SELECT")`` tests: statement kinds
    kind_checks: tuple[Rule, Patterns] | None  # checks named for the kind of query they admit
    tool_objects: RuleTable  # ``Tool(name=..., inputSchema=...)`` objects whose name a dispatch selects
    # Objects that only hold tool objects (Gemini ``Tool(function_declarations=[...])``): no tool of their own.
    tool_containers: Patterns
    # Code agents' executors that are sandboxes: (rule, keyword -> values naming one, executor constructors).
    executor_sandbox: tuple[Rule, dict[str, frozenset[str]], Patterns] | None
    sandbox_rule: Rule | None  # the gate of actions that run inside a sandbox by what they are (``sandboxed``)
    callback_types: dict[str, dict[str, str]]  # call -> keyword -> the type of the callback's first parameter
    # Message classes offered by registration (Langroid ``ToolMessage`` + ``enable_message``): the rule, the
    # bases, the attribute naming the tool and the class's handler methods; registering methods -> the offer
    # keyword and the suffixes of the agent's handler methods; the library's message classes by package.
    message_classes: tuple[Rule, frozenset[str], str, tuple[str, ...]] | None
    message_registers: dict[str, tuple[str, tuple[str, ...]]]
    library_messages: dict[str, dict[str, LibraryTool]]
    # Where a tool-shaped schema literal only shapes or checks data (``schema_uses``): keywords of a
    # reply's shape (``response_format=``) and calls that check or write data (``jsonschema.validate``).
    # Calls whose result is the answer of an agent's model (pydantic-ai ``agent.run_sync(q)``, read as ``.output``).
    answer_calls: frozenset[str] = frozenset()
    # Classes whose instances answer with model output when called (a DSPy module: ``coder(task=t)`` on
    # ``coder = dspy.Predict(sig)``); their construction asks nothing.
    answer_instances: frozenset[str] = frozenset()
    # What a factory's instance makes when called (``SessionLocal = sessionmaker(...)``; ``SessionLocal()`` is a
    # ``sqlalchemy.orm.Session``): a call on what it made is read as the made type's (``instances_make``).
    instances_make: dict[str, str] = field(default_factory=dict)
    # What the action rules call methods on, by the call that made it (``asyncpg.create_pool`` for
    # ``asyncpg.create_pool.acquire.fetch``): a value a package function returns that the pack acts on.
    rule_receivers: frozenset[str] = frozenset()
    # A dict of functions looked up by a key the model's answer holds (``TOOL_MAP[parsed["tool"]](x)``).
    table_rule: Rule | None = None
    # The methods raw SQL rules name (``execute``, ``fetch``...): calls whose SQL text the linker may class.
    sql_methods: frozenset[str] = frozenset()
    # Defaults that hand a parameter what a function gives (``db=Depends(get_db)``): the markers.
    dependency_markers: frozenset[str] = frozenset()
    # Holders whose type argument is what a getter gives (``ContextVar[AsyncSession]``'s ``get()``): holder -> getters.
    generic_getters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Files a call makes and hands back to be written (``tempfile.NamedTemporaryFile``): see ``_written_file``.
    temp_files: frozenset[str] = frozenset()
    # LangGraph graphs: the calls adding a node function, the builder's compile method, the compiled graph's runs.
    graph_adders: frozenset[str] = frozenset()
    graph_compile: str = "compile"
    graph_runs: tuple[str, ...] = ()
    schema_only_kwargs: frozenset[str] = frozenset()
    schema_only_calls: Patterns = field(default_factory=lambda: Patterns(()))
    profiles: dict[str, CallProfile] = field(default_factory=dict)
    decorators: dict[str, tuple[Rule | None, tuple[Rule, ...]]] = field(default_factory=dict)

    @functools.cached_property
    def binds_only(self) -> frozenset[str]:
        """The ids of the tool-list rules whose call only gives the model the schemas (``llm.bind_tools(tools)``)."""
        return frozenset(r.id for r, _, _ in self.tool_lists if r.match.get("binds_only"))

    def vendor_split(self, model: str) -> tuple[str, str] | None:
        """``"openai:gpt-4o"`` -> ``("openai", "gpt-4o")``, ``"ollama/gemma2:27b"`` -> ``("ollama", "gemma2:27b")``:
        the provider and the id after it when the text before the model string's first ``/`` or ``:`` is a
        vendor prefix the pack knows (LiteLLM's semantics: the first segment is a provider only when it is one;
        ``"gemma2:27b"`` names none, and the rest is kept as written)."""
        cut = min((i for i in (model.find("/"), model.find(":")) if i > 0), default=-1)
        vendor = self.vendors.get(model[:cut]) if cut > 0 else None
        return (vendor, model[cut + 1 :]) if vendor is not None else None

    def decorator(self, name: str) -> tuple[Rule | None, tuple[Rule, ...]]:
        """For a decorator ``@name``: the tool rule it makes a tool by, and the gate rules it is a gate by."""
        found = self.decorators.get(name)
        if found is None:
            gates = tuple(rule for rule, patterns in self.gate_decorators if patterns.matches(name))
            found = self.decorators[name] = (self._tool_decorator(name), gates)
        return found

    def _tool_decorator(self, name: str) -> Rule | None:
        for rule, patterns in self.tool_decorators:
            if patterns.matches(name):
                return rule
        for rule, attrs in self.tool_decorator_attrs:
            if name.rsplit(".", 1)[-1] in attrs:
                return rule
        for rule, full in self.tool_decorator_on:
            if name in full:
                return rule
        return None

    def made_name(self, name: str) -> str:
        """``sqlalchemy.orm.sessionmaker.add`` (a method on what a session factory's instance made when called,
        named after the factory by the analyzer) -> ``sqlalchemy.orm.Session.add``; other names unchanged."""
        made = self.instances_make
        if not made or "." not in name:
            return name
        head = name
        while "." in head:
            head = head.rsplit(".", 1)[0]
            product = made.get(head)
            if product is not None:
                return product + name[len(head) :]
        return name

    def profile(self, name: str) -> CallProfile:
        """The rules about calls to ``name``, memoised: names repeat heavily across a tree."""
        found = self.profiles.get(name)
        if found is None:
            found = self.profiles[name] = self._profile(name)
        return found

    def _profile(self, name: str) -> CallProfile:
        name = self.made_name(name)
        display = display_name(name)
        gate = self.gates.first(name)
        actions = self.actions.all(display)
        response = False
        if actions and "." in display:
            # ``client.get(url).json()``: a method on what a matching call returned (the response) is that
            # call's own result being read, not another action, for rules that say so (``response_local``).
            parent = self.actions.all(display.rsplit(".", 1)[0])
            kept = tuple(r for r in actions if not (r.match.get("response_local") and any(p is r for p in parent)))
            response, actions = len(kept) < len(actions), kept
        alongside = tuple(r for r in actions if r.match.get("alongside"))
        if alongside:
            actions = tuple(r for r in actions if not r.match.get("alongside"))
        action_gate = gate if gate is not None and not actions else None
        owner = display.rpartition(".")[0]
        model_answer = display in self.answer_calls or (
            bool(owner) and any(r.match.get("model_written") for r in self.actions.all(owner))
        )
        return CallProfile(
            display=display,
            model=self.models.first(name),
            http_egress=bool(self.http_hosts) and self.egress.first(name) is not None,
            frontier=self.frontier_tools.all(name),
            tool_call=self.tool_calls.first(name),
            tool_list=self.tool_list_calls.first(name) is not None,
            tool_object=self.tool_objects.first(name),
            actions=actions,
            gate=gate,
            action_gate=action_gate,
            unconditional=action_gate is not None
            and (action_gate.gateKind == "sandbox" or self.assigned_gates.matches(name)),
            held=action_gate is not None and self.assigned_gates.matches(name),
            response=response,
            model_answer=model_answer,
            alongside=alongside,
        )


_COMPILED: dict[str, CompiledRules] = {}


def compile_rules(rules: RulePack) -> CompiledRules:
    """The compiled Python rules of a rule pack, made once per pack digest."""
    cached = _COMPILED.get(rules.digest)
    if cached is not None:
        return cached

    def of(kind: RuleKind) -> list[Rule]:
        return rules.for_language("python", kind)

    gates = of("gate")
    tools = of("tool")
    frontier = of("frontier")
    actions = [(r, Patterns(r.match["calls"])) for r in of("action") if "calls" in r.match]
    actions += _library_tool_runs(of("action"), tools)
    compiled = CompiledRules(
        models=RuleTable((r, Patterns(r.match["calls"])) for r in of("model") if "calls" in r.match),
        http_hosts=[(r, dict(r.match["http_hosts"])) for r in of("model") if "http_hosts" in r.match],
        actions=RuleTable(actions),
        egress=RuleTable((r, p) for r, p in actions if r.actionClass == "network.egress"),
        sql_grant=next((r for r in of("action") if r.match.get("sql_grant")), None),
        # ``first_match(calls) or first_match(names)`` is the first match over the two in sequence.
        gates=RuleTable(
            [(r, Patterns(r.match["calls"])) for r in gates if "calls" in r.match]
            + [(r, Patterns(r.match["name_patterns"])) for r in gates if "name_patterns" in r.match]
        ),
        gate_decorators=[
            (r, Patterns(r.match["decorator_patterns"])) for r in gates if "decorator_patterns" in r.match
        ],
        allowlist=RuleTable((r, Patterns(r.match["membership_names"])) for r in gates if "membership_names" in r.match),
        spend=RuleTable((r, Patterns(r.match["comparison_names"])) for r in gates if "comparison_names" in r.match),
        tool_decorators=[(r, Patterns(r.match["decorators"])) for r in tools if "decorators" in r.match],
        tool_decorator_attrs=[
            (r, frozenset(r.match["decorator_attrs"])) for r in tools if "decorator_attrs" in r.match
        ],
        tool_decorator_on=[
            (r, frozenset(f"{cls}.{attr}" for cls, attrs in r.match["decorator_attrs_on"].items() for attr in attrs))
            for r in tools
            if "decorator_attrs_on" in r.match
        ],
        receiver_attrs=_receiver_attrs(tools),
        receiver_types=frozenset(cls for r in tools for cls in r.match.get("decorator_attrs_on", {})),
        tool_calls=RuleTable((r, Patterns(r.match["calls"])) for r in tools if "calls" in r.match),
        tool_classes=[(r, frozenset(r.match["class_bases"])) for r in tools if "class_bases" in r.match],
        tool_dicts=[r for r in tools if "dict_literal" in r.match],
        schema_only_kwargs=frozenset(k for r in tools for k in r.match.get("schema_only_kwargs", [])),
        schema_only_calls=Patterns(c for r in tools for c in r.match.get("schema_only_calls", [])),
        frontier_tools=RuleTable((r, Patterns(r.match["calls"])) for r in frontier if "calls" in r.match),
        frontier_runtime={r.id: frozenset(r.match.get("runtime", [])) for r in frontier if "calls" in r.match},
        serving_kwargs=tuple(
            (r, frozenset(r.match["serving_kwargs"])) for r in frontier if "serving_kwargs" in r.match
        ),
        dispatch_rule=next((r for r in frontier if r.match.get("dynamic_dispatch")), None),
        assigned_gates=Patterns(name for r in gates for name in r.match.get("assigned_calls", [])),
        tool_lists=[
            (r, Patterns([call]), tuple(where))
            for r in tools
            for call, where in sorted(r.match.get("tool_lists", {}).items())
        ],
        context_gates=RuleTable((r, Patterns(r.match["context_calls"])) for r in gates if "context_calls" in r.match),
        tool_list_calls=RuleTable((r, Patterns(r.match["tool_lists"])) for r in tools if "tool_lists" in r.match),
        unresolved_rule=next((r for r in frontier if r.match.get("unresolved_calls")), None),
        unresolved_skip=frozenset(
            name for r in frontier if r.match.get("unresolved_calls") for name in r.match.get("skip", [])
        ),
        sql_exec=next((r for r in of("action") if r.actionClass == "sql.exec"), None),
        db_read=next((r for r in of("action") if r.actionClass == "db.read"), None),
        messaging=next(
            ((r, tuple(r.match["messaging_hosts"])) for r in of("action") if "messaging_hosts" in r.match), None
        ),
        token_fetch=next(
            (
                (r, tuple(r.match["token_urls"]), frozenset(r.match.get("token_body_keys", ())))
                for r in of("action")
                if "token_urls" in r.match
            ),
            None,
        ),
        compared_gates=Patterns(name for r in gates for name in r.match.get("compared_calls", [])),
        yes_no_asks=next(
            (
                (
                    Patterns(r.match["yes_no_asks"]["calls"]),
                    tuple(r.match["yes_no_asks"]["type_keywords"]),
                    frozenset(r.match["yes_no_asks"]["yes_no_types"]),
                )
                for r in gates
                if "yes_no_asks" in r.match
            ),
            None,
        ),
        server_kwargs=tuple((r, frozenset(r.match["server_kwargs"])) for r in gates if "server_kwargs" in r.match),
        tool_auth_kwargs=tuple(
            (r, frozenset(r.match["tool_kwargs"]), tuple(r.match.get("permission_words", ())))
            for r in gates
            if "tool_kwargs" in r.match
        ),
        server_middleware=next(
            (
                (
                    r,
                    frozenset(r.match["server_middleware"]["attach"]),
                    frozenset(r.match["server_middleware"]["apps"]),
                    Patterns(r.match["server_middleware"]["names"]),
                    frozenset(r.match["server_middleware"].get("kwargs", [])),
                )
                for r in gates
                if "server_middleware" in r.match
            ),
            None,
        ),
        host_middleware=next(
            (
                (
                    Patterns(r.match["server_middleware"]["host_lists"]["names"]),
                    str(r.match["server_middleware"]["host_lists"]["kwarg"]),
                )
                for r in gates
                if "host_lists" in r.match.get("server_middleware", {})
            ),
            None,
        ),
        stdio_runs=next(
            (
                (
                    frozenset(r.match["stdio_runs"]["runs"]),
                    frozenset(r.match["stdio_runs"]["local_transports"]),
                    frozenset(r.match["stdio_runs"]["local_runs"]),
                    frozenset(r.match.get("server_middleware", {}).get("apps", [])),
                )
                for r in gates
                if "stdio_runs" in r.match
            ),
            None,
        ),
        approval_kwargs=tuple(
            (r, frozenset(r.match.get("approval_kwargs", ()) or r.match["guard_kwargs"]))
            for r in gates
            if "approval_kwargs" in r.match or "guard_kwargs" in r.match
        ),
        switch_kwargs=tuple((r, frozenset(r.match["switch_kwargs"])) for r in gates if "switch_kwargs" in r.match),
        executor_modes=next(((r, r.match["executor_modes"]) for r in gates if "executor_modes" in r.match), None),
        prefix_gate=next(
            (
                (r, frozenset(r.match["prefix_methods"]), tuple(r.match.get("path_words", [])))
                for r in gates
                if "prefix_methods" in r.match
            ),
            None,
        ),
        statement_prefixes=next(
            (
                (r, frozenset(w.upper() for w in r.match["statement_prefixes"]))
                for r in gates
                if "statement_prefixes" in r.match
            ),
            None,
        ),
        collection_gate=next((r for r in gates if r.match.get("literal_collections")), None),
        callable_classes=tuple(
            (
                r,
                r.match["callable_classes"]["name_attr"],
                r.match["callable_classes"]["method"],
                frozenset(r.match["callable_classes"]["markers"]),
            )
            for r in tools
            if "callable_classes" in r.match
        ),
        handler_attrs=frozenset(a for r in tools for a in r.match.get("handler_attrs", [])),
        handler_kwargs={k: v for r in tools for k, v in r.match.get("handler_kwargs", {}).items()},
        route_decorators={
            f"{cls}.{method}": (r, method)
            for r in tools
            for cls, methods in r.match.get("route_decorators", {}).items()
            for method in methods
        },
        route_servers=frozenset(s for r in tools for s in r.match.get("route_servers", ())),
        vendors={k: v for r in of("model") for k, v in r.match.get("vendors", {}).items()},
        base_url_kwargs=frozenset(k for r in of("model") for k in r.match.get("base_url_kwargs", ())),
        base_url_providers=frozenset(k for r in of("model") for k in r.match.get("base_url_providers", ())),
        key_names={r.id: Patterns(r.match["key_names"]) for r in of("action") if "key_names" in r.match},
        library_tools={
            call: (r, _library_tool(spec)) for r in tools for call, spec in r.match.get("library_tools", {}).items()
        },
        library_run_methods=frozenset(m for r in of("action") for m in r.match.get("library_tool_calls", ())),
        toolkits=_toolkits(tools),
        message_classes=next(
            (
                (
                    r,
                    frozenset(r.match["message_classes"]["bases"]),
                    r.match["message_classes"]["name_attr"],
                    tuple(r.match["message_classes"]["handlers"]),
                )
                for r in tools
                if "message_classes" in r.match
            ),
            None,
        ),
        answer_calls=frozenset(c for r in of("model") for c in r.match.get("answer_calls", ())),
        answer_instances=frozenset(c for r in of("model") for c in r.match.get("answer_instances", ())),
        instances_make={k: v for r in of("action") for k, v in r.match.get("instances_make", {}).items()},
        rule_receivers=_receivers(c for r in of("action") for c in r.match.get("calls", ())),
        table_rule=next((r for r in tools if r.match.get("model_keyed_tables")), None),
        graph_adders=frozenset(a for r in tools for a in r.match.get("graph_nodes", {}).get("adders", ())),
        graph_compile=next((r.match["graph_nodes"]["compile"] for r in tools if "graph_nodes" in r.match), "compile"),
        graph_runs=tuple(m for r in tools for m in r.match.get("graph_nodes", {}).get("runs", ())),
        temp_files=frozenset(t for r in of("action") for t in r.match.get("temp_files", ())),
        generic_getters={k: tuple(v) for r in of("action") for k, v in r.match.get("generic_getters", {}).items()},
        dependency_markers=frozenset(m for r in of("action") for m in r.match.get("dependency_markers", ())),
        sql_methods=frozenset(
            c.rsplit(".", 1)[-1] for r in of("action") if r.match.get("sql_write") for c in r.match["calls"]
        ),
        message_registers={
            method: (spec["offer_kwarg"], tuple(spec["handler_suffixes"]))
            for r in tools
            if (spec := r.match.get("message_registrations"))
            for method in spec["methods"]
        },
        library_messages={
            package: {cls: _library_tool(tool) for cls, tool in classes.items()}
            for r in tools
            for package, classes in r.match.get("library_messages", {}).items()
        },
        toolkit_methods=frozenset(m for r in tools for m in r.match.get("toolkit_methods", [])),
        unknown_toolkit=next((r for r in frontier if r.match.get("unknown_toolkits")), None),
        spec_classes=tuple(
            (r, frozenset(r.match["spec_classes"]["bases"]), r.match["spec_classes"]["functions_attr"])
            for r in tools
            if "spec_classes" in r.match
        ),
        toolkit_classes=tuple(_toolkit_class(r) for r in tools if "toolkit_classes" in r.match),
        gate_by_kind={kind: r for r in reversed(gates) if (kind := r.gateKind) is not None},
        callback_runners={k: v for r in frontier for k, v in r.match.get("callback_runners", {}).items()},
        context_generics={k: v for r in frontier for k, v in r.match.get("context_generics", {}).items()},
        lifespan_contexts={k: v for r in frontier for k, v in r.match.get("lifespan_contexts", {}).items()},
        attribute_gate=next(
            (
                (r, frozenset(r.match["attribute_tests"]["attrs"]), Patterns(r.match["attribute_tests"]["receivers"]))
                for r in gates
                if "attribute_tests" in r.match
            ),
            None,
        ),
        denials=tuple((r, Patterns(r.match["denial_exceptions"])) for r in gates if "denial_exceptions" in r.match),
        denial_statuses={status: r for r in gates for status in r.match.get("denial_statuses", ())},
        common_paths=next(
            ((r, frozenset(r.match["common_path_calls"])) for r in gates if "common_path_calls" in r.match), None
        ),
        parent_lists=next(((r, frozenset(r.match["parent_lists"])) for r in gates if "parent_lists" in r.match), None),
        decision_words=next(
            (
                (
                    r,
                    frozenset(w.upper() for w in r.match["decision_words"]["allowing"]),
                    frozenset(w.upper() for w in r.match["decision_words"]["refusing"]),
                )
                for r in gates
                if "decision_words" in r.match
            ),
            None,
        ),
        traversal_markers=next(
            ((r, frozenset(r.match["traversal_markers"])) for r in gates if "traversal_markers" in r.match), None
        ),
        kind_checks=next(((r, Patterns(r.match["kind_checks"])) for r in gates if "kind_checks" in r.match), None),
        deny_searches=next(
            ((r, frozenset(r.match["deny_searches"])) for r in gates if "deny_searches" in r.match), None
        ),
        tool_objects=RuleTable((r, Patterns(r.match["objects"])) for r in tools if "objects" in r.match),
        tool_containers=Patterns(c for r in tools for c in r.match.get("containers", ())),
        sandbox_rule=next((r for r in gates if r.gateKind == "sandbox"), None),
        callback_types={
            call: dict(hooks) for r in of("action") for call, hooks in r.match.get("callback_types", {}).items()
        },
        executor_sandbox=next(
            (
                (
                    r,
                    {k: frozenset(v) for k, v in r.match.get("executor_kwargs", {}).items()},
                    Patterns(r.match.get("executors", [])),
                )
                for r in gates
                if "executor_kwargs" in r.match or "executors" in r.match
            ),
            None,
        ),
    )
    _COMPILED[rules.digest] = compiled
    return compiled


@dataclass(frozen=True, slots=True)
class LibraryTool:
    """A tool a library defines: its name, what it does, and the gate it always runs behind (an E2B
    sandbox), as the rule pack says."""

    name: str
    action_class: str | None
    impact: str | None
    gates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Toolkit:
    """A library toolkit or tool spec: the tools it gives, the keyword that selects some of them
    (``selected_tools=[...]``), keywords whose presence puts a gate on every tool (``root_dir=``) and the
    keyword that, given literally false, switches the tools' own checks off (``safe_mode=False``)."""

    rule: Rule
    tools: tuple[LibraryTool, ...]
    select: str | None
    gates: dict[str, str]
    switch: str | None = None


@dataclass(frozen=True, slots=True)
class ToolkitClass:
    """A toolkit class a package lets the code extend (Agno's ``Toolkit``): the bases, the keyword of the
    base's ``__init__`` listing the tool methods, the methods registering one more, the keywords keeping or
    dropping tools by name and those naming tools that wait for a person."""

    rule: Rule
    bases: frozenset[str]
    tools_kwarg: str
    register_methods: frozenset[str]
    include_kwarg: str
    exclude_kwarg: str
    approval_kwargs: frozenset[str]


def _toolkit_class(rule: Rule) -> ToolkitClass:
    spec = rule.match["toolkit_classes"]
    return ToolkitClass(
        rule=rule,
        bases=frozenset(spec["bases"]),
        tools_kwarg=spec["tools_kwarg"],
        register_methods=frozenset(spec["register_methods"]),
        include_kwarg=spec["include_kwarg"],
        exclude_kwarg=spec["exclude_kwarg"],
        approval_kwargs=frozenset(spec["approval_kwargs"]),
    )


def _library_tool(spec: list[Any]) -> LibraryTool:
    """``[name, class, impact]`` and the gate kind, or kinds, the library's tool checks itself."""
    gate = spec[3] if len(spec) > 3 else None
    return LibraryTool(spec[0], spec[1], spec[2], tuple([gate] if isinstance(gate, str) else gate or ()))


def _toolkits(tools: list[Rule]) -> dict[str, Toolkit]:
    """Toolkits by every name they are imported as (``aliases`` name the same toolkit at other paths)."""
    out: dict[str, Toolkit] = {}
    for rule in tools:
        options = rule.match.get("toolkit_options", {})
        for call, specs in rule.match.get("toolkits", {}).items():
            option = options.get(call, {})
            out[call] = Toolkit(
                rule,
                tuple(_library_tool(s) for s in specs),
                option.get("select"),
                dict(option.get("gates", {})),
                option.get("checks_off"),
            )
        for alias, call in rule.match.get("aliases", {}).items():
            out[alias] = out[call]
    return out


def _library_tool_runs(actions: list[Rule], tools: list[Rule]) -> list[tuple[Rule, Patterns]]:
    """A library tool the code runs itself (``TavilySearch(...).ainvoke(...)``) does what it does as a
    tool: the ``library_tool_calls`` action rule, with each library tool's class and impact."""
    out: list[tuple[Rule, Patterns]] = []
    for rule in actions:
        methods = rule.match.get("library_tool_calls")
        if not methods:
            continue
        for tool_rule in tools:
            for call, spec in sorted(tool_rule.match.get("library_tools", {}).items()):
                if spec[1] is not None:
                    update = {"actionClass": spec[1], "impact": spec[2] or rule.impact}
                    # Also imported from the package's own modules (``crewai_tools.tools.x.x_tool.XTool``).
                    top, _, rest = call.partition(".")
                    spellings = [call, f"{top}.*.{rest}"] if rest else [call]
                    patterns = Patterns(f"{each}.{m}" for each in spellings for m in methods)
                    out.append((rule.model_copy(update=update), patterns))
    return out


def _receiver_attrs(tools: list[Rule]) -> dict[str, tuple[tuple[Rule, tuple[str, ...]], ...]]:
    found: dict[str, dict[str, tuple[Rule, list[str]]]] = {}
    for rule in tools:
        for cls, attrs in rule.match.get("decorator_attrs_on", {}).items():
            for attr in attrs:
                found.setdefault(attr, {}).setdefault(rule.id, (rule, []))[1].append(cls)
    return {attr: tuple((r, tuple(c)) for r, c in by_rule.values()) for attr, by_rule in found.items()}


def _receivers(calls: Iterable[str]) -> frozenset[str]:
    """Each dotted prefix (of two names or more) of the exact call names, less the names themselves: the calls
    that make an object the rules call a method on (``asyncpg.create_pool`` and ``asyncpg.create_pool.acquire``
    for ``asyncpg.create_pool.acquire.fetch``)."""
    found: set[str] = set()
    for call in calls:
        if "*" in call or ":" in call:
            continue
        parts = call.split(".")
        for end in range(2, len(parts)):
            found.add(".".join(parts[:end]))
    return frozenset(found)
