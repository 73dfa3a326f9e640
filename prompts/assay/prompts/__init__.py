"""MCP prompt texts (Markdown) and their loader."""
