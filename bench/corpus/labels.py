"""The labels of the corpus: one JSON file per unit under ``bench/corpus/units/`` (CORPUS-FORMAT.md).

A label file is checked when it is loaded, so that a typo in a class, a kind or a path is an error
that names the file, never a silent miss in the figures.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, get_args

from assay.backend.scans.bundle import ActionClass, GateKind

UNITS_DIR = Path(__file__).parent / "units"

ACTION_CLASSES: frozenset[str] = frozenset(get_args(ActionClass))
# tool_annotation is kept in the bundle schema for old bundles only: an annotation is not a gate.
GATE_KINDS: frozenset[str] = frozenset(get_args(GateKind)) - {"tool_annotation"}
PROVIDERS: frozenset[str] = frozenset(
    {
        "anthropic",
        "openai",
        "azure_openai",
        "bedrock",
        "google",
        "mistral",
        "cohere",
        "groq",
        "ollama",
        "litellm",
        "langchain",
        "vercel-ai",
        "http",
    }
)
LANGUAGES: frozenset[str] = frozenset({"python", "typescript"})

_ID = re.compile(r"^(py|ts)-[a-z0-9][a-z0-9-]*$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_LISTS = ("tools", "actions", "gates", "taint", "providers", "decoys")
# The keys each labelled item must carry (besides path and line, which all carry).
_REQUIRED = {
    "tools": ("name",),
    "actions": ("tool", "class"),
    "gates": ("kind",),
    "taint": ("class",),
    "providers": ("provider", "model"),
    "decoys": ("class",),
}


class LabelError(ValueError):
    """A label file that does not follow CORPUS-FORMAT.md."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit: a directory of one repository at one commit, and what was labelled in it."""

    id: str
    repo: str
    commit: str
    root: str
    language: str
    frameworks: tuple[str, ...]
    exclude: tuple[str, ...]
    label: dict[str, Any]
    source: Path
    # Held out: scored once at the end, never looked at while changing the engine (docs/corpus.md).
    heldout: bool = False


def load_units(directory: Path = UNITS_DIR) -> list[Unit]:
    """Every unit under ``directory``, sorted by id. Raises ``LabelError`` on the first bad file."""
    units = [load_unit(path) for path in sorted(directory.glob("*.json"))]
    seen: set[str] = set()
    for unit in units:
        if unit.id in seen:
            raise LabelError(f"{unit.source}: unit id {unit.id!r} is used twice")
        seen.add(unit.id)
    return sorted(units, key=lambda u: u.id)


def load_unit(path: Path) -> Unit:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: {exc}") from exc
    return check_label(data, path)


def check_label(data: Any, source: Path) -> Unit:
    """Check one label against the format and return it as a ``Unit``."""

    def fail(message: str) -> LabelError:
        return LabelError(f"{source}: {message}")

    if not isinstance(data, dict):
        raise fail("a label file holds one JSON object")
    for key, kind in (("id", str), ("repo", str), ("commit", str), ("root", str), ("language", str)):
        if not isinstance(data.get(key), kind):
            raise fail(f"{key!r} must be a string")
    if not _ID.match(data["id"]):
        raise fail(f"id {data['id']!r} must start with py- or ts- and use a-z, 0-9 and -")
    if source.suffix == ".json" and source.stem != data["id"]:
        raise fail(f"the file must be named {data['id']}.json")
    if not _REPO.match(data["repo"]):
        raise fail(f"repo {data['repo']!r} must be owner/name")
    if not _COMMIT.match(data["commit"]):
        raise fail("commit must be 40 lower-case hex digits")
    if data["root"] and not _relative(data["root"]):
        raise fail(f"root {data['root']!r} must be a relative POSIX path")
    if data["language"] not in LANGUAGES:
        raise fail(f"language must be one of {sorted(LANGUAGES)}")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(e, str) and _relative(e) for e in exclude):
        raise fail("exclude must be a list of relative POSIX directories")
    heldout = data.get("heldout", False)
    if not isinstance(heldout, bool):
        raise fail("heldout must be true or false")
    frameworks = data.get("frameworks", [])
    if not isinstance(frameworks, list) or not all(isinstance(f, str) for f in frameworks):
        raise fail("frameworks must be a list of strings")
    for name in _LISTS:
        items = data.get(name, [])
        if not isinstance(items, list):
            raise fail(f"{name!r} must be a list")
        for index, item in enumerate(items):
            _check_item(name, index, item, fail)
    tool_names = {t["name"] for t in data.get("tools", [])}
    for name in ("actions", "gates", "taint"):
        for index, item in enumerate(data.get(name, [])):
            tool = item.get("tool")
            if tool is not None and tool not in tool_names:
                raise fail(f"{name}[{index}] names tool {tool!r}, which is not among the labelled tools")
    return Unit(
        id=data["id"],
        repo=data["repo"],
        commit=data["commit"],
        root=data["root"].strip("/"),
        language=data["language"],
        frameworks=tuple(frameworks),
        exclude=tuple(e.strip("/") for e in exclude),
        label=data,
        source=source,
        heldout=heldout,
    )


def _check_item(name: str, index: int, item: Any, fail: Any) -> None:
    where = f"{name}[{index}]"
    if not isinstance(item, dict):
        raise fail(f"{where} must be an object")
    if not isinstance(item.get("path"), str) or not _relative(item["path"]):
        raise fail(f"{where}: path must be a POSIX path relative to the unit root")
    line = item.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise fail(f"{where}: line must be a positive integer")
    for key in _REQUIRED[name]:
        if key not in item:
            raise fail(f"{where}: {key!r} is required")
    if name in ("actions", "taint", "decoys") and item["class"] not in ACTION_CLASSES:
        raise fail(f"{where}: unknown action class {item['class']!r}")
    if name == "gates" and item["kind"] not in GATE_KINDS:
        raise fail(f"{where}: unknown gate kind {item['kind']!r}")
    if name == "providers":
        if item["provider"] not in PROVIDERS:
            raise fail(f"{where}: unknown provider {item['provider']!r}")
        if item["model"] is not None and not isinstance(item["model"], str):
            raise fail(f"{where}: model must be a string or null")
    if name == "tools" and not isinstance(item["name"], str):
        raise fail(f"{where}: name must be a string")


def _relative(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and "\\" not in path and not pure.is_absolute() and ".." not in pure.parts
