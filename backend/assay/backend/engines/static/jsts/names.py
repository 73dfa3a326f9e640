"""Module paths and import resolution: how a JS/TS file names its own functions and what it imports.

- A file's module is its path without extension, with a trailing ``/index`` dropped (``src/lib/index.ts``
  is ``src/lib``), so that ``import "./lib"`` and ``import "./lib/index"`` name the same functions, as
  Node and TypeScript resolve them. (When both ``lib.ts`` and ``lib/index.ts`` exist they share a name.)
- Functions in the tree are ``<module>#<exported or local name>``; a default export is ``<module>#default``.
- Library members are ``<package>.<member...>``: ``node:`` dropped, and a subpath's extension dropped
  (``@modelcontextprotocol/sdk/server/mcp.js`` is ``@modelcontextprotocol/sdk/server/mcp``).
- Bare specifiers naming one of the tree's own packages (``@acme/db``: ``workspace.py``) are files of the
  tree, resolved as a relative import of the package's entry would be.
- Specifiers that are project aliases (``@/``, ``~/``, ``#``: tsconfig ``paths`` or package ``imports``)
  cannot be resolved from one file; their names keep the specifier and are marked unresolvable.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.engines.static.jsts.syntax import FUNCTIONS, Code, namespace_members, unwrap

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.workspace import Workspace

EXTENSIONS = (".d.ts", ".tsx", ".ts", ".mts", ".cts", ".jsx", ".js", ".mjs", ".cjs")
PROJECT_ALIAS_PREFIXES = ("@/", "~/", "#")
# Aliases named as modules of the tree (``~/utils/x#name``): the linker maps them to the module whose
# path ends with the rest (``src/utils/x``), as tsconfig ``paths`` (``"~/*": ["./src/*"]``) would.
TREE_ALIAS_PREFIXES = ("@/", "~/")


def strip_extension(path: str) -> str:
    for ext in EXTENSIONS:
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def canonical_module(path: str) -> str:
    """``src/tools/shell.ts`` -> ``src/tools/shell``; ``src/lib/index.ts`` -> ``src/lib``."""
    stem = strip_extension(path)
    if stem.endswith("/index"):
        return stem[: -len("/index")]
    if stem in ("", "."):
        return "index"
    return stem


def package_name(spec: str) -> str:
    """A bare specifier as a library prefix: ``node:fs`` -> ``fs``, ``pkg/sub.js`` -> ``pkg/sub``."""
    spec = spec.removeprefix("node:")
    parts = spec.split("/")
    head = 2 if spec.startswith("@") else 1
    if len(parts) > head:
        return "/".join([*parts[:head], strip_extension("/".join(parts[head:]))])
    return spec


@dataclass
class Imports:
    """What a file's top level binds: import/require aliases and its own functions, classes, objects."""

    module: str
    path: str
    aliases: dict[str, str] = field(default_factory=dict)
    unresolvable: set[str] = field(default_factory=set)  # local names bound to project-alias imports
    local_defs: dict[str, str] = field(default_factory=dict)
    json_imports: dict[str, int] = field(default_factory=dict)  # local name -> line, for `import x from "./a.json"`
    # Strings named by a dotted constant: enum members and keys of top-level object constants
    # (``ToolName.ECHO`` for ``enum ToolName { ECHO = "echo" }``), known before any use.
    consts: dict[str, str] = field(default_factory=dict)
    # Top-level object literals bound to a name (``const config = { description, inputSchema }``).
    objects: dict[str, Node] = field(default_factory=dict)
    # Names this module exports from other files of the tree (``export { Manager } from "./m.js"``:
    # ``<module>#Manager`` -> ``m#Manager``; ``export * from "./m.js"``: ``<module>#*`` -> ``m#``).
    reexports: dict[str, list[str]] = field(default_factory=dict)
    # Object shapes of top-level interfaces and type aliases (``interface Deps { sandbox: Sandbox }``),
    # for destructured parameters typed by them.
    shapes: dict[str, Node] = field(default_factory=dict)
    # Interfaces and type aliases declared at the top level, by name -> ``<module>#<name>``.
    own_types: dict[str, str] = field(default_factory=dict)
    # Third-party packages the file imports (``@octokit/rest``, ``dockerode``), by the name calls use.
    packages: set[str] = field(default_factory=set)
    # The tree's own packages, by the names their ``package.json`` files give.
    workspace: Workspace | None = None

    def resolve_spec(self, spec: str) -> tuple[str, bool]:
        """A module specifier -> (name prefix, is a file of the tree)."""
        if spec.startswith("."):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.path), spec))
            return canonical_module(joined), True
        if spec.startswith(TREE_ALIAS_PREFIXES):  # ``~/utils/x``: a module of the tree the linker finds
            return canonical_module(spec), True
        own = self.workspace.resolve(spec) if self.workspace is not None else None
        if own is not None:
            return own, True
        return package_name(spec), False

    def member(self, spec: str, name: str) -> str:
        prefix, local = self.resolve_spec(spec)
        return f"{prefix}#{name}" if local else f"{prefix}.{name}"

    def namespace(self, spec: str) -> str:
        """What a whole-module binding names: ``<module>#`` for a file of the tree, the package otherwise."""
        prefix, local = self.resolve_spec(spec)
        return f"{prefix}#" if local else prefix

    def bind(self, local: str, name: str, spec: str) -> None:
        self.aliases[local] = name
        if not spec.startswith((".", *TREE_ALIAS_PREFIXES, *PROJECT_ALIAS_PREFIXES)) and "#" not in name:
            self.packages.add(package_name(spec))
        if spec.startswith(PROJECT_ALIAS_PREFIXES):
            self.unresolvable.add(local)
        if spec.endswith(".json"):
            self.json_imports.setdefault(local, 0)


