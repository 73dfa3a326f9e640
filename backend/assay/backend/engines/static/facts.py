"""Per-file facts: what a language analyzer extracts from one file, before files are linked.

Each analyzer (Python through ``ast``, JavaScript/TypeScript through tree-sitter) turns one file into
a ``FileFacts``. Facts depend only on the file's bytes, its path and the rule pack, so they are cached
by content digest. The linker (``link.py``) then joins the files of a tree: it resolves calls across
files, finds which actions each tool reaches, which gates dominate them, and which model-chosen data
reaches a sink.

Naming: a function's ``qualname`` is the name other files use to call it. For Python it is the dotted
module path plus the nested name (``pkg.helpers.run_cmd``, ``pkg.agent.Agent.step``); for JS/TS it is
the module path without extension, ``#``, and the exported or local name (``src/helpers#runCmd``).
A ``CallFact.callee`` is the analyzer's best resolution of the called name in that same scheme; for
library calls it is the library's dotted name (``subprocess.run``, ``child_process.exec``).
Top-level statements of a file form a pseudo-function named ``<module>`` (qualname ``<module path>.<module>``
for Python, ``<module path>#<module>`` for JS/TS).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.backend.canonical import short_id
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import (
    ActionClass,
    FrontierKind,
    GateKind,
    Impact,
    Language,
    Location,
)

FACTS_VERSION = "18"

# A function's gates that hold whenever it returns normally are recorded as a call to ``EXIT`` whose
# ``dominatingGates`` they are; a gate id ``AFTER + <callee>`` in a caller stands for the gates that
# hold after a call to ``<callee>`` returned (the linker replaces it by the callee's ``EXIT`` gates).
EXIT = "<exit>"
# ``<function qualname>()``: what a call of that function returns (a list of tools in ``FileFacts.lists``,
# a tools argument holding a call's result in ``ToolDef.function``).
CALL_RESULT = "()"
# ``<callable qualname>#arg<i>`` / ``#kw:<name>``: what the tree's calls of that function or class give its
# parameter (a list of tools in ``FileFacts.lists``, merged over every call of the tree).
PARAM_ARG = "#arg"
PARAM_KW = "#kw:"
AFTER = "after:"
# ``NEVER + "<callee>|<gate id>"``: the gate holds here if ``<callee>`` never returns (its ``returnType`` is
# ``never``: ``if (!isWithin(p)) { fail(...) }`` with ``fail(): never``); the linker keeps or drops it.
NEVER = "never:"
# A function's gates that hold at every ``return { ok: true, ... }`` (a validator returning a result
# flag) are a call to ``OK_EXIT``; ``RESULT + "<callee>|<line>|<column>"`` in a caller stands for a check
# of that flag at that place (``if (!resolution.ok) return``): the linker makes it a gate there, of the
# kind of the callee's, when the callee has such gates.
OK_EXIT = "<exit:ok>"
RESULT = "result:"
# The same for a function's returns of a value (not ``null``, ``undefined`` or nothing): its gates that hold
# at every such return are a call to ``VALUE_EXIT``; ``PRESENT + "<callee>|<line>|<column>"`` stands for a
# check that what the callee returned is there (``if (level === null) throw`` after ``level = lookup(x)``,
# the callee returning null where its own check refused).
VALUE_EXIT = "<exit:value>"
PRESENT = "present:"
# ``ANSWER + "<callee>|<line>|<column>"``: a check of what a function of the tree returned, at that place
# (``if (!(await askPermission(msg))) return``): a ``human_approval`` gate there when that function puts a
# question to a person (holds a ``human_approval`` gate of its own, a prompt), dropped otherwise.
ANSWER = "answer:"
# ``FRONT + "<name>"``: the gate of the middleware a function of the tree is, or returns, put in front of a
# route by name (``app.use("/mcp", auth)``, ``app.use("/mcp", bearerAuth(key))``): its ``frontGate``, made
# concrete by the linker (dropped when it refuses nothing).
FRONT = "front:"


def checked_call(rest: str) -> tuple[str, int, int, str | None]:
    """``<callee>|<line>|<column>[|<kind>]`` of a ``present:`` / ``answer:`` id: the callee, where its result
    is checked, and the kind of a gate the same call is already (a function named as a check: its body's
    gates of that kind add nothing)."""
    parts = rest.split("|")
    besides = None if parts[-1].isdigit() else parts.pop()
    return "|".join(parts[:-2]), int(parts[-2]), int(parts[-1]), besides


# ``PARAM + "<index>.<member...>"``: a call on a member of the function's untyped parameter ``<index>``
# (``docker.getContainer(id)`` with ``docker: any``); the linker reads it as a call on what every caller
# passes there (``ArgTaint.valueType``), when they agree.
PARAM = "param:"
# ``CALLBACK + "<function>|<argument index>|<parameter index>"``: the type of a callback's untyped parameter, the callback
# given to a function of the tree (``withTransaction(async (conn) => conn.execute(...))``): what that function passes
# there when it calls the callback (``fn(conn)``, a ``PARAM + "<index>"`` call of its own parameter), read by the linker.
CALLBACK = "callback:"


class _Facts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaintOrigin(_Facts):
    """Where a value may come from, as far as taint is concerned.

    - ``model_output``: the result of a model call at ``location``;
    - ``param``: the enclosing function's parameter ``param`` (a name; positional index in ``index``);
    - ``call_return``: whatever the function ``callee`` returns (resolved by the linker);
    - ``field``: whatever the methods of a class store in the instance field ``callee``
      (``<class qualname>.<attribute>``: ``self.command``, ``this.command``), gathered by the linker.
    """

    kind: Literal["model_output", "param", "call_return", "field"]
    location: Location | None = None
    param: str | None = None
    index: int | None = None
    callee: str | None = None


SqlKind = Literal["read", "write"]


class ArgTaint(_Facts):
    """A call argument that may carry taint: position ``index`` or keyword ``keyword``. Also says what
    the value is when a SQL sink may receive it: ``text``, SQL fixed in the code that reads or writes
    (its origins are then empty); ``whole``, exactly its one origin's value passed on unchanged (a
    parameter, or a call's result), not text built from it. (Also used for a function's return value.)"""

    index: int | None = None
    keyword: str | None = None
    origins: list[TaintOrigin]
    text: SqlKind | None = None
    whole: bool = False
    valueType: str | None = Field(
        default=None,
        exclude_if=lambda t: t is None,
        description="What the argument is, when analysis knows (JS/TS: a package's client, a member of an "
        "interface of the tree): the type of a callee's untyped parameter when every caller agrees.",
    )


class CallFact(_Facts):
    location: Location
    callee: str
    resolved: bool = Field(description="False when the callee is a guess (e.g. a method on an unknown object).")
    dominatingGates: list[str] = Field(default_factory=list, description="GateSite ids in the same function.")
    args: list[ArgTaint] = Field(default_factory=list)
    client: bool = Field(
        default=False,
        exclude_if=lambda flag: not flag,
        description="A method of an object a package call built as a network client (a client factory's "
        "result, an object handed where to connect): network egress unless the callee is the tree's.",
    )
    modelId: str | None = Field(
        default=None,
        exclude_if=lambda model: model is None,
        description="The model id the call's options name (``create({ model })`` with ``model = 'gpt-4o-mini'`` "
        "a parameter's default), read where the call is made: the linker recognises a model call on a client "
        "of another module (JS/TS) and takes its model id from here.",
    )
    literals: dict[str, str] | None = Field(
        default=None,
        exclude_if=lambda given: given is None,
        description='The string literals the call passes, by position (``"0"``) or keyword (Python calls of the '
        'tree\'s functions): what a model factory of another module is given (``get_llm("gpt-4o", "openai")``).',
    )


class GateSite(_Facts):
    id: str
    kind: GateKind
    ruleId: str
    location: Location
    detail: str | None = None
    values: tuple[str, ...] = Field(
        default=(),
        exclude_if=lambda values: not values,
        description="The strings of the literal list a membership check tests a value against, when the code "
        "writes them out (``VALID = ['query', 'insert']`` ... ``VALID.includes(name)``): a list of the tree's "
        "tool names is a dispatch on which tool runs (``link/gates.py``), not an allow-list.",
    )


class ActionSite(_Facts):
    id: str
    actionClass: ActionClass
    impact: Impact
    ruleId: str
    target: str
    location: Location
    dominatingGates: list[str] = Field(default_factory=list)
    taint: list[TaintOrigin] = Field(default_factory=list, description="Origins of data reaching the sink.")
    sqlParam: str | None = Field(
        default=None,
        description="The enclosing function's parameter that is the SQL text this sink runs, unchanged: the "
        "action's class then depends on what each caller passes (fixed SQL: a read or a write).",
    )


class FieldWrite(_Facts):
    """A value a method stores in an instance field (``self.command = command``): ``field`` is
    ``<class qualname>.<attribute>``, read back by the class's methods as a ``field`` origin."""

    field: str
    origins: list[TaintOrigin]


