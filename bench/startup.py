"""Start-up figure (issue 21): how long `assay` commands take from launch to their answer, as ratios against
`python -m pip --version` measured in the same run. Targets: `assay --version` and `assay --help` <= 1x,
`assay admin org create` <= 2x, `assay mcp` answering `initialize` over stdio <= 2x, `assay scan` of a
one-file tree <= 3x.

Each repetition runs the baseline and then one command, alternating through the commands, so load from
elsewhere on the machine falls on both sides; a ratio is the median of the command's wall times over the
median of the baseline's. The installed console script is what is launched, as a user would.

The launch that times `initialize` then asks for `tools/list` (after `notifications/initialized`), as every
client does next: that time is shown too, without a target (it needs the MCP SDK, which `initialize` does
not wait for). Beside `admin org create` (on a SQLite database at the newest schema: the standard library's
sqlite3), the import of what the other database paths need (SQLAlchemy's asyncio layer, SQLModel and the
data model) is timed in a launch of its own: the floor of every other `assay admin` case.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPETITIONS = 7
WARMUP = 1
MCP_TIMEOUT = 120.0
BASELINE = [sys.executable, "-m", "pip", "--version"]
TARGETS = {"--version": 1.0, "--help": 1.0, "admin org create": 2.0, "mcp initialize": 2.0, "scan one file": 3.0}
# Shown beside the targets, measured by the launch of the command named.
SHOWN = {"mcp tools/list": "mcp initialize", "data model import": "admin org create"}
DATA_MODEL = [sys.executable, "-c", "import sqlalchemy.ext.asyncio, sqlmodel, assay.backend.storage.models"]
ONE_FILE = '''"""A one-file agent."""

import subprocess

from openai import OpenAI

client = OpenAI()


def run_shell(command: str) -> str:
    """Run a shell command the model chose."""
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout


reply = client.chat.completions.create(model="gpt-4o", messages=[], tools=[{"type": "function"}])
'''
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def assay_command() -> list[str]:
    """The installed `assay` console script beside this interpreter, else the module."""
    script = Path(sys.executable).with_name("assay")
    return [str(script)] if script.exists() else [sys.executable, "-m", "assay.server.cli"]


def _timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def _mcp_session(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Seconds from launching `assay mcp` (stdio) to its answer to `initialize`, and to its answer to the
    `tools/list` sent after that answer."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        initialized = time.perf_counter() - start
        answer = json.loads(line)
        assert answer.get("id") == 1 and "result" in answer, answer
        proc.stdin.write((json.dumps(INITIALIZED) + "\n" + json.dumps(TOOLS_LIST) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        listed = time.perf_counter() - start
        answer = json.loads(line)
        assert answer.get("id") == 2 and answer.get("result", {}).get("tools"), answer
        proc.stdin.close()
        proc.wait(timeout=MCP_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return initialized, listed


def _env_for(env: dict[str, str], checkout: Path | None) -> dict[str, str]:
    """``env`` for a launch of this checkout (None) or of another one, whose source folders then come first."""
    if checkout is None:
        return env
    folders = [str(checkout / name) for name in ("server", "tools", "prompts", "backend")]
    return {**env, "PYTHONPATH": os.pathsep.join([*folders, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


def measure(repetitions: int, checkouts: dict[str, Path | None]) -> tuple[float, dict[str, dict[str, float]]]:
    """The baseline's median seconds and, per checkout (None: this one), each command's median seconds over
    ``repetitions`` rounds."""
    assay = assay_command()
    with tempfile.TemporaryDirectory(prefix="assay-bench-startup-") as name:
        tmp = Path(name)
        tree = tmp / "tree"
        tree.mkdir()
        (tree / "agent.py").write_text(ONE_FILE, encoding="utf-8")
        workspace = tmp / "workspace"
        workspace.mkdir()
        base_env = {**os.environ, "ASSAY_DATA_DIR": str(tmp / "data"), "NO_COLOR": "1"}
        # As an installed package is: with its bytecode cached (an editable checkout otherwise compiles
        # every module of ours on every launch when the environment forbids writing bytecode).
        base_env.pop("PYTHONDONTWRITEBYTECODE", None)
        base_env.pop("ASSAY_BASE_URL", None)
        base_env.pop("ASSAY_API_KEY", None)
        db = f"sqlite+aiosqlite:///{tmp / 'admin.db'}"
        cache = str(tmp / "cache")

        def commands(env: dict[str, str]) -> dict[str, Callable[[], dict[str, float]]]:
            def mcp() -> dict[str, float]:
                initialized, listed = _mcp_session([*assay, "mcp", "--workspace", str(workspace)], env, tmp)
                return {"mcp initialize": initialized, "mcp tools/list": listed}

            return {
                "--version": lambda: {"--version": _timed([*assay, "--version"], env)},
                "--help": lambda: {"--help": _timed([*assay, "--help"], env)},
                "admin org create": lambda: {
                    "admin org create": _timed([*assay, "admin", "org", "create", "bench", "--database-url", db], env),
                    "data model import": _timed(DATA_MODEL, env),
                },
                "mcp initialize": mcp,
                "scan one file": lambda: {
                    "scan one file": _timed([*assay, "scan", str(tree), "--cache-dir", cache], env)
                },
            }

        launches = {label: commands(_env_for(base_env, checkout)) for label, checkout in checkouts.items()}
        baseline: list[float] = []
        figures = [*TARGETS, *SHOWN]
        times: dict[str, dict[str, list[float]]] = {label: {c: [] for c in figures} for label in checkouts}
        for index in range(WARMUP + repetitions):
            for command in TARGETS:
                base = _timed(BASELINE, base_env)
                took = {label: launches[label][command]() for label in checkouts}
                if index >= WARMUP:  # the first round creates the databases and the scan cache
                    baseline.append(base)
                    for label, by_figure in took.items():
                        for figure, seconds in by_figure.items():
                            times[label][figure].append(seconds)
    medians = {label: {c: statistics.median(t) for c, t in by.items()} for label, by in times.items()}
    return statistics.median(baseline), medians


def run(repetitions: int = REPETITIONS, compare_with: Path | None = None) -> None:
    """Print the ratios of this checkout (and, with ``compare_with``, of that checkout in the same rounds)."""
    checkouts: dict[str, Path | None] = {"this checkout": None}
    if compare_with is not None:
        checkouts = {f"{compare_with}": compare_with, **checkouts}
    base, medians = measure(repetitions, checkouts)
    print(f"start-up, medians of {repetitions} alternating launches; `python -m pip --version` {base * 1000:.0f} ms:")
    for label, by_command in medians.items():
        if len(medians) > 1:
            print(f" {label}:")
        for command, seconds in by_command.items():
            ratio = seconds / base
            target = TARGETS.get(command)
            if target is None:
                print(f"  assay {command:<18} {seconds * 1000:7.0f} ms -> ratio {ratio:5.2f} (no target)")
                continue
            verdict = "ok" if ratio <= target else "OVER"
            print(
                f"  assay {command:<18} {seconds * 1000:7.0f} ms -> ratio {ratio:5.2f} (target <= {target:g}x) {verdict}"
            )


if __name__ == "__main__":
    # python -m bench.startup [REPETITIONS [OTHER_CHECKOUT]]: OTHER_CHECKOUT (say, a worktree of main) is
    # measured in the same rounds, for a before/after figure.
    arguments = sys.argv[1:]
    run(int(arguments[0]) if arguments else REPETITIONS, Path(arguments[1]) if len(arguments) > 1 else None)