def collect_imports(root: Node, path: str, module: str, code: Code, workspace: Workspace | None = None) -> Imports:
    """The top level's imports, requires and definitions (hoisted: they are known before any use)."""
    imports = Imports(module=module, path=path, workspace=workspace)
    renames: dict[str, str] = {}
    results: dict[str, str] = {}  # type aliases naming a function's result, by the function's local name
    namespaces: list[Node] = []  # read once every top-level definition is known (theirs come first)
    bound: set[str] = set()  # top-level variables (``const store = new Store()``)
    for node in root.named_children:
        target = node
        if node.type == "export_statement":
            _export(node, imports, renames, code)
            decl = node.child_by_field_id(code.fields.declaration)
            if decl is not None:
                target = decl
        kind = target.type
        if kind == "import_statement":
            _import(target, imports, code)
        elif kind in ("lexical_declaration", "variable_declaration"):
            for decl in target.named_children:
                if decl.type == "variable_declarator":
                    _declarator(decl, imports, code)
                    bound.add(code.text(decl.child_by_field_id(code.fields.name)))
        elif kind in (
            "function_declaration",
            "class_declaration",
            "abstract_class_declaration",
            "generator_function_declaration",
        ):
            name = code.text(target.child_by_field_id(code.fields.name))
            if name:
                imports.local_defs.setdefault(name, f"{module}#{name}")
        elif kind == "internal_module" or (
            kind == "expression_statement"
            and target.named_children
            and target.named_children[0].type == "internal_module"
        ):
            namespaces.append(target if kind == "internal_module" else target.named_children[0])
        elif kind == "expression_statement" and target.named_children:
            _commonjs_export(target.named_children[0], renames, code)
        elif kind == "enum_declaration":
            _enum(target, imports, code)
        elif kind in ("interface_declaration", "type_alias_declaration"):
            shape = target.child_by_field_id(code.fields.body if kind == "interface_declaration" else code.fields.value)
            name = code.text(target.child_by_field_id(code.fields.name))
            if name and shape is not None and _has_methods(shape):
                # A type of this file's own whose values are called (``interface IRunner { run(): void }``,
                # ``type Factory = () => IRunner``), named ``<module>#<name>`` where an annotation or an
                # ``implements`` clause of this file names it (as importing files name it); a type of data
                # only (``type Result = { ok: boolean }``) names nothing to call.
                imports.own_types.setdefault(name, f"{module}#{name}")
            if shape is not None and name:
                imports.shapes.setdefault(name, shape)
                made = _returned_by(shape, code)
                if made:
                    results[name] = made
    for namespace in namespaces:
        _namespace(namespace, imports, code)
    for name, made in results.items():
        # ``type SlackClient = ReturnType<typeof createSlackClient>``: a value of that type is what the
        # function returns, named by the function (as ``ReturnType<typeof f>`` written in place is), here
        # and in the modules importing the type.
        built = imports.local_defs.get(made)
        if built is not None:
            imports.local_defs.setdefault(name, built)
            imports.reexports.setdefault(f"{module}#{name}", []).append(built)
    for local, exported in renames.items():
        if local in imports.local_defs:
            imports.local_defs[local] = f"{module}#{exported}"
        elif "#" in imports.aliases.get(local, ""):  # import { X } from "./x"; export { X as Y }
            imports.reexports.setdefault(f"{module}#{exported}", []).append(imports.aliases[local])
        elif local in bound:  # const manager = new Manager(); export default manager
            imports.reexports.setdefault(f"{module}#{exported}", []).append(f"{module}#{local}")
    return imports


