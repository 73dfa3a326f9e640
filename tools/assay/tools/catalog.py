"""The tool table shown in README.md, generated from the registry so the two never drift."""

from __future__ import annotations

from assay.tools.registry import TOOLS


def tool_table_markdown() -> str:
    rows = ["| Tool | What it does | Read-only |", "|---|---|---|"]
    for name, title, function, hints in TOOLS:
        text = " ".join((function.__doc__ or title).split())
        rows.append(f"| `{name}` | {text} | {'yes' if hints.read_only_hint else 'no'} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(tool_table_markdown(), end="")
