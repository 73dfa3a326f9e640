#!/usr/bin/env sh
# Register Assay with Claude Code for this project (stdio, embedded service).
claude mcp add assay --scope project -- "$(pwd)/.venv/bin/assay" mcp
