"""MCP tool functions, one module per family, and the one client they share."""