class FunctionFacts(_Facts):
    id: str
    qualname: str
    name: str
    location: Location
    params: list[str] = Field(default_factory=list)
    calls: list[CallFact] = Field(default_factory=list)
    actions: list[ActionSite] = Field(default_factory=list)
    gates: list[GateSite] = Field(default_factory=list)
    returns: list[TaintOrigin] = Field(default_factory=list, description="Origins of returned values.")
    fieldWrites: list[FieldWrite] = Field(
        default_factory=list,
        exclude_if=lambda writes: not writes,
        description="Tainted values the function stores in its instance's fields.",
    )
    servesRequests: bool = Field(
        default=False,
        exclude_if=lambda serves: not serves,
        description="(JS/TS) The function hands an HTTP request to an MCP transport (``transport.handleRequest(req, "
        "res, body)``): an HTTP route serving an MCP server.",
    )
    servedBehind: tuple[str, ...] = Field(
        default=(),
        exclude_if=lambda gates: not gates,
        description="(JS/TS) The gates active at every hand-over of a request to an MCP transport in this function "
        "(a check in the route's handler before it, the middleware put in front of the route): what the route "
        "holds over the tools of the server it serves.",
    )
    frontGate: str | None = Field(
        default=None,
        exclude_if=lambda gate: gate is None,
        description="(JS/TS) The gate of the middleware this function is or returns (given the continuation "
        "``next``, it answers some requests with 401/403 instead of passing them on): what it holds over a "
        "route's handler when put in front of it by name (``FRONT`` gate ids).",
    )
    fronts: tuple[str, ...] = Field(
        default=(),
        exclude_if=lambda names: not names,
        description="(JS/TS) Names of the tree's functions put in front of a route here (``app.use(auth)``, "
        "``bearerAuth(key)``), for the linker to resolve: ``FRONT`` gate ids name them.",
    )
    routes: tuple[CallFact, ...] = Field(
        default=(),
        exclude_if=lambda routes: not routes,
        description="(JS/TS) Functions of the tree registered here as a route's handler by name "
        "(``app.post('/', auth, handle)``): the handler's name, with the gates in front of it.",
    )
    returnShape: ArgTaint | None = Field(
        default=None,
        description="What every return gives, when they agree: SQL fixed in the code, or one call's result.",
    )
    returnType: str | None = Field(
        default=None,
        description="What the function returns, as a dotted name (its annotation, or the one type every return "
        "statement gives): a call on its result (``(await getSandbox()).runCommand()``) is a call on that.",
    )
    returnCandidates: list[str] | None = Field(
        default=None,
        exclude_if=lambda types: types is None,
        description="When the returns give different types (a MySQL connection on one branch, a Postgres client "
        "on another; the items of a returned tuple), each of them: a call on the result is a call on whichever "
        "of them the rules name for it (``db.query(sql)`` is the Postgres client's).",
    )


