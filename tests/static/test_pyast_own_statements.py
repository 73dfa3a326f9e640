"""``syntax.own_statements``: a function's own statements in the order a stack over ``ast.iter_child_nodes``
pops them (the walk several recognisers shared before), read through block fields alone; nested functions
and classes are listed, not entered."""

from __future__ import annotations

import ast

from assay.backend.engines.static.pyast.syntax import own_statements

SOURCE = """
def f(x):
    a = 1
    if x:
        b = g(lambda y: y)
        return b
    elif x > 2:
        for i in x:
            c = i
        else:
            return None
    while x:
        try:
            d = h()
        except ValueError as exc:
            return exc
        else:
            e = 2
        finally:
            pass
    with open(x) as fh:
        return fh.read()
    match x:
        case [1, *rest] if rest:
            return rest
        case _:
            pass

    def inner():
        return 1

    class Inner:
        def method(self):
            return 2

    return [z for z in x]
"""


def _by_child_nodes(fn: ast.FunctionDef) -> list[ast.AST]:
    """The reference: a stack over every child node, entering neither expressions nor nested definitions."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.expr | ast.expr_context | ast.operator | ast.cmpop | ast.pattern | ast.arguments):
            continue
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return [n for n in found if isinstance(n, ast.stmt | ast.excepthandler | ast.match_case)]


def test_own_statements_are_those_of_a_walk_over_every_child_in_the_same_order() -> None:
    fn = ast.parse(SOURCE).body[0]
    assert isinstance(fn, ast.FunctionDef)
    found = own_statements(fn.body)
    assert found == _by_child_nodes(fn)
    returns = [n.lineno for n in found if isinstance(n, ast.Return)]
    # The nested function's and class's returns are theirs (lines 30 and 34), not ``f``'s.
    assert sorted(returns) == [6, 11, 16, 22, 25, 36]


def test_nested_definitions_are_listed_not_entered() -> None:
    fn = ast.parse(SOURCE).body[0]
    assert isinstance(fn, ast.FunctionDef)
    names = [n.name for n in own_statements(fn.body) if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert names == ["Inner", "inner"]
