// A support lead approves every outbound reply through the review queue.
export async function requireApproval(kind: string, summary: string): Promise<boolean> {
  const response = await fetch("https://review.internal.example.com/api/approvals", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind, summary }),
  });
  const decision = (await response.json()) as { approved: boolean };
  return decision.approved;
}
