"""Module names and the names a file can call without defining them (builtins, the standard library and SDKs)."""

from __future__ import annotations

import builtins


def module_name(path: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod``; ``pkg/__init__.py`` -> ``pkg``."""
    parts = path.removesuffix(".pyi").removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


BUILTINS = frozenset({"eval", "exec", "compile", "open", "input", "__import__", "print", "getattr", "globals"})
PY_BUILTINS = frozenset(dir(builtins))
# Heads of names that are the standard library or an SDK, never code of the tree.
STDLIB_HEADS = frozenset(
    {
        "os", "sys", "json", "re", "time", "datetime", "math", "random", "subprocess", "shutil", "pathlib",
        "logging", "typing", "collections", "itertools", "functools", "asyncio", "io", "csv", "uuid",
        "hashlib", "base64", "urllib", "http", "socket", "threading", "tempfile", "textwrap", "string",
        "dataclasses", "enum", "copy", "pickle", "sqlite3", "requests", "httpx", "aiohttp", "openai",
        "anthropic", "boto3", "stripe", "smtplib", "pydantic", "langchain", "langchain_core", "langgraph",
        "agents", "crewai", "autogen", "pydantic_ai", "smolagents", "llama_index", "mcp", "fastmcp",
    }
)  # fmt: skip
