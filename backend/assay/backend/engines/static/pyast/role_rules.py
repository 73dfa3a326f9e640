"""The role rules of a rule pack (``rules/python-roles.json``), compiled once per pack digest: which
decorators, parameters, builder methods, library tools and client classes make a name play a role."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import Rule, RulePack


@dataclass(frozen=True)
class Roles:
    """The role rules of a rule pack, compiled once per pack digest."""

    decorator_rule: Rule | None = None
    decorators: frozenset[str] = frozenset()
    decorator_attrs: frozenset[str] = frozenset()
    positional_name: frozenset[str] = frozenset()
    name_kwargs: tuple[str, ...] = ()
    plugin_qualified: dict[str, str] = field(default_factory=dict)
    # Keys (keywords, or keys of a dict a decorator call is handed) that hand a function's input schema to a
    # model: with a description beside them, the decorated function is a tool.
    schema_keys: frozenset[str] = frozenset()
    plugin_registrations: dict[str, dict[str, list[str | int]]] = field(default_factory=dict)
    pre_hooks: frozenset[str] = frozenset()
    allow_kwargs: frozenset[str] = frozenset()
    params_rule: Rule | None = None
    params: frozenset[str] = frozenset()
    string_params: frozenset[str] = frozenset()
    skip_prefixes: tuple[str, ...] = ()
    builtins: dict[str, dict[str, tuple[str | None, str | None]]] = field(default_factory=dict)
    # ``claude_code_sdk`` -> ``claude_agent_sdk``: a package published before under another name is the same
    # SDK, its built-in tools and the tools its agents run the same.
    renamed_packages: dict[str, str] = field(default_factory=dict)
    model_written: frozenset[str] = frozenset()
    frontier_rule: Rule | None = None
    executor_rule: Rule | None = None
    executor_kwargs: frozenset[str] = frozenset()
    sandbox_executors: Patterns = field(default_factory=lambda: Patterns(()))
    # ``code_execution_config={"executor": e, "use_docker": False}``: an executor configured by a dict.
    executor_configs: frozenset[str] = frozenset()
    executor_config_keys: tuple[str, ...] = ()
    container_flags: tuple[str, ...] = ()
    tool_class_suffixes: tuple[str, ...] = ()
    tool_class_methods: tuple[str, ...] = ()
    # ``def get_name(self): return "read_file"``: methods whose literal result is a tool class's name.
    tool_class_name_getters: tuple[str, ...] = ()
    agent_tool_methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # ``agent.as_tool()`` with no name keyword: the tool is named from the agent's ``name=`` as its package
    # names it (package -> "identifier": other characters to ``_``, runs of ``_`` merged, ends stripped;
    # "function_style": whitespace and other characters to ``_``, lowercased).
    agent_tool_default_names: dict[str, str] = field(default_factory=dict)
    agent_tool_classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # ``plugins=[billing_agent]`` (Semantic Kernel): an agent under a plugin parameter is a plugin of one
    # function, both named after the agent (parameter -> the separator of ``<plugin><sep><function>``).
    agent_plugin_params: dict[str, str] = field(default_factory=dict)
    hosted_types: frozenset[str] = frozenset()
    tool_callbacks: dict[str, str | None] = field(default_factory=dict)
    tool_hooks: frozenset[str] = frozenset()
    # Hooks whose result says whether the call goes ahead (``can_use_tool``, ``PreToolUse``): they refuse
    # only by returning a refusal (``PermissionResultDeny(...)``, ``{"behavior": "deny"}``,
    # ``{"permissionDecision": "deny"}``); any other value lets the call through.
    refusal_hooks: frozenset[str] = frozenset()
    refusal_classes: frozenset[str] = frozenset()
    refusal_values: dict[str, tuple[object, ...]] = field(default_factory=dict)
    module_tool_specs: frozenset[str] = frozenset()
    renamed_attrs: frozenset[str] = frozenset()
    event_hooks: dict[str, frozenset[str]] = field(default_factory=dict)
    # ``hooks=[Approval()]``: hook provider objects whose class registers a callback for the event before
    # each tool call (``events``) that cancels the call (an attribute of ``cancels`` set on the event) or
    # pauses for a person (a method of ``pauses`` called on it).
    hook_provider_kwargs: frozenset[str] = frozenset()
    hook_events: frozenset[str] = frozenset()
    hook_cancels: frozenset[str] = frozenset()
    hook_pauses: frozenset[str] = frozenset()
    limit_kwargs: tuple[tuple[Patterns, str], ...] = ()
    middleware_kwargs: frozenset[str] = frozenset()
    middleware_markers: frozenset[str] = frozenset()
    approval_maps: frozenset[str] = frozenset()
    # ``create_react_agent(..., interrupt_before=["tools"])``: a keyword naming the graph nodes the run pauses
    # before, and the names of the nodes that run the tools.
    interrupt_nodes: dict[str, frozenset[str]] = field(default_factory=dict)
    middleware_limits: tuple[tuple[Patterns, str], ...] = ()
    middleware_tool_kwargs: tuple[str, ...] = ()
    mounted_servers: dict[str, tuple[str, str]] = field(default_factory=dict)
    agent_runners: dict[str, frozenset[str]] = field(default_factory=dict)
    client_rule: Rule | None = None
    client_classes: Patterns = field(default_factory=lambda: Patterns(()))
    client_excluded: frozenset[str] = frozenset()
    client_factories: Patterns = field(default_factory=lambda: Patterns(()))
    network_kwargs: frozenset[str] = frozenset()
    network_kwarg_suffixes: tuple[str, ...] = ()
    # Keywords handing a package call the credentials of a service (``api_key=``): its object is a client too.
    credential_kwargs: frozenset[str] = frozenset()
    # Package calls whose result is an open connection to a service (``grpc.insecure_channel``): what a package's
    # class builds over one is that service's client.
    connection_calls: Patterns = field(default_factory=lambda: Patterns(()))
    client_lifecycle: frozenset[str] = frozenset()
    # Asynchronous twins of packages (``aioboto3`` -> ``boto3``, ``redis.asyncio`` -> ``redis``), longest first.
    async_twins: tuple[tuple[str, str], ...] = ()
    library_functions: dict[str, tuple[str | None, str | None, bool]] = field(default_factory=dict)
    library_toolkits: dict[str, tuple[tuple[str, str | None, str | None], ...]] = field(default_factory=dict)
    confirm_tools_kwargs: frozenset[str] = frozenset()
    builder_methods: frozenset[str] = frozenset()
    builder_suffixes: tuple[str, ...] = ()
    tool_constructor_suffixes: tuple[str, ...] = ()
    function_kwargs: tuple[str, ...] = ()
    # ``ComponentTool(component=Fetcher())``: keyword -> (the method the tool runs on the instance, how the tool
    # is named without ``name=``: ``snake_class`` is the class name in snake case, as Haystack names it).
    instance_kwargs: dict[str, tuple[str, str]] = field(default_factory=dict)
    model_rule: Rule | None = None
    model_classes: Patterns = field(default_factory=lambda: Patterns(()))
    model_class_kwargs: tuple[str, ...] = ()
    model_modules: frozenset[str] = frozenset()
    model_id_kwargs: tuple[str, ...] = ()
    # ``AgentTeam(manager_llm="gpt-4o-mini")``, ``Crew(planning_llm=...)``: a keyword naming the model of a role.
    model_role_kwarg_suffixes: tuple[str, ...] = ()
    model_choice_kwargs: tuple[str, ...] = ()
    # A package's enums of model ids: package -> enum class -> member -> model id.
    model_enums: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    model_excluded: tuple[str, ...] = ()
    vendor_words: tuple[tuple[str, str], ...] = ()
    class_providers: dict[str, str] = field(default_factory=dict)
    model_id_prefixes: tuple[tuple[str, str], ...] = ()
    # What each callee's name alone says of it as a model client (``RoleLogic._model_shape``), once per name.
    model_shapes: dict[str, tuple[bool, bool, str, str | None, bool]] = field(
        default_factory=dict, compare=False, repr=False
    )


_ROLES: dict[str, Roles] = {}
# The standard library's top-level modules: what is not one of them (nor a builtin) comes from a package.
STDLIB = frozenset(sys.stdlib_module_names) | {"builtins"}


def compile_roles(pack: RulePack) -> Roles:
    """The role rules of ``pack`` (none when the pack has none: every role then stays off)."""
    found = _ROLES.get(pack.digest)
    if found is not None:
        return found
    by_key: dict[str, Rule] = {}
    for rule in pack.rules:
        if rule.language != "python":
            continue
        for key in (
            "role_decorators",
            "role_tool_params",
            "unenumerated_tools",
            "code_executor_kwargs",
            "client_classes",
            "model_classes",
        ):
            if key in rule.match and key not in by_key:
                by_key[key] = rule
    deco = by_key.get("role_decorators")
    params = by_key.get("role_tool_params")
    executor = by_key.get("code_executor_kwargs")
    dm: dict[str, Any] = deco.match if deco else {}
    pm: dict[str, Any] = params.match if params else {}
    em: dict[str, Any] = executor.match if executor else {}
    client = by_key.get("client_classes")
    cm: dict[str, Any] = client.match if client else {}
    model = by_key.get("model_classes")
    mm: dict[str, Any] = model.match if model else {}
    builtins = {
        package: {name: (spec[0], spec[1]) for name, spec in names.items()}
        for package, names in pm.get("builtin_tools", {}).items()
    }
    roles = Roles(
        decorator_rule=deco,
        decorators=frozenset(dm.get("role_decorators", ())),
        decorator_attrs=frozenset(dm.get("role_decorator_attrs", ())),
        positional_name=frozenset(dm.get("positional_name", ())),
        name_kwargs=tuple(dm.get("name_kwargs", ())),
        plugin_qualified=dict(dm.get("plugin_qualified", {})),
        schema_keys=frozenset(dm.get("describing_schema_keys", ())),
        plugin_registrations=dict(dm.get("plugin_registrations", {})),
        pre_hooks=frozenset(dm.get("pre_hook_kwargs", ())),
        allow_kwargs=frozenset(dm.get("allow_kwargs", ())),
        tool_class_suffixes=tuple(dm.get("tool_classes", {}).get("suffixes", ())),
        tool_class_methods=tuple(dm.get("tool_classes", {}).get("methods", ())),
        tool_class_name_getters=tuple(dm.get("tool_classes", {}).get("name_getters", ())),
        agent_tool_methods={k: tuple(v) for k, v in dm.get("agent_tool_methods", {}).items()},
        agent_tool_default_names=dict(dm.get("agent_tool_default_names", {})),
        agent_tool_classes={k: tuple(v) for k, v in dm.get("agent_tool_classes", {}).items()},
        agent_plugin_params=dict(dm.get("agent_plugin_params", {})),
        hosted_types=frozenset(dm.get("hosted_tool_types", ())),
        tool_callbacks=dict(dm.get("tool_callbacks", {})),
        tool_hooks=frozenset(dm.get("tool_hooks", ())),
        refusal_hooks=frozenset(dm.get("refusing_results", {}).get("hooks", ())),
        refusal_classes=frozenset(dm.get("refusing_results", {}).get("classes", ())),
        refusal_values={k: tuple(v) for k, v in dm.get("refusing_results", {}).get("values", {}).items()},
        module_tool_specs=frozenset(dm.get("module_tool_specs", ())),
        renamed_attrs=frozenset(dm.get("renamed_tool_attrs", ())),
        event_hooks={k: frozenset(v) for k, v in dm.get("event_hooks", {}).items()},
        hook_provider_kwargs=frozenset(dm.get("hook_providers", {}).get("kwargs", ())),
        hook_events=frozenset(dm.get("hook_providers", {}).get("events", ())),
        hook_cancels=frozenset(dm.get("hook_providers", {}).get("cancels", ())),
        hook_pauses=frozenset(dm.get("hook_providers", {}).get("pauses", ())),
        middleware_kwargs=frozenset(dm.get("tool_middleware", {}).get("kwargs", ())),
        middleware_markers=frozenset(dm.get("tool_middleware", {}).get("markers", ())),
        approval_maps=frozenset(dm.get("tool_middleware", {}).get("approval_maps", ())),
        interrupt_nodes={k: frozenset(v) for k, v in dm.get("interrupt_nodes", {}).items()},
        middleware_limits=tuple(
            (Patterns([p]), kind) for p, kind in dm.get("tool_middleware", {}).get("limit_kwargs", {}).items()
        ),
        middleware_tool_kwargs=tuple(dm.get("tool_middleware", {}).get("tool_kwargs", ())),
        limit_kwargs=tuple((Patterns([p]), kind) for p, kind in dm.get("limit_kwargs", {}).items()),
        mounted_servers={k: (v["mounted_under"], v["pattern"]) for k, v in dm.get("mounted_servers", {}).items()},
        params_rule=params,
        params=frozenset(pm.get("role_tool_params", ())),
        string_params=frozenset(pm.get("string_params", ())),
        skip_prefixes=tuple(pm.get("skip_string_prefixes", ())),
        builtins=builtins,
        renamed_packages=dict(pm.get("renamed_packages", {})),
        model_written=frozenset(pm.get("model_written", ())),
        frontier_rule=by_key.get("unenumerated_tools"),
        executor_rule=executor,
        executor_kwargs=frozenset(em.get("code_executor_kwargs", ())),
        sandbox_executors=Patterns(em.get("sandbox_executors", ())),
        executor_configs=frozenset(em.get("code_executor_configs", {}).get("kwargs", ())),
        executor_config_keys=tuple(em.get("code_executor_configs", {}).get("executor_keys", ())),
        container_flags=tuple(em.get("code_executor_configs", {}).get("container_flags", ())),
        agent_runners={k: frozenset(v) for k, v in pm.get("agent_runner_tools", {}).items()},
        library_toolkits={
            name: tuple((t[0], t[1], t[2]) for t in tools) for name, tools in pm.get("library_toolkits", {}).items()
        },
        confirm_tools_kwargs=frozenset(pm.get("confirm_tools_kwargs", ())),
        builder_methods=frozenset(pm.get("builder_methods", ())),
        builder_suffixes=tuple(pm.get("builder_method_suffixes", ())),
        tool_constructor_suffixes=tuple(pm.get("tool_constructor_suffixes", ())),
        function_kwargs=tuple(pm.get("function_kwargs", ())),
        instance_kwargs={k: (v[0], v[1]) for k, v in pm.get("instance_kwargs", {}).items()},
        model_rule=model,
        model_classes=Patterns(mm.get("model_classes", ())),
        model_class_kwargs=tuple(mm.get("model_class_kwargs", ())),
        model_modules=frozenset(mm.get("model_modules", ())),
        model_id_kwargs=tuple(mm.get("model_id_kwargs", ())),
        model_role_kwarg_suffixes=tuple(mm.get("model_role_kwarg_suffixes", ())),
        model_choice_kwargs=tuple(mm.get("model_choice_kwargs", ())),
        model_enums=dict(mm.get("model_enums", {})),
        model_excluded=tuple(mm.get("excluded_words", ())),
        vendor_words=tuple((w, p) for w, p in mm.get("vendor_words", ())),
        class_providers=dict(mm.get("class_providers", {})),
        model_id_prefixes=tuple((w, p) for w, p in mm.get("model_id_prefixes", ())),
        client_rule=client,
        client_classes=Patterns(cm.get("client_classes", ())),
        client_excluded=frozenset(cm.get("exclude_heads", ())),
        client_factories=Patterns(cm.get("client_factories", ())),
        network_kwargs=frozenset(cm.get("network_kwargs", ())),
        network_kwarg_suffixes=tuple(cm.get("network_kwarg_suffixes", ())),
        credential_kwargs=frozenset(cm.get("credential_kwargs", ())),
        connection_calls=Patterns(cm.get("connection_calls", ())),
        client_lifecycle=frozenset(cm.get("lifecycle_methods", ())),
        async_twins=tuple(sorted(cm.get("async_twins", {}).items(), key=lambda kv: -len(kv[0]))),
        library_functions={
            name: (spec[0], spec[1], bool(spec[2]) if len(spec) > 2 else False)
            for name, spec in pm.get("library_functions", {}).items()
        },
    )
    _ROLES[pack.digest] = roles
    return roles


def third_party(name: str | None, resolved: bool) -> bool:
    """A name imported from a package outside the standard library (the tree's own modules included:
    a decorator of the tree named ``tool`` registers a tool as surely as a framework's)."""
    return name is not None and resolved and name.split(".", 1)[0] not in STDLIB
