"""The tools the refund agent gives the model."""

import sqlite3

import stripe
from agents import function_tool

from refund_agent.approval import request_approval

MAX_REFUND_CENTS = 50_000


@function_tool
def verify_identity(customer_id: str, last4: str) -> bool:
    """Check that the card's last four digits match the customer on file."""
    with sqlite3.connect("support.db") as db:
        row = db.execute("SELECT card_last4 FROM customers WHERE id = ?", (customer_id,)).fetchone()
    return row is not None and row[0] == last4


@function_tool
def approve(charge_id: str, amount: int) -> bool:
    """Ask the supervisor on duty to approve a refund of `amount` cents on a charge."""
    return request_approval(f"Refund {amount} cents on {charge_id}?")


@function_tool
def issue_refund(charge_id: str, amount: int) -> str:
    """Refund `amount` cents of a Stripe charge; refunds above the ceiling are refused."""
    if amount > MAX_REFUND_CENTS:
        raise ValueError("refund above the ceiling")
    if not request_approval(f"Issue the refund of {amount} cents on {charge_id}?"):
        return "refused by the supervisor"
    refund = stripe.Refund.create(charge=charge_id, amount=amount)
    return refund.id