def _has_methods(shape: Node) -> bool:
    """Whether a type's values are called: a function type, or an object type with a method, written as one
    (``run(cmd: string): Promise<void>``) or as a member of a function type (``run: (cmd: string) => Promise<void>``)."""
    if shape.type == "function_type":
        return True
    return shape.type in ("object_type", "interface_body") and any(
        m.type == "method_signature" or (m.type == "property_signature" and _function_typed(m))
        for m in shape.named_children
    )


def _function_typed(member: Node) -> bool:
    """``run: (cmd: string) => Promise<void>``: a member whose annotated type is a function type."""
    annotation = next((c for c in member.named_children if c.type == "type_annotation"), None)
    return annotation is not None and any(c.type == "function_type" for c in annotation.named_children)


def _returned_by(shape: Node, code: Code) -> str | None:
    """The function a ``ReturnType<typeof f>`` type names (``f``), else None."""
    if shape.type != "generic_type" or code.text(shape.child_by_field_id(code.fields.name)) != "ReturnType":
        return None
    arguments = next((c for c in shape.named_children if c.type == "type_arguments"), None)
    query = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if query is None or query.type != "type_query" or not query.named_children:
        return None
    named = query.named_children[0]
    return code.text(named) if named.type == "identifier" else None


def _import(node: Node, imports: Imports, code: Code) -> None:
    source = code.string_value(node.child_by_field_id(code.fields.source))
    if source is None:
        return
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                prefix, local = imports.resolve_spec(source)
                imports.bind(code.text(part), f"{prefix}#default" if local else prefix, source)
                if source.endswith(".json"):
                    imports.json_imports[code.text(part)] = node.start_point[0] + 1
            elif part.type == "namespace_import":
                ident = next((c for c in part.named_children if c.type == "identifier"), None)
                if ident is not None:
                    imports.bind(code.text(ident), imports.namespace(source), source)
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = code.text(spec.child_by_field_id(code.fields.name))
                    alias = code.text(spec.child_by_field_id(code.fields.alias)) or name
                    imports.bind(alias, imports.member(source, name), source)


def require_spec(value: Node | None, code: Code) -> str | None:
    """``"fs"`` for ``require("fs")`` (also ``await import("fs")``), else None."""
    kinds = code.kinds
    value = unwrap(value)
    if value is None or kinds[value.kind_id] != "call_expression":
        return None
    func = value.child_by_field_id(code.fields.function)
    if func is None or (kinds[func.kind_id] != "import" and code.raw(func) != b"require"):
        return None
    args = value.child_by_field_id(code.fields.arguments)
    return code.string_value(args.named_children[0]) if args is not None and args.named_children else None


def _declarator(decl: Node, imports: Imports, code: Code) -> None:
    name = decl.child_by_field_id(code.fields.name)
    value = decl.child_by_field_id(code.fields.value)
    if name is None:
        return
    spec = require_spec(value, code)
    if spec is not None:
        if name.type == "identifier":
            imports.bind(code.text(name), imports.namespace(spec), spec)
            if spec.endswith(".json"):
                imports.json_imports[code.text(name)] = decl.start_point[0] + 1
        elif name.type == "object_pattern":
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    imports.bind(code.text(part), imports.member(spec, code.text(part)), spec)
                elif part.type == "pair_pattern":
                    key = code.text(part.child_by_field_id(code.fields.key))
                    imports.bind(code.text(part.child_by_field_id(code.fields.value)), imports.member(spec, key), spec)
        return
    inner = unwrap(value)
    if name.type == "object_pattern" and inner is not None and inner.type == "identifier":
        # ``import pkg from "pg"; const { Pool } = pkg``: a package's members taken apart from its whole
        # binding are named as ``pkg.Pool`` would name them (a tree module's binding holds a ``#``).
        holder = imports.aliases.get(code.text(inner))
        if holder is not None and "#" not in holder:
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    imports.aliases.setdefault(code.text(part), f"{holder}.{code.text(part)}")
                elif part.type == "pair_pattern":
                    key = code.text(part.child_by_field_id(code.fields.key))
                    imports.aliases.setdefault(code.text(part.child_by_field_id(code.fields.value)), f"{holder}.{key}")
        return
    if name.type == "identifier" and inner is not None and inner.type == "object":
        local = code.text(name)
        imports.objects.setdefault(local, inner)
        for key, item in code.props(inner).items():
            text = code.string_value(unwrap(item))
            if text is not None:
                imports.consts.setdefault(f"{local}.{key}", text)
    if name.type == "identifier" and inner is not None and (inner.type in FUNCTIONS or inner.type == "object"):
        # Functions and object literals of functions are called by name from this and other files.
        imports.local_defs.setdefault(code.text(name), f"{imports.module}#{code.text(name)}")
    elif name.type == "identifier" and inner is not None and inner.type == "class":
        imports.local_defs.setdefault(code.text(name), f"{imports.module}#{code.text(name)}")


