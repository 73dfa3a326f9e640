"""The ``assay`` command line. Reads the environment once here and passes plain values below."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from importlib import import_module

from assay.server.output import quiet_broken_pipe
from assay.server.version import assay_version

# Each subcommand lives in its own module under assay.server.commands and exposes
# ``register(subparsers)``; the parser dispatches to the ``handler`` it sets.
COMMAND_MODULES: tuple[str, ...] = ("check", "scan", "serve", "admin", "assess", "worker", "mcp", "passport", "probe")


def build_parser(commands: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The parser of ``commands`` (all of them unless told otherwise)."""
    parser = argparse.ArgumentParser(
        prog="assay",
        description=(
            "Assay: deterministic assurance for AI agents. Check an AI system's source (ALLOW, REVIEW or "
            "BLOCK, with exit codes for CI), scan it, run the assurance service, and serve it to coding agents "
            "over MCP."
        ),
    )
    parser.add_argument("--version", action="version", version=f"assay {assay_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands:
        import_module(f"assay.server.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv_given = argv
    argv = list(sys.argv[1:] if argv is None else argv)
    # Only the command asked for is registered, so ``assay scan`` does not pay for ``assay serve``;
    # ``--version`` needs none. Anything else (no command, an unknown one, ``--help``) gets the whole
    # parser, which lists and checks every command. A command module imports only what its parser needs;
    # what it runs with (the service's web and database stack, the engines) is imported when it runs.
    named = argv[0] if argv and argv[0] in COMMAND_MODULES else None
    if named is not None:
        commands: Sequence[str] = (named,)
    elif argv[:1] == ["--version"]:
        commands = ()
    else:
        commands = COMMAND_MODULES
    parser = build_parser(commands)
    args = parser.parse_args(argv)
    handler = args.handler
    try:
        code: int = handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of stdout went away (`assay scan . | head`): end quietly, as a pipeline expects.
        return quiet_broken_pipe()
    if argv_given is None:
        _leave_heap_to_exit()
    return code


def _leave_heap_to_exit() -> None:
    """Called when the process ends as ``main`` returns (the ``assay`` script, ``python -m``): the objects
    the command left are moved out of the collector's reach, so that the interpreter's final collection
    does not traverse them only for the process to end. After ``assay scan`` of a 120,000-line tree that
    collection took half a second (the link's reference cycles hold every file's facts). Nothing is lost:
    the output is flushed and files are closed by then, and finalizers of objects alive at exit are not
    guaranteed to run in any case."""
    gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
