"""A stdio MCP server for the runtime benchmark: ``python -m bench.runtime_server TOOLS [PAGES]``.

Answers ``initialize`` and ``tools/list`` with TOOLS tools shaped like real ones (a description of a few
sentences, a schema of three typed, described parameters), split over PAGES pages (default 1)."""

from __future__ import annotations

import json
import sys


def tool(i: int) -> dict[str, object]:
    return {
        "name": f"records_tool_{i}",
        "description": f"Looks up record {i} in the catalogue and returns its fields. Read-only; pages results "
        "of at most 100 entries. Use the cursor of the previous answer to continue.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Text to match against record titles."},
                "limit": {"type": "integer", "description": "At most this many records (1 to 100)."},
                "cursor": {"type": "string", "description": "The cursor of the previous page, if any."},
            },
            "required": ["query"],
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    }


def main() -> None:
    count = int(sys.argv[1])
    pages = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    tools = [tool(i) for i in range(count)]
    size = max(1, -(-count // pages))
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        rid, method = message["id"], message["method"]
        if method == "initialize":
            result: dict[str, object] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "bench-records", "version": "1.0.0"},
            }
        elif method == "tools/list":
            page = int((message.get("params") or {}).get("cursor") or 0)
            result = {"tools": tools[page * size : (page + 1) * size]}
            if page + 1 < pages:
                result["nextCursor"] = str(page + 1)
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}), flush=True)


if __name__ == "__main__":
    main()