class ModelSite(_Facts):
    id: str
    provider: str
    api: str
    via: Literal["sdk", "http"]
    ruleId: str
    location: Location
    model: str | None = Field(default=None, description="The model id the call names, when the code names it.")
    factoryParams: dict[str, str] | None = Field(
        default=None,
        exclude_if=lambda given: given is None,
        description="A model call inside a module-level function that takes its model id or vendor from the "
        "function's parameters (``def get_llm(model, provider): return init_chat_model(model, "
        "model_provider=provider)``): ``function`` (its qualname), ``model`` / ``provider`` (the parameters); the "
        "linker reports each call of the function that passes them literally as a model use there.",
    )
    modelRef: str | None = Field(
        default=None,
        exclude_if=lambda ref: ref is None,
        description="A settings field the model id is read from, in another module (``pkg.config.Config."
        "agent_settings.model``): the linker reads its default (``FileFacts.constants``, through field types in "
        "``bindings``); ``provider`` empty when only that model id can say whose model it is.",
    )


# The first clause of the frontier item said where a tool object's name is chosen at run time; the linker answers
# it (drops the item) once the name turns out to be another module's constant.
NAMED_AT_RUN_TIME = "a tool object is built with a name chosen at run time"


class ToolSource(_Facts):
    """What a tool defined in one file needs from another, resolved by the linker (``link/sources.py``).

    - ``records``: one tool per record of the module-level list of dicts ``ref`` named by its ``key``
      (``StripeTool(name=tool["method"]) for tool in tools``), run by ``function`` and by what a
      dispatch table maps its name to;
    - ``receiver``: a decorator on an object of another module (``@server.tool()``): a tool only when
      ``ref`` is bound there to one of ``types``;
    - ``package``: the same decorator read as a package's (``@llm.tool`` with ``from mirascope import llm``):
      a tool by the role rules only when ``ref`` names nothing the tree binds and its first segment is no
      module of the tree, i.e. when no ``receiver`` candidate can be the one;
    - ``template``: a tool class whose name is left empty (``name: str = ""``), named where it is
      constructed; ``ref`` is the class. A ``records`` tool built with it (``types`` names the class it
      constructs) takes its place.
    - ``imported``: a tool definition written as data and bound to a top-level name ``ref`` that its own
      file never reads (``export const createDeploymentSchema = { name, inputSchema }``): offered to a
      model only through a file that imports it, so a tool only when one does (JS/TS).
    - ``plugin``: a plugin object registered under a name (Semantic Kernel ``kernel.add_plugin(obj,
      plugin_name="Bookings")``): the plugin-qualified tools of ``ref`` (the object's class) are named
      ``<key>-<function>``; the record itself is no tool.
    - ``agent``: an agent handed over as a tool (``AgentTool(agent=a)``), named after the agent (the
      ``name=`` its module-level function carries) once the linker resolves ``ref``, wherever ``a`` is built.
    - ``constant``: a tool named by a string constant of another module of the tree (Python: an ``Enum``
      member or class attribute, ``types.Tool(name=ToolNames.SUBMIT_MODEL)`` with ``ToolNames`` imported):
      ``ref`` is the constant's qualname; the linker names the tool with its value, or drops it (the file's
      frontier item says the name is not visible) when the tree defines no such constant.
    - ``renamed``: an instance of a tool class renamed by assignment (``google = SearchTool(); google.name =
      "google_search"``): a tool of that name, run as the class's tool is, once the linker finds ``ref`` (the
      class) among the tool classes of the tree; none when the class is no tool class.
    - ``factory``: a function returning a tool definition whose name is its parameter (``function
      defineTool(name, description, schema) { return { name, description, inputSchema } }``); ``ref`` is the
      function, ``key`` the parameter's position. No tool itself: it names the ``made`` tools of its calls.
    - ``described``: a class of the tree naming its tool (``name = "x"``, a ``name`` property, ``self.name = "x"``)
      and running it in a method such frameworks call, under no base named for tools: a tool only when its
      instances reach a model, i.e. when ``ref`` (the class) or one of its bases is among the tree's
      ``describers``, or when ``types`` (the members the class defines) holds one of the tree's ``schemaMembers``.
    - ``made``: a string a call of a function of the tree is given (``export const listTool =
      defineTool('list_things', ...)``), ``ref`` the callee and ``key`` the argument's position: the tool of
      that name when the callee is a ``factory`` naming its tool by that position; nothing otherwise (JS/TS).
    - ``route``: a web route (``@router.post("/x", operation_id="add_item", tags=[...])`` on a FastAPI app or router):
      a tool only when the tree serves its app to a model as MCP tools (``FileFacts.routeServings``, FastAPI-MCP),
      and one the serving's filters keep; ``key`` is the operation id, ``types`` the route's tags with its router's.
    - ``listed``: a class of the tree that names itself and has methods (``class SetTool { name = "set";
      execute() {...} }``), ``ref`` the class: a tool when the tree gathers its instances and serves them to a
      model (``FileFacts.toolClassUses``), run by the method the dispatch or the registration calls (JS/TS,
      ``jsts/tool_classes.py``); nothing otherwise.
    - ``subclassed``: an instance of a class of another module listed where library tools are
      (``tools.append(ReadOnlySQLTool(db=db))``), ``ref`` the class: the tool of the library tool class it extends
      through the tree's classes (named as the library names it, run by the first of the library's run methods the
      class defines: its ``_run`` override); nothing when it extends none (Python).
    """

    kind: Literal[
        "records",
        "receiver",
        "package",
        "template",
        "imported",
        "agent",
        "plugin",
        "renamed",
        "constant",
        "factory",
        "made",
        "described",
        "listed",
        "subclassed",
        "route",
    ]
    ref: str
    key: str | None = None
    types: list[str] = Field(default_factory=list)


