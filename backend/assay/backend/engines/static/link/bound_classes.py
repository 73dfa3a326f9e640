"""Classes a dependency injection container gives for a type (``container.bind<IFoo>(TYPES.Foo).to(FooImpl)``,
``FileFacts.boundClasses``): a call on a value of that type (``this.foo.run()`` with ``foo: IFoo`` injected) that no
class of the tree answers by ``implements`` runs the bound class's method."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from assay.backend.engines.static.facts import FileFacts


def bound_classes(files: Sequence[FileFacts], reexports: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Each bound type, by the name of its declaration, -> the classes bound to it, by theirs (a barrel's
    ``export type { Repository as RepositoryInterface }`` followed to the declaring file)."""
    out: dict[str, set[str]] = {}
    for f in files:
        for bound, classes in f.boundClasses.items():
            out.setdefault(_declared(bound, reexports), set()).update(_declared(c, reexports) for c in classes)
    return {t: sorted(c) for t, c in sorted(out.items())}


def bound_targets(
    callee: str, caller: str, bound: Mapping[str, list[str]], resolve: Callable[[str, str], str | None]
) -> list[str]:
    """The methods of the classes bound to the type ``callee`` is a method of (``types#Repo.save`` ->
    ``repo#Repo.save``), as found in the tree."""
    owner, _, method = callee.rpartition(".")
    classes = bound.get(owner) if method else None
    if not classes:
        return []
    found = (resolve(f"{cls}.{method}", caller) for cls in classes)
    return [t for t in found if t is not None]


def _declared(name: str, reexports: Mapping[str, list[str]]) -> str:
    seen = {name}
    while (through := reexports.get(name)) and through[0] not in seen:
        name = through[0]
        seen.add(name)
    return name
