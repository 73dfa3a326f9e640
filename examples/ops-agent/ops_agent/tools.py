"""Tools the ops agent gives the model."""

import shutil
import subprocess

import httpx
from agents import function_tool

from ops_agent import infra
from ops_agent.approval import request_approval

TRACKER_URL = "https://incidents.internal.example.com/api"
ALLOWED_SERVICES = {"api", "worker", "scheduler"}


@function_tool
def lookup_incident(incident_id: str) -> str:
    """Fetch an incident (title, status, timeline) from the incident tracker."""
    response = httpx.get(f"{TRACKER_URL}/incidents/{incident_id}", timeout=10)
    response.raise_for_status()
    return response.text


@function_tool
def restart_service(service: str) -> str:
    """Restart one of the allow-listed services on the production host."""
    if service not in ALLOWED_SERVICES:
        raise ValueError(f"{service} is not a service the agent may restart")
    if not request_approval(f"restart {service}"):
        return "The on-call engineer declined the restart."
    return infra.restart(service)


@function_tool
def run_diagnostic(command: str) -> str:
    """Run a diagnostic shell command on the host and return its output."""
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=60)
    return result.stdout + result.stderr


@function_tool
def purge_cache(path: str) -> str:
    """Delete a cache directory to free disk space."""
    shutil.rmtree(path)
    return f"removed {path}"
