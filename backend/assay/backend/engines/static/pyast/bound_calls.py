"""Callables made from another: ``functools.partial(subprocess.run, shell=True)`` is ``subprocess.run`` with those
arguments fixed first, ``getattr(os, "system")`` is ``os.system``. A call of one, made where it is built or through
a name bound to it once (in the function or at the module's top level), is read as the call of what it wraps."""

from __future__ import annotations

import ast
from functools import cached_property

from assay.backend.engines.static.pyast.fixed_text import bound_values
from assay.backend.engines.static.pyast.literals import literal_str, name_text
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.toolkit_classes import ToolkitClassLogic

_PARTIAL = "functools.partial"
_GETATTR = "getattr"
# What the makers are spelled as before resolution (``from functools import partial``, ``functools.partial``).
_SPELLED = frozenset({"partial", "functools.partial", "getattr"})


class BoundCallLogic(ToolkitClassLogic):
    @cached_property
    def _bound_callable_names(self) -> frozenset[str]:
        """Names the file binds to a ``partial(...)`` or ``getattr(...)`` call somewhere."""
        return frozenset(
            target.id
            for node in self.tree_statements  # assignments are statements: no walk of every expression
            if type(node) is ast.Assign and type(node.value) is ast.Call and name_text(node.value.func) in _SPELLED
            for target in node.targets
            if type(target) is ast.Name
        )

    def _rebound_call(self, node: ast.Call, scope: Scope) -> ast.Call | None:
        """``run_shell(cmd)`` with ``run_shell = functools.partial(subprocess.run, shell=True)``:
        ``subprocess.run(cmd, shell=True)``; ``getattr(os, "system")(cmd)``: ``os.system(cmd)``; None for any
        other call."""
        func = node.func
        made: ast.expr | None = func
        if type(func) is ast.Name:
            if func.id not in self._bound_callable_names:
                return None
            made = self._only_binding(func.id, scope)
        if type(made) is not ast.Call or name_text(made.func) not in _SPELLED or not made.args:
            return None
        maker = self.dotted(made.func, scope)[0]
        call: ast.Call
        if maker == _PARTIAL:
            wrapped = made.args[0]
            if type(wrapped) is ast.Name and type(func) is ast.Name and wrapped.id == func.id:
                return None  # ``f = partial(f, x)``: rebinding itself, read as it is
            call = ast.Call(func=wrapped, args=[*made.args[1:], *node.args], keywords=[*made.keywords, *node.keywords])
        elif maker == _GETATTR and len(made.args) == 2:
            member = literal_str(made.args[1])
            if not member or not member.isidentifier():
                return None  # a member chosen at run time: dynamic dispatch, read elsewhere
            attribute = ast.Attribute(value=made.args[0], attr=member, ctx=ast.Load())
            ast.copy_location(attribute, made)
            call = ast.Call(func=attribute, args=node.args, keywords=node.keywords)
        else:
            return None
        ast.copy_location(call, node)
        call.end_lineno, call.end_col_offset = node.end_lineno, node.end_col_offset
        return call

    def _only_binding(self, name: str, scope: Scope) -> ast.expr | None:
        """The one value ``name`` is bound to in the function walked, or else at the module's top level."""
        local = bound_values(scope.function, name) if scope.function is not None else None
        if local is not None:
            return local[0] if len(local) == 1 else None
        module = self._module_bindings.get(name, [])
        return module[0] if len(module) == 1 else None
