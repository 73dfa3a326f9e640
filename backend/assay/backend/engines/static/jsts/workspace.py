"""The tree's own packages (JS/TS monorepos): a module imported by the name a ``package.json`` of the
scanned tree gives (``import { prisma } from "@acme/db"`` with ``packages/db/package.json`` named
``@acme/db``) is that package's code, resolved as a relative import of its entry would be.

- A package's entry is the first of its ``exports["."]`` targets, ``module``, ``main``, ``types``,
  ``typings`` that is a module of the tree, taken as written or, when it names build output
  (``./dist/index.js``), the same path under ``src/``; failing those ``src/index`` or ``index`` of its
  folder; failing those, its folder (as ``import "./db"`` would name it).
- ``<name>/<sub>`` is the target ``exports["./<sub>"]`` declares (found as the entry is), else
  ``<folder>/<sub>``, as a relative import would be.
- A name two ``package.json`` files of the tree give is nobody's: imports of it stay a package's.
- A name a rule of the pack models (``ai``, ``@modelcontextprotocol/sdk``, any ``@langchain/...``) stays
  that package: a tree that holds a copy of a library the rules know (the framework's own repository, a
  vendored SDK) is read through the rules, as its users' code is, not through the library's internals.
- Everything is decided once per scan from the manifests' bytes and the tree's module names, so a
  file's facts depend only on its own bytes and the ``Workspace`` (whose ``digest`` keys them).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.engines.static.jsts.names import canonical_module, strip_extension

MANIFEST = "package.json"
# Folders packages build into: ``./dist/index.js`` is built from ``src/index.ts``.
_BUILD_FOLDERS = ("dist", "build", "out", "lib", "esm", "cjs")
_ENTRY_FIELDS = ("module", "main", "types", "typings")


@dataclass(frozen=True, slots=True)
class OwnPackage:
    folder: str  # canonical module of the package's folder ("" for the tree's root)
    entry: str  # the module ``import "<name>"`` names
    subpaths: tuple[tuple[str, str], ...]  # ``exports`` subpaths (without ``./`` and extension) -> module


@dataclass(frozen=True)
class Workspace:
    packages: tuple[tuple[str, OwnPackage], ...] = ()
    by_name: dict[str, OwnPackage] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", dict(self.packages))

    @property
    def digest(self) -> str | None:
        """What a file's facts depend on here (None when the tree has no packages of its own)."""
        if not self.packages:
            return None
        return digest_json([[name, p.folder, p.entry, [list(s) for s in p.subpaths]] for name, p in self.packages])

    def resolve(self, spec: str) -> str | None:
        """The module of the tree a bare specifier names, or None when it is no package of the tree's."""
        if not self.packages or spec.startswith((".", "/")):
            return None
        parts = spec.split("/")
        head = 2 if spec.startswith("@") else 1
        name = "/".join(parts[:head])
        found = self.by_name.get(name)
        if found is None:
            return None
        if len(parts) == head:
            return found.entry
        sub = strip_extension("/".join(parts[head:]))
        declared = dict(found.subpaths).get(sub)
        return declared if declared is not None else canonical_module(posixpath.join(found.folder, sub))


def own_packages(
    manifests: Sequence[tuple[str, bytes]],
    source_paths: Iterable[str],
    modelled: Callable[[str], bool] | None = None,
) -> Workspace:
    """The packages the tree's ``package.json`` files name, resolved against its JS/TS modules; a name
    ``modelled`` says a rule knows is left to the rules."""
    if not manifests:
        return Workspace()
    modules = {canonical_module(path) for path in source_paths}
    named: dict[str, list[OwnPackage]] = {}
    for path, data in sorted(manifests):
        manifest = _load(data)
        name = manifest.get("name") if manifest is not None else None
        if manifest is None or not isinstance(name, str) or not _is_package_name(name):
            continue
        if modelled is not None and modelled(name):
            continue
        folder = posixpath.dirname(path)
        named.setdefault(name, []).append(_package(folder, manifest, modules))
    return Workspace(tuple((name, found[0]) for name, found in sorted(named.items()) if len(found) == 1))


def _load(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _is_package_name(name: str) -> bool:
    parts = name.split("/")
    return all(parts) and (len(parts) == 2 if name.startswith("@") else len(parts) == 1)


def _package(folder: str, manifest: dict[str, Any], modules: set[str]) -> OwnPackage:
    exports = _exports(manifest.get("exports"))
    targets = [*exports.get(".", []), *(v for f in _ENTRY_FIELDS if isinstance(v := manifest.get(f), str))]
    entry = _first_module(folder, targets, modules)
    if entry is None:
        fallbacks = (canonical_module(posixpath.join(folder, rel)) for rel in ("src/index", "index"))
        entry = next((m for m in fallbacks if m in modules), canonical_module(folder))
    subpaths = []
    for key, found in sorted(exports.items()):
        if key == "." or "*" in key:
            continue
        module = _first_module(folder, found, modules)
        if module is not None:
            subpaths.append((strip_extension(key.removeprefix("./")), module))
    return OwnPackage(folder=folder, entry=entry, subpaths=tuple(subpaths))


def _exports(value: Any) -> dict[str, list[str]]:
    """``exports`` as subpath -> its targets in the order written (a string or conditions object alone is ``.``)."""
    if isinstance(value, dict) and value and all(isinstance(k, str) and k.startswith(".") for k in value):
        return {key: _targets(item) for key, item in value.items()}
    return {".": _targets(value)}


def _targets(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _targets(item)]
    if isinstance(value, list):
        return [t for item in value for t in _targets(item)]
    return []


def _first_module(folder: str, targets: Sequence[str], modules: set[str]) -> str | None:
    for target in targets:
        rel = posixpath.normpath(strip_extension(target))
        if rel.startswith("..") or "*" in rel:
            continue
        head, _, rest = rel.partition("/")
        for each in (rel, f"src/{rest}") if head in _BUILD_FOLDERS and rest else (rel,):
            module = canonical_module(posixpath.join(folder, each))
            if module in modules:
                return module
    return None
