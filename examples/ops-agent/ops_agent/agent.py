"""The ops agent: an OpenAI Agents SDK agent with the tools in tools.py."""

from agents import Agent, Runner
from openai import OpenAI

from ops_agent.tools import lookup_incident, purge_cache, restart_service, run_diagnostic

client = OpenAI()

agent = Agent(
    name="ops-agent",
    instructions="You are an on-call assistant. Diagnose incidents and remediate them safely.",
    model="gpt-4.1",
    tools=[lookup_incident, restart_service, run_diagnostic, purge_cache],
)


def triage(alert: str) -> str:
    """Ask a small model for a one-line severity assessment before the agent starts."""
    completion = client.chat.completions.create(
        model="gpt-4.1-mini",
        messages=[
            {"role": "system", "content": "Rate the severity of this alert as low, medium or high."},
            {"role": "user", "content": alert},
        ],
    )
    return completion.choices[0].message.content or "unknown"


def handle_alert(alert: str) -> str:
    severity = triage(alert)
    result = Runner.run_sync(agent, f"Alert ({severity}): {alert}")
    return str(result.final_output)
