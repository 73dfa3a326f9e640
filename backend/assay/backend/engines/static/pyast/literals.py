"""What a piece of Python syntax spells out literally, read without resolving any name: string
constants and keyword arguments, f-string text, docstrings, dotted names as written, dict literals,
annotations, the names a comprehension binds. Used by the analyzer (``pyast/frontend.py``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any

from assay.backend.engines.static.pyast.syntax import walk

_WRITE_MODES = re.compile(r"[wax+]")
_MODE_TEXT = re.compile(r"[rwaxbtU+]+([:|]\w*)?")
# The escapes that can put a surrogate code point in a Python string (``"\\udce4"``); the only way a
# str from a source file that decoded as UTF-8 can hold one.
_SURROGATE_ESCAPE = re.compile(rb"\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")


def mend_surrogates(tree: ast.AST, source: bytes) -> None:
    """Replace, in place, each unpaired surrogate in the string constants of ``tree`` with U+FFFD (a
    pair written as two escapes becomes the character it encodes). Such a string is valid Python but
    not Unicode text: JSON, and so a bundle, cannot hold it. Costs one search of ``source`` when, as
    almost always, it has no surrogate escape."""
    if _SURROGATE_ESCAPE.search(source) is None:
        return
    for node in walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node.value.encode("utf-8")
            except UnicodeEncodeError:
                node.value = node.value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def annotation_type(node: ast.expr | None) -> ast.expr | None:
    """The class an annotation names: ``Session``, ``orm.Session``, ``Session | None``,
    ``Optional[Session]``; nothing for other generics or string annotations."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        if isinstance(right, ast.Constant) and right.value is None:
            return annotation_type(left)
        if isinstance(left, ast.Constant) and left.value is None:
            return annotation_type(right)
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):
        outer = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
        return annotation_type(node.slice) if outer == "Optional" else None
    return node if isinstance(node, ast.Name | ast.Attribute) else None


def bound_names(node: ast.expr) -> Iterator[str]:
    """The names a comprehension's loops or a lambda's parameters bind."""
    if isinstance(node, ast.Lambda):
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                yield arg.arg
        return
    for generator in getattr(node, "generators", ()):
        targets = [generator.target]
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Name):
                yield target.id
            elif isinstance(target, ast.Tuple | ast.List):
                targets.extend(target.elts)
            elif isinstance(target, ast.Starred):
                targets.append(target.value)


