"""The refund agent: one model, three tools."""

from agents import Agent, Runner

from refund_agent.tools import approve, issue_refund, verify_identity

agent = Agent(
    name="refunds",
    model="gpt-4o",
    instructions="Verify the customer, ask the supervisor to approve, then refund. Never skip a step.",
    tools=[verify_identity, approve, issue_refund],
)


def answer(request: str) -> str:
    return str(Runner.run_sync(agent, request).final_output)