class RouteServing(_Facts):
    """Web routes served to a model as MCP tools (``FastApiMCP(app, exclude_tags=["Disabled"])``): the serving's
    filters, each None when not given or not written as a list of strings (then it filters nothing analysis knows)."""

    includeOperations: list[str] | None = None
    excludeOperations: list[str] | None = None
    includeTags: list[str] | None = None
    excludeTags: list[str] | None = None


class ServedElements(_Facts):
    """A registration of every element of a collection typed by a type of the tree (``ToolClassUses.served``)."""

    type: str = Field(description="The elements' type (``src/modules/mcp/types#Tool``).")
    method: str = Field(description="The method the registration runs on each element (``handler``), or empty.")
    frontier: str | None = Field(
        default=None, description="The id of the registration's frontier item, answered once a class is served."
    )


class ToolClassUses(_Facts):
    """(JS/TS) What a file shows of the roles that make a class a tool class (``jsts/tool_classes.py``)."""

    gathered: list[str] = Field(
        default_factory=list,
        description="Classes of the tree whose instances the file gathers: ``new C()`` as an element of a list, an "
        "argument of a call, a value of an object, or the receiver of a call.",
    )
    dispatched: dict[str, bool] = Field(
        default_factory=dict,
        description="Methods called on a value found by a tool's name (``tools.get(name).execute(args)``) -> "
        "whether the call is inside a CallTool request handler (the name the client or model gave).",
    )
    listing: dict[str, str] = Field(
        default_factory=dict,
        description="Classes with a method listing ``this.name`` in a tool definition or registering it -> the "
        "method the registration runs (``this.execute.bind(this)``: ``execute``), empty when it names none.",
    )
    served: list[ServedElements] = Field(
        default_factory=list,
        exclude_if=lambda served: not served,
        description="Registrations naming each element of a collection typed by a type of the tree by a field of it "
        "(``for (const tool of this.tools) server.tool(tool.name, ..., (p) => tool.handler(p))`` with ``tools: Tool[]``).",
    )
    implements: dict[str, list[str]] = Field(
        default_factory=dict,
        exclude_if=lambda implements: not implements,
        description="Candidate tool classes -> the types of the tree they implement or extend (``class Click "
        "implements Tool``): the instances a registration over elements of such a type serves.",
    )