def _namespace(node: Node, imports: Imports, code: Code) -> None:
    """``namespace Computer { export function click() {} }``: ``Computer`` is defined here, its functions
    ``<module>#Computer.click``, also by their bare names (as the namespace's own code calls them) where no
    other definition of the module has the name."""
    name = code.text(node.child_by_field_id(code.fields.name))
    body = node.child_by_field_id(code.fields.body)
    if not name or body is None:
        return
    imports.local_defs.setdefault(name, f"{imports.module}#{name}")
    for member in namespace_members(body, code.fields):
        member_name = code.text(member.child_by_field_id(code.fields.name))
        if member_name:
            imports.local_defs.setdefault(member_name, f"{imports.module}#{name}.{member_name}")


def _enum(node: Node, imports: Imports, code: Code) -> None:
    """``enum ToolName { ECHO = "echo" }``: ``ToolName.ECHO`` is ``"echo"`` (string members only)."""
    name = code.text(node.child_by_field_id(code.fields.name))
    body = node.child_by_field_id(code.fields.body)
    for member in body.named_children if body is not None and name else []:
        if member.type == "enum_assignment":
            key = code.text(member.child_by_field_id(code.fields.name))
            text = code.string_value(unwrap(member.child_by_field_id(code.fields.value)))
            if key and text is not None:
                imports.consts.setdefault(f"{name}.{key}", text)


def _export(node: Node, imports: Imports, renames: dict[str, str], code: Code) -> None:
    """``export default foo`` / ``export { foo as bar }``: the local function's exported name."""
    is_default = any(c.type == "default" for c in node.children)
    value = node.child_by_field_id(code.fields.value)
    decl = node.child_by_field_id(code.fields.declaration)
    if is_default:
        target = decl if decl is not None else value
        if target is not None and target.type in ("identifier",):
            renames[code.text(target)] = "default"
        elif target is not None and target.type in (
            "function_declaration",
            "class_declaration",
            "abstract_class_declaration",
            "function_expression",
        ):
            name = code.text(target.child_by_field_id(code.fields.name))
            if name:
                renames[name] = "default"
        return
    source = code.string_value(node.child_by_field_id(code.fields.source))
    if source is not None:
        _reexport(node, source, imports, code)
        return
    for clause in node.named_children:
        if clause.type != "export_clause":
            continue
        for spec in clause.named_children:
            if spec.type == "export_specifier":
                local = code.text(spec.child_by_field_id(code.fields.name))
                alias = code.text(spec.child_by_field_id(code.fields.alias))
                if local:
                    renames[local] = alias or local


def _reexport(node: Node, source: str, imports: Imports, code: Code) -> None:
    """``export { X as Y } from "./x"`` / ``export * from "./x"`` / ``export * as ns from "./x"`` (files of the
    tree only)."""
    prefix, local = imports.resolve_spec(source)
    if not local:
        return
    for clause in node.named_children:
        if clause.type == "export_clause":
            for spec in clause.named_children:
                if spec.type == "export_specifier":
                    name = code.text(spec.child_by_field_id(code.fields.name))
                    alias = code.text(spec.child_by_field_id(code.fields.alias)) or name
                    if name:
                        imports.reexports.setdefault(f"{imports.module}#{alias}", []).append(f"{prefix}#{name}")
            return
    for child in node.named_children:
        if child.type == "namespace_export":
            # ``export * as query from "./query"``: ``<module>#query.definition`` is ``<query module>#definition``.
            namespace = next((code.text(c) for c in child.named_children if c.type == "identifier"), "")
            if namespace:
                imports.reexports.setdefault(f"{imports.module}#{namespace}", []).append(f"{prefix}#")
            return
    if any(c.type == "*" for c in node.children):
        imports.reexports.setdefault(f"{imports.module}#*", []).append(f"{prefix}#")


def _commonjs_export(expr: Node, renames: dict[str, str], code: Code) -> None:
    """``module.exports = foo`` names ``foo`` ``default`` (what ``require`` returns)."""
    if expr.type != "assignment_expression":
        return
    left, right = expr.child_by_field_id(code.fields.left), expr.child_by_field_id(code.fields.right)
    if code.text(left) in ("module.exports", "exports") and right is not None and right.type == "identifier":
        renames[code.text(right)] = "default"
