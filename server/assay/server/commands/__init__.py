"""Subcommands of `assay`; each module exposes ``register(subparsers)``."""
