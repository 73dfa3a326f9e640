"""The resolver's three longest-prefix lookups (a class's bases, Python re-exports, JS/TS re-exports) share one
helper: the longest prefix of a dotted name a table holds, the rest of the name carried over to each entry."""

from __future__ import annotations

from assay.backend.engines.static.link.graph import Resolver


def test_inherited_member_through_the_longest_class_prefix() -> None:
    resolver = Resolver({}, bases={"pkg.tools.DeleteTool": ["pkg.base.Base", "pkg.base.Mixin"], "pkg": ["other"]})
    assert resolver._inherited("pkg.tools.DeleteTool._client.put_object") == [
        "pkg.base.Base._client.put_object",
        "pkg.base.Mixin._client.put_object",
    ]
    assert resolver._inherited("pkg.tools.DeleteTool") == ["pkg.base.Base", "pkg.base.Mixin"]
    # A first segment alone is never looked up, nor a name of one segment.
    assert resolver._inherited("pkg.other.thing") == []
    assert resolver._inherited("pkg") == []


def test_python_reexport_of_the_longest_prefix() -> None:
    resolver = Resolver({}, reexports={"pkg.root_agent": ["pkg.agent.root_agent"], "pkg.sub": ["lib.sub"]})
    assert resolver.py_reexported("pkg.root_agent.run") == ["pkg.agent.root_agent.run"]
    assert resolver.py_reexported("pkg.sub.deep.call") == ["lib.sub.deep.call"]
    assert resolver.py_reexported("pkg.missing") == []
    assert Resolver({}).py_reexported("pkg.root_agent.run") == []


def test_javascript_reexport_keeps_the_module_whole_and_falls_back_to_a_star_export() -> None:
    resolver = Resolver(
        {},
        reexports={
            "src/types#Manager": ["src/manager#Manager"],
            "src/a.b#X": ["src/x#X"],
            "src/all#*": ["src/impl#", "src/more#"],
        },
    )
    assert resolver._reexported("src/types#Manager.cleanup") == ["src/manager#Manager.cleanup"]
    assert resolver._reexported("src/a.b#X.y.z") == ["src/x#X.y.z"]
    # A prefix is never cut inside the module, even at a dot of its path.
    assert resolver._reexported("src/a.b#Y.z") == []
    assert resolver._reexported("src/all#helper.run") == ["src/impl#helper.run", "src/more#helper.run"]