def is_literal(node: ast.expr) -> bool:
    """A constant, or a tuple/list/set of constants (``('y', 'yes')``)."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and all(isinstance(e, ast.Constant) for e in node.elts)


def constructed_type(call: ast.Call, callee: str | None) -> str | None:
    """The type a call's value has: the callee's, but a boto3 client or resource by its service (a botocore
    session's ``create_client`` makes the same client)."""
    if callee is None or not callee.startswith(("boto3", "botocore")):
        return callee
    if callee == "boto3.client" or callee.endswith((".client", ".create_client")):
        service = literal_str(call.args[0]) if call.args else kwarg_str(call, "service_name")
        return f"boto3.client:{service}" if service else "boto3.client:*"
    if callee.endswith(".resource"):
        service = literal_str(call.args[0]) if call.args else None
        return f"boto3.resource:{service}" if service else "boto3.resource:*"
    return callee


def item_name(key: ast.expr) -> str:
    """The member name a subscript's key gives: a string literal that is a name (``db["users"]`` -> ``users``), else
    ``[]`` (an item chosen at run time)."""
    value = literal_str(key)
    return value if value is not None and value.isidentifier() else "[]"


def literal_str(node: ast.AST | None) -> str | None:
    """The value of a string constant."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    """The value a call gives the keyword argument ``name``."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def kwarg_str(call: ast.Call, name: str) -> str | None:
    """The string constant a call gives the keyword argument ``name``."""
    return literal_str(kwarg(call, name))


def string_text(node: ast.AST) -> str | None:
    """The literal text of a string or the constant parts of an f-string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def opens_for_writing(node: ast.Call, fn: ast.AST | None = None) -> bool:
    """Whether an ``open(path, mode)`` call (or ``path.open(mode)``) has a writing mode; with the function ``fn``
    making the call, also a mode held in a local it binds to literals (``mode = "a" if exists else "w"``), any of
    which writes."""
    mode = kwarg(node, "mode")
    if mode is None:
        # ``path.open("w")`` takes the mode first; ``open(p, "w")``, ``io.open(p, "w")``, ``tarfile.open(p, "w")``
        # and ``zipfile.ZipFile(p, "w")`` second: an attribute call given a path and then a value is the latter.
        first = node.args[0] if node.args else None
        is_method = isinstance(node.func, ast.Attribute) and (
            len(node.args) < 2 or _MODE_TEXT.fullmatch(literal_str(first) or "") is not None
        )
        index = 0 if is_method else 1
        mode = node.args[index] if len(node.args) > index else None
    text = literal_str(mode)
    if text is None and fn is not None and isinstance(mode, ast.Name):
        return any(_writes(t) for t in _bound_literals(fn, mode.id))
    return text is not None and _writes(text)


def _writes(mode: str) -> bool:
    """Whether a file mode (``"w"``, ``"a+"``, ``"w:gz"``) writes; a text that is no mode (a path) does not."""
    return _MODE_TEXT.fullmatch(mode) is not None and _WRITE_MODES.search(mode.split(":")[0].split("|")[0]) is not None


def _bound_literals(fn: ast.AST, name: str) -> list[str]:
    """The string literals ``fn`` assigns to the local ``name``, directly or as a branch of a conditional."""
    out: list[str] = []
    for node in walk(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            values = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
            out.extend(text for value in values if (text := literal_str(value)) is not None)
    return out


def docstring(node: ast.AST) -> str | None:
    """The first paragraph of a definition's docstring."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        text = first.value.value
        if "\n" not in text and "\t" not in text:
            # One line: what ``ast.get_docstring`` (``inspect.cleandoc``) would leave, stripped as below.
            return text.strip() or None
    doc = ast.get_docstring(node)
    if doc:
        return doc.strip().split("\n\n", 1)[0].strip()
    return None


def class_attr_str(cls: ast.ClassDef, name: str) -> str | None:
    """The string constant a class body assigns to ``name``."""
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return literal_str(stmt.value)
    return None


def module_bindings(tree: ast.Module, name: str) -> list[ast.expr]:
    """The values module-level ``name = value`` statements (one target) bind, in order."""
    return [
        stmt.value
        for stmt in tree.body
        if isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == name
    ]


def base_init_calls(cls: ast.ClassDef) -> Iterator[ast.Call]:
    """The ``<call>.__init__(...)`` calls in the class's own ``__init__`` (``super().__init__(name=...)``),
    in ``ast.walk`` order."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return
    for node in walk(init):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
            and isinstance(node.func.value, ast.Call)
        ):
            yield node


def name_text(node: ast.AST) -> str | None:
    """The dotted text of a name, attribute chain or the callee of a call, as written."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = name_text(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Call):
        return name_text(node.func)
    return None


def tool_annotations(call: ast.Call) -> dict[str, bool]:
    """The boolean MCP tool annotations a tool decorator is given (``annotations=...``), camel-cased."""
    node = kwarg(call, "annotations")
    out: dict[str, bool] = {}
    snake = {
        "read_only_hint": "readOnlyHint",
        "destructive_hint": "destructiveHint",
        "idempotent_hint": "idempotentHint",
        "open_world_hint": "openWorldHint",
    }
    if isinstance(node, ast.Call):
        pairs: Iterator[tuple[str | None, ast.expr]] = ((k.arg, k.value) for k in node.keywords)
    elif isinstance(node, ast.Dict):
        pairs = ((literal_str(k), v) for k, v in zip(node.keys, node.values, strict=True))
    else:
        return out
    for key, value in pairs:
        if key and isinstance(value, ast.Constant) and isinstance(value.value, bool):
            out[snake.get(key, key)] = value.value
    return out


def literal_dict(node: ast.Dict) -> dict[str, Any] | None:
    """A dict literal's string keys with their constant (or nested dict) values; ``None`` for other values."""
    out: dict[str, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        k = literal_str(key)
        if k is None:
            continue
        if isinstance(value, ast.Constant):
            out[k] = value.value
        elif isinstance(value, ast.Dict):
            out[k] = literal_dict(value) or {}
        else:
            out[k] = None
    return out or None


def schema_params(data: dict[str, Any]) -> list[str]:
    """The parameter names of a literal tool definition's JSON schema."""
    inner = data.get("function") if isinstance(data.get("function"), dict) else data
    assert isinstance(inner, dict)
    spec = inner.get("toolSpec")
    inner = spec if isinstance(spec, dict) else inner  # Bedrock Converse: ``{"toolSpec": {...}}``
    schema = inner.get("parameters") or inner.get("input_schema") or {}
    if not schema and isinstance(given := inner.get("inputSchema"), dict):
        schema = given.get("json") if isinstance(given.get("json"), dict) else given  # Bedrock's ``{"json": {...}}``
    props = schema.get("properties") if isinstance(schema, dict) else None
    return [str(k) for k in props] if isinstance(props, dict) else []


_CASE_METHODS: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "upper": str.upper,
    "strip": str.strip,
    "casefold": str.casefold,
}


def setting_default(value: ast.expr) -> tuple[bool, object]:
    """What a module setting holds when nothing is configured, and whether that is known: a literal, an environment
    read with a literal default (``os.getenv("X", "true")``, ``os.environ.get("X")`` is None), changed by case methods
    (``.lower()``) and compared with literals (``== "true"``, ``in ("1", "true")``)."""
    if isinstance(value, ast.Constant):
        return True, value.value
    if isinstance(value, ast.Compare) and len(value.ops) == 1:
        known, left = setting_default(value.left)
        right = value.comparators[0]
        options = (
            [e.value for e in right.elts if isinstance(e, ast.Constant)]
            if isinstance(right, ast.Tuple | ast.List | ast.Set)
            else [right.value]
            if isinstance(right, ast.Constant)
            else None
        )
        if not known or options is None:
            return False, None
        op = value.ops[0]
        if isinstance(op, ast.Eq | ast.NotEq) and len(options) == 1:
            return True, (left == options[0]) == isinstance(op, ast.Eq)
        if isinstance(op, ast.In | ast.NotIn):
            return True, (left in options) == isinstance(op, ast.In)
        return False, None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        method = _CASE_METHODS.get(value.func.attr)
        if method is not None and not value.args:
            known, inner = setting_default(value.func.value)
            return (True, method(inner)) if known and isinstance(inner, str) else (False, None)
        reader = ast.unparse(value.func)
        if reader in ("os.getenv", "os.environ.get", "getenv", "environ.get") and value.args:
            default = value.args[1] if len(value.args) > 1 else None
            if default is None:
                return True, None
            return (True, default.value) if isinstance(default, ast.Constant) else (False, None)
    return False, None


def declines(value: ast.expr) -> bool:
    """A value that switches the role off (``False``, ``None``, ``"never"``, ``"never_require"``, an empty
    list of guardrails)."""
    if isinstance(value, ast.List | ast.Tuple):
        return not value.elts
    return isinstance(value, ast.Constant) and value.value in (False, None, "never", "", "never_require")
