"""Entry points of Assay: the `assay` command line, settings, the MCP server and the HTTP app."""
