"""Issue 20 gates: Starlette's TrustedHostMiddleware refuses every request whose Host header is not in
``allowed_hosts``: listed in front of an MCP server's HTTP app it is an allow-list over the server's tools, and
listed where the server it goes in front of is not seen (``await mcp.run_http_async(middleware=m)`` of a server
another function built) it is still a gate where it stands. ``allowed_hosts=["*"]`` admits every host."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

SERVER = (
    "import subprocess\n"  # 1
    "from fastmcp import FastMCP\n"  # 2
    "from starlette.middleware import Middleware\n"  # 3
    "from starlette.middleware.trustedhost import TrustedHostMiddleware\n"  # 4
    "\n"  # 5
    "mcp = FastMCP('s')\n"  # 6
    "\n"  # 7
    "@mcp.tool()\n"  # 8
    "def run(cmd: str) -> str:\n"  # 9
    "    return subprocess.run(cmd, shell=True).stdout\n"  # 10
    "\n"  # 11
    "app = mcp.http_app(middleware=[Middleware(TrustedHostMiddleware, allowed_hosts={hosts})])\n"  # 12
)


def _held(bundle: dict, tool: str) -> set[tuple[str, int]]:
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


def test_a_host_allowlist_in_front_of_the_servers_app_gates_its_tools(tmp_path: Path) -> None:
    listed = scan_files(tmp_path / "a", {"server.py": SERVER.replace("{hosts}", "['api.example.com']")})
    assert _held(listed, "run") == {("allowlist", 12)}
    every = scan_files(tmp_path / "b", {"server.py": SERVER.replace("{hosts}", "['*']")})
    assert _held(every, "run") == set()


def test_a_host_allowlist_given_to_a_server_built_elsewhere_is_seen_where_it_stands(tmp_path: Path) -> None:
    code = (
        "from starlette.middleware import Middleware\n"  # 1
        "from starlette.middleware.trustedhost import TrustedHostMiddleware\n"  # 2
        "from .server import create_mcp_server\n"  # 3
        "\n"  # 4
        "async def main(allowed_hosts: list[str]) -> None:\n"  # 5
        "    mcp = create_mcp_server()\n"  # 6
        "    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)]\n"  # 7
        "    await mcp.run_http_async(middleware=middleware)\n"  # 8
    )
    bundle = scan_files(tmp_path, {"pkg/__init__.py": "", "pkg/main.py": code})
    assert {(g["kind"], g["location"]["line"]) for g in bundle["gates"]} == {("allowlist", 7)}
