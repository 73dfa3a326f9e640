"""Thin wrappers over the host's service manager."""

import subprocess


def restart(service: str) -> str:
    completed = subprocess.run(["systemctl", "restart", service], check=True, capture_output=True, text=True)
    return completed.stdout or f"{service} restarted"
