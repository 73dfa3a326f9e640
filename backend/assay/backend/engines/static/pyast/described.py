"""Tool classes by what reaches a model: a class of the tree is a tool class when its instances' name and schema
are handed to a model, whatever its base is called. Two writings say so, read where they are written:

- a method building a tool schema from ``self.name`` (``def to_schema(self): return {"type": "function",
  "function": {"name": self.name, "parameters": self.parameters}}``, ``Tool(name=self.name,
  inputSchema=self.schema)``): the class describes its instances to a model, and so do its subclasses';
- a tool schema built from another object's ``name`` (``types.Tool(name=t.name, description=t.description,
  inputSchema=t.get_schema())`` in a ``list_tools`` handler, ``{"name": t.name, "input_schema": t.schema}``):
  the object is an instance of a class answering the member the schema is read from (``get_schema``).

The analyzer records both per file (``FileFacts.describers``, ``FileFacts.schemaMembers``); the linker keeps a
class that names its tool and runs it (``ToolSource`` ``described``) only when one of them holds for it.
"""

from __future__ import annotations

import ast


def schema_source(name: ast.expr | None, schema: ast.expr | None) -> tuple[bool, str | None] | None:
    """What a tool schema whose name is ``name`` and schema ``schema`` is built from: ``(True, None)`` when
    from ``self.name`` (the enclosing class describes its instances), ``(False, member)`` when from another
    object's ``name``, ``member`` being what the schema reads on that object (``t.get_schema()`` ->
    ``get_schema``; None when it reads nothing of it); None when the name is no object's ``name``."""
    if schema is None or not isinstance(name, ast.Attribute) or name.attr != "name":
        return None
    holder = name.value
    if not isinstance(holder, ast.Name):
        return None
    if holder.id == "self":
        return True, None
    return False, _member_of(schema, holder.id)


def _member_of(value: ast.expr, variable: str) -> str | None:
    """The member of ``variable`` an expression reads (``t.args_schema.model_json_schema()`` -> ``args_schema``,
    ``t.parameters or {}`` -> ``parameters``), the first in ``ast.walk`` order."""
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == variable:
            return node.attr
    return None


def dict_schema(node: ast.Dict, schema_keys: frozenset[str]) -> tuple[ast.expr | None, ast.expr | None]:
    """The name and schema values of a tool schema written as a dict (``{"name": ..., "input_schema": ...}``,
    or the inner ``"function"`` dict of ``{"type": "function", "function": {...}}``)."""
    fields: dict[str, ast.expr] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            fields[key.value] = value
    inner = fields.get("function")
    if "name" not in fields and isinstance(inner, ast.Dict):
        return dict_schema(inner, schema_keys)
    schema = next((fields[k] for k in sorted(schema_keys) if k in fields), None)
    return fields.get("name"), schema


def abstract_method(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@abstractmethod`` or a body that does nothing (``pass``, ``...``, a docstring, ``raise
    NotImplementedError``): a base's declaration of a method, no implementation."""
    for dec in fn.decorator_list:
        target = dec.attr if isinstance(dec, ast.Attribute) else getattr(dec, "id", None)
        if target == "abstractmethod":
            return True
    for stmt in fn.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True
