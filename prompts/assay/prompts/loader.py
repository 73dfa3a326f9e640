"""Loads the Markdown prompt texts that sit beside this module.

Each file has a small front matter block (name, title, description, arguments) and a body with
``{argument}`` placeholders. This module imports nothing else of Assay's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str
    required: bool
    default: str = ""


@dataclass(frozen=True, slots=True)
class PromptText:
    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    body: str

    def render(self, values: dict[str, str]) -> str:
        """The body with every ``{argument}`` filled; unknown or missing required arguments raise ValueError."""
        known = {a.name for a in self.arguments}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown argument(s) for prompt {self.name}: {', '.join(unknown)}")
        missing = sorted(a.name for a in self.arguments if a.required and not values.get(a.name))
        if missing:
            raise ValueError(f"missing required argument(s) for prompt {self.name}: {', '.join(missing)}")
        filled = {a.name: values.get(a.name) or a.default for a in self.arguments}
        return _fill(self.body, filled, self.name)


def _fill(body: str, values: dict[str, str], name: str) -> str:
    # Only ``{known_name}`` placeholders are replaced, so braces elsewhere in the text stay as written.
    out = body
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out


def _parse(text: str, filename: str) -> PromptText:
    if not text.startswith("---\n"):
        raise ValueError(f"{filename}: missing front matter")
    header, _, body = text[4:].partition("\n---\n")
    meta: dict[str, str] = {}
    arguments: list[PromptArgument] = []
    current: dict[str, str] | None = None
    for line in header.splitlines():
        if line.startswith("  - name:"):
            current = {"name": line.split(":", 1)[1].strip()}
            arguments.append(PromptArgument(current["name"], "", False))
        elif line.startswith("    ") and current is not None:
            key, _, value = line.strip().partition(":")
            current[key] = value.strip()
            arguments[-1] = PromptArgument(
                current["name"],
                current.get("description", ""),
                current.get("required", "false") == "true",
                current.get("default", ""),
            )
        elif ":" in line and not line.startswith(" "):
            key, _, value = line.partition(":")
            meta[key.strip()] = value.strip()
    for required in ("name", "title", "description"):
        if not meta.get(required):
            raise ValueError(f"{filename}: front matter lacks {required}")
    return PromptText(meta["name"], meta["title"], meta["description"], tuple(arguments), body.strip() + "\n")


@cache
def load_prompts() -> tuple[PromptText, ...]:
    """Every prompt shipped with Assay, sorted by name."""
    root = resources.files("assay.prompts")
    texts = [
        _parse(entry.read_text(encoding="utf-8"), entry.name) for entry in root.iterdir() if entry.name.endswith(".md")
    ]
    return tuple(sorted(texts, key=lambda p: p.name))
