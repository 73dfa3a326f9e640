"""The shared state of a LangGraph.js graph: what a node writes under a key is what every node of the same
state reads under it (as ``pyast/graph_state.py`` for Python).

A node is a function whose first parameter is typed by the graph's state: ``typeof StateAnnotation.State``
(the ``State`` type of an ``Annotation.Root``, named by the annotation it belongs to) or a type of the tree
(``state: State`` with ``type State = typeof StateAnnotation.State`` in a module of its own). It updates the
state by returning an object of keys (``return { query: result.query }``); another node reads the key
(``state.query``). Each key is a field the linker gathers over the tree: ``<state type>[<key>]``. A key only
constants or the user's input are written to carries no model output.
"""

from __future__ import annotations

from functools import lru_cache

from tree_sitter import Node

from assay.backend.engines.static.facts import TaintOrigin
from assay.backend.engines.static.jsts.scope import Taint
from assay.backend.engines.static.jsts.syntax import unwrap


@lru_cache(maxsize=4096)
def state_origin(state_type: str, key: str) -> Taint:
    """What a node reads under ``key`` of the state ``state_type``."""
    return frozenset({TaintOrigin(kind="field", callee=state_field(state_type, key))})


def state_field(state_type: str, key: str) -> str:
    return f"{state_type}[{key}]"


class GraphStateLogic:
    """Recognises a node's state parameter (mixed into the analyzer, which gives ``fields``, ``code``,
    ``dotted`` and ``type_name``)."""

    def state_param(self, node: Node) -> tuple[str, str] | None:
        """The name and state type of a node's first parameter, when its type is a graph's state."""
        params = node.child_by_field_id(self.fields.parameters)  # type: ignore[attr-defined]
        first = params.named_children[0] if params is not None and params.named_children else None
        if first is None or not first.type.endswith("_parameter"):
            return None
        pattern = first.child_by_field_id(self.fields.pattern)  # type: ignore[attr-defined]
        annotation = first.child_by_field_id(self.fields.type)  # type: ignore[attr-defined]
        if pattern is None or pattern.type != "identifier" or annotation is None:
            return None
        typed = annotation.named_children[0] if annotation.named_children else None
        if typed is not None and typed.type == "type_query":
            # ``typeof StateAnnotation.State``: the state of that annotation.
            query = typed.named_children[0] if typed.named_children else None
            if query is None or query.type != "member_expression":
                return None
            prop = query.child_by_field_id(self.fields.property)  # type: ignore[attr-defined]
            if prop is None or self.code.text(prop) != "State":  # type: ignore[attr-defined]
                return None
            owner = query.child_by_field_id(self.fields.object)  # type: ignore[attr-defined]
            if owner is None or owner.type != "identifier":
                return None
            # The annotation itself, not what it is made by: imported (``path#Name``) or of this module.
            name = self.code.text(owner)  # type: ignore[attr-defined]
            bound = self.imports.aliases.get(name) or f"{self.module}#{name}"  # type: ignore[attr-defined]
            return self.code.text(pattern), bound  # type: ignore[attr-defined]
        found = self.type_name(annotation)  # type: ignore[attr-defined]
        # A type of the tree (``State`` exported beside the annotation), not a package's.
        return (self.code.text(pattern), found) if found and "#" in found else None  # type: ignore[attr-defined]


def returned_object(value: Node | None) -> Node | None:
    """The object literal a ``return`` gives (``return { query }``, ``return ({ ... })``), else None."""
    inner = unwrap(value)
    return inner if inner is not None and inner.type == "object" else None
