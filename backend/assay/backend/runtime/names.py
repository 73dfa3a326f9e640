"""Names of the runtime engine that command-line parsers list: plain data, with no import of the service's
stack (``targets`` holds what they mean)."""

from __future__ import annotations

# The suites a target can be consented to, in pack order. ``agent`` applies to agent-url targets only,
# the others to MCP servers.
SUITES: tuple[str, ...] = ("catalogue", "poisoning", "annotations", "active", "agent")
# The protocols of agent endpoints.
PROTOCOLS: tuple[str, ...] = ("openai-chat",)
