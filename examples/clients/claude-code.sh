#!/usr/bin/env sh
# Register Assay with Claude Code for the project in the current folder (stdio, embedded service).
# Needs the `assay` command installed (pipx install / uv tool install, see README "Use it on your project").
# Claude Code starts the server in the project folder, which becomes the assessed workspace.
claude mcp add assay --scope project -- assay mcp
