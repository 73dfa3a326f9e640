"""Message classes a model is offered by registering them on an agent (Langroid): a class extending the
framework's message base (``class Search(ToolMessage): request = "search"``) is the schema of a tool named
by that attribute, and ``agent.enable_message(Search)`` (a class, a list, a variable holding one, a method's
returned list) offers it to the agent's model unless the offer keyword is false (``use=False``: the agent
only handles it). What runs a call is the agent's method named after the tool (``def search(self, msg:
Search)``) when there is one, else the class's own handler (``handle``).

The file records each part (``link/message_tools.py`` joins them once every file is read):

- the class: a candidate tool at the attribute naming it, with the class's handler, held by the class
  (``ToolDef.binding``: ``<module>#<Class>``);
- a registration: a use listing the class (``ToolDef.listed``, ``ref``), or the method whose returned list
  it registers (``self.register_tools()`` -> ``*.register_tools()``: that method of any class, subclasses
  overriding it included);
- a method taking the class as its first argument: a handler of the tool named like it (``ref`` with
  ``refName``).

The library's own message classes (``RecipientTool``, ``DuckduckgoSearchTool``) are tools of their library
name where they are registered, with the effect the pack gives them.
"""

from __future__ import annotations

import ast

from assay.backend.engines.static.facts import ToolDef
from assay.backend.engines.static.pyast.literals import class_attr_str, docstring, kwarg, literal_str
from assay.backend.engines.static.pyast.roles import RoleLogic
from assay.backend.engines.static.pyast.rules import LibraryTool
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.rules.pack import Rule

# The ``ref`` of a registration of what a method returns, whichever class defines it: ``*.<method>()``.
METHOD_RESULT = "*."


class MessageTools(RoleLogic):
    """Message classes, their registrations on agents and the agents' methods handling them."""

    def _message_class(self, cls: ast.ClassDef, qualname: str) -> bool:
        """A message class naming its tool: a candidate tool at that attribute (no tool until registered)."""
        spec = self.rules.message_classes
        if spec is None:
            return False
        rule, bases, attr, handlers = spec
        if not self._extends_message(cls, bases):
            return False
        named = next((s for s in cls.body if isinstance(s, ast.Assign | ast.AnnAssign) and _assigns(s, attr)), None)
        name = literal_str(named.value) if named is not None and named.value is not None else None
        if named is None or not name:
            return False  # a base of message classes, or a template named by its subclasses
        defined = {s.name for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        handler = next((h for h in handlers if h in defined), None)
        self.tools.append(
            ToolDef.found(
                rule,
                name,
                self.loc(named),
                description=class_attr_str(cls, "purpose") or docstring(cls),
                function=f"{qualname}.{handler}" if handler else None,
                binding=f"{self.module}#{cls.name}",
                candidate=True,
            )
        )
        return True

    def _extends_message(self, cls: ast.ClassDef, bases: frozenset[str]) -> bool:
        names = {self.dotted(b, None)[0] for b in cls.bases}
        if cls.name in self.class_bases:
            names |= self._ancestors(cls.name)
        return any(
            n and not n.startswith(self.module_prefix) and n.rsplit(".", 1)[-1] in bases and "." in n for n in names
        )

    def _message_handlers(self, cls: ast.ClassDef, qualname: str) -> None:
        """Methods of ``cls`` taking a class of the tree as their first argument (``def search(self, msg:
        Search)``): the agent's handler of that class's tool when named like it (the linker checks)."""
        spec = self.rules.message_classes
        if spec is None:
            return
        for stmt in cls.body:
            if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) or len(stmt.args.args) < 2:
                continue
            annotation = stmt.args.args[1].annotation
            if not isinstance(annotation, ast.Name | ast.Attribute):
                continue
            typed, resolved = self.dotted(annotation, None)
            if not typed or not resolved or "." not in typed or self._library_message(typed) is not None:
                continue
            module, _, name = typed.rpartition(".")
            self.tools.append(
                ToolDef.found(
                    spec[0],
                    stmt.name,
                    self.loc(stmt),
                    function=f"{qualname}.{stmt.name}",
                    ref=f"{module}#{name}",
                    ref_name=True,
                )
            )

    def _message_registration(self, node: ast.Call, method: str, scope: Scope) -> None:
        """``agent.enable_message(Search)``, ``enable_message([A, B])``, ``enable_message(self.tools())``,
        ``enable_message(RecipientTool.create(...))``: each class registered, offered unless ``use=False``."""
        spec = self.rules.message_classes
        if spec is None or not node.args:
            return
        offer, _ = self.rules.message_registers[method]
        offered = kwarg(node, offer)
        if isinstance(offered, ast.Constant) and not offered.value:
            return
        for element in self._tool_elements(node.args[0], scope):
            self._registered(element, spec[0], scope)

    def _registered(self, element: ast.expr, rule: Rule, scope: Scope) -> None:
        target = element
        if isinstance(element, ast.Call):
            func = element.func
            if not isinstance(func, ast.Attribute):
                return
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                # ``self.register_tools()``: what that method returns, in this class or one overriding it.
                self._listed_message(rule, func.attr, element, f"{METHOD_RESULT}{func.attr}()")
                return
            target = func.value  # ``RecipientTool.create(...)``: a class made from the library's
        if not isinstance(target, ast.Name | ast.Attribute):
            return
        name, resolved = self.dotted(target, scope)
        if not name or not resolved or "." not in name:
            return
        library = self._library_message(name)
        if library is not None:
            call = element if isinstance(element, ast.Call) else ast.Call(func=element, args=[], keywords=[])
            ast.copy_location(call, element)
            call.end_lineno, call.end_col_offset = element.end_lineno, element.end_col_offset
            self._library_tools(call, rule, [library], scope)
            return
        module, _, cls = name.rpartition(".")
        self._listed_message(rule, cls, element, f"{module}#{cls}")

    def _listed_message(self, rule: Rule, name: str, at: ast.expr, ref: str) -> None:
        use = ToolDef.found(rule, name, self.loc(at), ref=ref)
        self.tools.append(use.model_copy(update={"listed": True}))

    def _library_message(self, name: str) -> LibraryTool | None:
        """The library's message class ``name`` (``langroid.agent.tools.RecipientTool``), by package and class."""
        return self.rules.library_messages.get(name.split(".", 1)[0], {}).get(name.rsplit(".", 1)[-1])


def _assigns(stmt: ast.Assign | ast.AnnAssign, attr: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return any(isinstance(t, ast.Name) and t.id == attr for t in targets)
