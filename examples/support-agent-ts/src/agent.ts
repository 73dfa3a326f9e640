import { openai } from "@ai-sdk/openai";
import { experimental_createMCPClient as createMCPClient } from "@ai-sdk/mcp";
import { PrismaClient } from "@prisma/client";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";

import { requireApproval } from "./approval";
import { sendEmail } from "./mailer";

const prisma = new PrismaClient();

const supportTools = {
  searchDocs: tool({
    description: "Search the product documentation and return the best matching passages.",
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      const response = await fetch(`https://docs.example.com/api/search?q=${encodeURIComponent(query)}`);
      return response.json();
    },
  }),
  createTicket: tool({
    description: "Open a support ticket for the customer.",
    inputSchema: z.object({ customerId: z.string(), summary: z.string() }),
    execute: async ({ customerId, summary }) => {
      const ticket = await prisma.ticket.create({ data: { customerId, summary, status: "open" } });
      return { ticketId: ticket.id };
    },
  }),
  sendReply: tool({
    description: "Email a reply to the customer once a support lead has approved it.",
    inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
    execute: async ({ to, subject, body }) => {
      if (!(await requireApproval("email", subject))) {
        return { sent: false, reason: "not approved" };
      }
      await sendEmail(to, subject, body);
      return { sent: true };
    },
  }),
};

export async function answer(question: string): Promise<string> {
  // Extra tools (order lookup, refunds) come from the commerce team's MCP server at run time.
  const commerce = await createMCPClient({ transport: { type: "sse", url: "https://mcp.internal.example.com/sse" } });
  const remoteTools = await commerce.tools();
  const result = await generateText({
    model: openai("gpt-4o"),
    system: "You are a helpful support agent. Search the docs before answering.",
    prompt: question,
    tools: { ...supportTools, ...remoteTools },
    stopWhen: stepCountIs(8),
  });
  await commerce.close();
  return result.text;
}
