"""Which files of a tree are test code: what a test runner collects, not what the system ships.

Recognised by path alone (never by reading the file), after the default conventions of the test runners
of the languages the engine analyses, so the answer is the same for everyone and easy to predict:

- a folder named exactly ``tests``, ``test``, ``__tests__``, ``__mocks__`` or ``spec``, at any depth
  (pytest and unittest suites, Jest's ``__tests__`` and manual mocks, Mocha's ``test``, Jasmine's ``spec``);
- Python: ``test_*.py``, ``*_test.py`` (pytest's defaults), ``conftest.py`` (pytest's fixtures), ``tests.py``
  (a Django app's tests module);
- JavaScript and TypeScript: ``*.test.*`` and ``*.spec.*`` (Jest's and Vitest's defaults), whatever the
  script suffix (``.js``, ``.mjs``, ``.ts``, ``.tsx``, ...); Mocha's default is the ``test`` folder.

Node's test runner also collects ``test-*.js``, ``*-test.js``, ``*_test.js`` and ``test.js``; those names are
not taken as test code, since shipped code uses them too (an agent in ``agents/test-agent-a.ts``). A name
only resembling a test's is not test code either: ``testing_utils.py``, ``contest.py``, ``latest.ts``,
``attest.ts``, ``testing/``, ``tests_helpers/`` and ``testdata/`` are the system's own.
"""

from __future__ import annotations

TEST_DIRECTORIES = frozenset({"tests", "test", "__tests__", "__mocks__", "spec"})

_PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
# The markers Jest and Vitest look for in a file's name before its script suffix.
_SCRIPT_MARKERS = (".test", ".spec")


def is_test_directory(name: str) -> bool:
    """Whether a folder called ``name`` holds test code."""
    return name in TEST_DIRECTORIES


def convention_of_test_file(name: str, suffix: str) -> str | None:
    """The convention that makes a file called ``name`` (its lower-case ``suffix`` given) test code, or None."""
    stem = name[: -len(suffix)] if suffix else name
    if suffix in _PYTHON_SUFFIXES:
        if stem in ("conftest", "tests"):
            return f"{stem}.py"
        if stem.startswith("test_"):
            return "test_*.py"
        if stem.endswith("_test"):
            return "*_test.py"
        return None
    for marker in _SCRIPT_MARKERS:
        if stem.endswith(marker) and len(stem) > len(marker):
            return f"*{marker}{suffix}"
    return None