class RecordField(_Facts):
    value: str
    line: int


class ToolDef(_Facts):
    id: str
    name: str
    description: str | None = None
    framework: str
    ruleId: str
    location: Location
    function: str | None = Field(default=None, description="qualname of the implementing function.")
    parameters: list[str] = Field(default_factory=list)
    annotations: dict[str, bool] = Field(default_factory=dict)
    source: ToolSource | None = Field(
        default=None, description="Set when what the tool is depends on another file: the linker decides."
    )
    # Tools whose definition and whose use sit apart, joined by the linker (never in the bundle):
    binding: str | None = Field(
        default=None,
        description="What holds this definition, as other files name it: a top-level name (``mod#weatherTool``), "
        "or a function's result (``mod#createSandbox()``: a factory returning the tool).",
    )
    ref: str | None = Field(
        default=None,
        description="A use of a definition held elsewhere (a ``binding``): a tool placed under a key "
        "(``{ weather: weatherTool }``, ``{ createSandbox: createSandbox(...) }``), named by this record; "
        "with ``refName``, a tool registered under the definition's own name (``server.registerTool(def.name, ...)``).",
    )
    refName: bool = False
    candidate: bool = Field(
        default=False,
        description="A definition that is a tool only when something uses it (``{ name, handler }`` objects); "
        "dropped by the linker otherwise.",
    )
    toolset: bool = Field(
        default=False,
        description="A use in a model's tool set (``tools: {...}`` of a generation call or agent): a tool even "
        "when its definition is not in the tree.",
    )
    hookGates: tuple[str, ...] = Field(
        default=(),
        exclude_if=lambda gates: not gates,
        description="Gates a framework runs before every call of this tool (an agent's ``before_tool_callback=`` "
        "that can refuse it): they hold on every path from the tool.",
    )
    listed: bool = Field(
        default=False,
        description="A use in a model's tool list (``tools: [weatherTool]``): names nothing itself; joined with "
        "the definition it refers to, or a frontier item when analysis cannot see it.",
    )
    heldBy: str | None = Field(
        default=None,
        exclude_if=lambda held: held is None,
        description="The top-level name a tool literal is bound to (``mod#definition`` for ``export const "
        "definition = { name, inputSchema }``): with a lookup by name over tool objects somewhere in the tree "
        "(``FileFacts.nameLookups``), the function that lookup calls beside it implements the tool.",
    )
    servedBy: str | None = Field(
        default=None,
        exclude_if=lambda served: served is None,
        description="(JS/TS) The function of the tree whose MCP server serves this tool: the one its definition's "
        "paired record is written in (``createMcpServer``). The checks in front of every HTTP route that builds "
        "that server and hands it requests hold over the tool (``link/served.py``).",
    )
    byFunction: bool = Field(
        default=False,
        exclude_if=lambda flag: not flag,
        description="Made by a call that names no tool (``FunctionTool.from_defaults(fn=f)``): the tool is "
        "``f``'s, named and described by it, so it is placed at ``f``'s def and is one tool with any other "
        "definition of ``f``, like a function listed as a tool.",
    )

    @classmethod
    def found(
        cls,
        rule: Rule,
        name: str,
        location: Location,
        *,
        description: str | None = None,
        function: str | None = None,
        parameters: list[str] | None = None,
        annotations: dict[str, bool] | None = None,
        source: ToolSource | None = None,
        binding: str | None = None,
        ref: str | None = None,
        ref_name: bool = False,
        candidate: bool = False,
        served_by: str | None = None,
    ) -> ToolDef:
        """The tool ``rule`` found, named ``name``, at ``location``; its id is made of where and what it is
        (path, line, name, rule), so the same code gives the same id in every scan."""
        return cls(
            id=short_id("tool", location.path, location.line, name, rule.id),
            name=name,
            description=description,
            framework=rule.framework or "unknown",
            ruleId=rule.id,
            location=location,
            function=function,
            parameters=parameters or [],
            annotations=annotations or {},
            source=source,
            binding=binding,
            ref=ref,
            refName=ref_name,
            candidate=candidate,
            servedBy=served_by,
        )


