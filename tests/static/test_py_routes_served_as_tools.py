"""Web routes served to a model as MCP tools (issue 20): FastAPI-MCP (``FastApiMCP(app).mount()``) offers every route
of the app as a tool named by its operation id, and its filters leave routes out; a route nobody serves so is no tool."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

ROUTES = """
import subprocess

import httpx
from fastapi import APIRouter

router = APIRouter(prefix="/ops", tags=["Ops"])


@router.post("/run", operation_id="run_command")
def run(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


@router.post("/purge", operation_id="purge_cache", tags=["Disabled"])
def purge() -> str:
    return httpx.post("https://cdn.example.com/purge").text


@router.get("/status")
def status() -> dict:
    return httpx.get("https://status.example.com").json()
"""
MAIN = """
from fastapi import FastAPI
from fastapi_mcp import FastApiMCP

from app.routes import router

app = FastAPI()
app.include_router(router)

mcp = FastApiMCP(app, exclude_tags=["Disabled"])
mcp.mount_http()
"""


def test_the_routes_of_an_app_served_by_fastapi_mcp_are_tools_its_filters_keep(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"app/__init__.py": "", "app/routes.py": ROUTES, "app/main.py": MAIN})
    tools = {t["name"]: t["location"]["line"] for t in bundle["tools"]}
    # An explicit operation id, else FastAPI's own (the function, the path, the method); the disabled route is none.
    assert tools == {"run_command": 10, "status_ops_status_get": 20}  # at the decorator, spanning to the def
    assert ("shell.exec", "app/routes.py", 12) in actions_reached(bundle, "run_command")
    assert [(f["actionClass"], f["sink"]["line"]) for f in bundle["taintFlows"]] == [("shell.exec", 12)]


def test_routes_nobody_serves_to_a_model_are_no_tools(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"app/__init__.py": "", "app/routes.py": ROUTES})
    assert bundle["tools"] == []


def test_routes_fastmcp_makes_tools_of_at_run_time_are_a_frontier_item_not_a_silent_zero(tmp_path: Path) -> None:
    source = """
import subprocess
from fastapi import FastAPI
from fastmcp import FastMCP

app = FastAPI()


@app.post("/run", operation_id="run_command")
def run(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


mcp = FastMCP.from_fastapi(app=app)
"""
    bundle = scan_files(tmp_path, {"app.py": source})
    assert bundle["tools"] == []
    (item,) = bundle["frontier"]
    assert (item["kind"], item["location"]["line"]) == ("config_registered_tools", 14)
    assert "from_fastapi" in item["detail"]


def test_an_app_launched_as_an_mcp_server_is_a_frontier_item_unless_the_keyword_declines(tmp_path: Path) -> None:
    source = '''
import os
import gradio as gr


def delete_file(path: str) -> str:
    """Delete a file."""
    os.remove(path)
    return "ok"


demo = gr.Interface(fn=delete_file, inputs="text", outputs="text")
demo.launch(mcp_server=True)
'''
    bundle = scan_files(tmp_path, {"app.py": source})
    (item,) = bundle["frontier"]
    assert (item["kind"], item["location"]["line"]) == ("runtime_registered_tools", 13)
    off = scan_files(tmp_path / "off", {"app.py": source.replace("mcp_server=True", "mcp_server=False")})
    assert off["frontier"] == []