class FrontierSite(_Facts):
    id: str
    kind: FrontierKind
    detail: str
    location: Location | None = None
    ruleId: str | None = None


class FileFacts(_Facts):
    path: str
    language: Language
    digest: str
    lines: int
    module: str
    parseError: str | None = None
    functions: list[FunctionFacts] = Field(default_factory=list)
    models: list[ModelSite] = Field(default_factory=list)
    tools: list[ToolDef] = Field(default_factory=list)
    frontier: list[FrontierSite] = Field(default_factory=list)
    imports: list[str] = Field(
        default_factory=list,
        description="Names of the tree the module imports (JS/TS): ``<other>#X``, or ``<other>#`` for the whole module.",
    )
    reexports: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Names the module exports from other files of the tree (JS/TS ``export { X } from``): "
        "``<module>#X`` -> ``<other>#X``; ``<module>#*`` -> ``<other>#`` for ``export * from``; a Python "
        "package's relative imports (``from .agent import x`` in ``pkg/__init__.py``): ``pkg.x`` -> ``pkg.agent.x``.",
    )
    # Module-level bindings other files' tools may name, by qualname: the type a name is constructed
    # as (and, Python, the class a class's field is typed by: ``pkg.config.Config.agent_settings``), the functions a list holds (``ToolNode(TOOLS)`` with ``TOOLS`` imported; a function's returned
    # list under ``<qualname>()``), the string fields of a list of dict literals, and what constant-keyed
    # dicts of functions map each name to (dispatch tables: ``{"create_customer": create_customer}``).
    bindings: dict[str, str] = Field(default_factory=dict)
    serverGates: dict[str, list[str]] = Field(
        default_factory=dict,
        description="(Python) Gates a tool registry this module gives a parameter of the tree's function holds "
        "over every tool registered on it there (``register_tools(mcp)``, ``mcp = FastMCP(middleware=[...])``): "
        "``<callee>#arg<i>`` (or ``#kw:<name>``) -> the ids of gates of this module.",
    )
    lists: dict[str, list[str]] = Field(default_factory=dict)
    alternatives: dict[str, list[str]] = Field(
        default_factory=dict,
        exclude_if=lambda alternatives: not alternatives,
        description="(Python) Module names bound to a conditional choice (``Store = PostgresStore if settings.pg else "
        "SqliteStore``, ``client = A() if x else B()``): ``<module>.<name>`` -> what each branch names or builds. A call "
        "on the name, or on what it builds, is a call on each of them.",
    )
    partialLists: list[str] = Field(
        default_factory=list,
        description="Keys of ``lists`` (function results) whose list also holds what analysis cannot name "
        "(a tool made by a call, a value of a local variable): the names are tools, the rest a frontier item.",
    )
    records: dict[str, list[dict[str, RecordField]]] = Field(default_factory=dict)
    tables: dict[str, str] = Field(default_factory=dict)
    routeServings: list[RouteServing] = Field(
        default_factory=list,
        exclude_if=lambda servings: not servings,
        description="(Python) Web apps the file serves to a model as MCP tools (FastAPI-MCP): their route tools' filters.",
    )
    nameLookups: dict[str, list[str]] = Field(
        default_factory=dict,
        exclude_if=lambda lookups: not lookups,
        description="Lookups by tool name over tool objects (JS/TS ``tools.find((t) => t.definition.name === "
        "name).handler(args)``, a ``Map`` keyed by ``t.name``): the path from an element to the field holding "
        "the name (``definition``; empty for the element's own ``name``) -> the members called on the element "
        "found (``handler``). Each element's function of that name runs the tool the model asked for.",
    )
    toolClassUses: ToolClassUses | None = Field(
        default=None,
        exclude_if=lambda uses: uses is None,
        description="(JS/TS) The instances of classes the file gathers, the methods it dispatches a tool's name "
        "through and the classes listing themselves to a model: what makes ``listed`` candidates tools.",
    )
    constants: dict[str, str] = Field(
        default_factory=dict,
        description="Strings the module's top level names (JS/TS): a ``const`` bound to a string, a string enum "
        "member, a key of a top-level object constant (``ToolName.ECHO``, ``listTool.name``), by that name; "
        "(Python) the literal defaults of its classes' fields (``pkg.config.AgentModel.model``), for settings "
        "read in another module.",
    )
    caseRefs: dict[str, str] = Field(
        default_factory=dict,
        description="Branches of a dispatch on a tool's name whose label is a constant of another file "
        "(``case ToolName.LIST:`` with ``ToolName`` imported): the branch's qualname -> ``<other>#ToolName.LIST``, "
        "named by the linker from that file's ``constants``.",
    )
    classBases: dict[str, list[str]] = Field(
        default_factory=dict,
        exclude_if=lambda bases: not bases,
        description="Python: the bases of the module's classes, by the class's qualname, as the file's imports name "
        "them (``s3.tools.DeleteTool`` -> ``[s3.base.S3BaseTool]``): a method a class inherits from a base of another "
        "module (``self._get_client()``) is that base's. JS/TS: the class of the tree a class extends "
        "(``src/ds#default`` -> ``[src/auth#default]``): a field a base of another file declares "
        "(``protected _apiClient: ZodiosInstance``) is the subclass's too (``link/linker.py`` ``_module_values``).",
    )
    boundClasses: dict[str, list[str]] = Field(
        default_factory=dict,
        exclude_if=lambda bound: not bound,
        description="JS/TS: the classes of the tree a dependency injection container is told to give for a type of "
        "the tree (``container.bind<IFoo>(TYPES.Foo).to(FooImpl)``: ``src/types#IFoo`` -> ``[src/foo#FooImpl]``), "
        "as this file's imports name them; a call on a value of that type runs the bound class's method, whether "
        "or not the class says ``implements`` (``link/linker.py``).",
    )
    describers: list[str] = Field(
        default_factory=list,
        exclude_if=lambda describers: not describers,
        description="Python: the module's classes with a method building a tool schema from ``self.name`` "
        '(``{"name": self.name, "parameters": ...}``, ``Tool(name=self.name, inputSchema=...)``), by qualname: '
        "their instances, and their subclasses', describe themselves to a model (``pyast/described.py``).",
    )
    schemaMembers: list[str] = Field(
        default_factory=list,
        exclude_if=lambda members: not members,
        description="Python: the members a tool schema built from another object's ``name`` reads its schema from "
        "(``types.Tool(name=t.name, inputSchema=t.get_schema())`` -> ``get_schema``): a class answering one is a tool "
        "class (``pyast/described.py``).",
    )
