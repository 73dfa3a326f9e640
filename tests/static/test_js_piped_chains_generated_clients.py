"""Issue 20 taint (TypeScript): a LangChain.js chain piped from a chat model answers with model output, wherever it is
invoked (``export const sqlChain = sqlPrompt.pipe(model).pipe(new StringOutputParser())`` in one module,
``await sqlChain.invoke(...)`` in another); and a Prisma client a generator wrote into the project
(``import { PrismaClient } from "../../generated/prisma/index.js"``, the client at its ``output`` path) is
``@prisma/client``'s, so ``prisma.$queryRawUnsafe(sql)`` on it runs SQL. A chain of parts none of which is a model
answers with nothing of a model's, and a class of the tree named ``PrismaClient`` stays the tree's."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _flows(linked: Linked) -> set[tuple[str, str, str, int]]:
    return {(f.sourceKind, f.actionClass, f.sink.path, f.sink.line) for f in linked.taintFlows}


def _actions(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


MODEL_TS = """\
import { ChatOpenAI } from "@langchain/openai";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { PromptTemplate } from "@langchain/core/prompts";

export const model = new ChatOpenAI({ model: "gpt-4o" });
export const sqlPrompt = PromptTemplate.fromTemplate("{question}");
export const sqlChain = sqlPrompt.pipe(model).pipe(new StringOutputParser());
export const echoChain = sqlPrompt.pipe(new StringOutputParser());
"""

CONNECTOR_TS = """\
import { PrismaClient } from "../../generated/prisma/index.js";

const prisma = new PrismaClient();

export default prisma;
"""

STEP_TS = """\
import prisma from "../connector/index.js";
import { sqlChain, echoChain } from "../utils/model.js";

export async function answer(question: string) {
  const sql = await sqlChain.invoke({ question });
  return prisma.$queryRawUnsafe(sql.trim());
}

export async function echo(question: string) {
  const text = await echoChain.invoke({ question });
  return prisma.$queryRawUnsafe(text);
}
"""

OWN_TS = """\
export class PrismaClient {
  $queryRawUnsafe(text: string) {
    return text.length;
  }
}
"""

USES_OWN_TS = """\
import { PrismaClient } from "./own/prisma.js";

export function count(text: string) {
  return new PrismaClient().$queryRawUnsafe(text);
}
"""


def _tree() -> Linked:
    return analyse(
        {
            "src/utils/model.ts": MODEL_TS,
            "src/connector/index.ts": CONNECTOR_TS,
            "src/steps/answer.ts": STEP_TS,
            "src/own/prisma.ts": OWN_TS,
            "src/uses_own.ts": USES_OWN_TS,
        }
    )


def test_a_chain_piped_from_a_chat_model_answers_with_model_output_in_another_module() -> None:
    assert ("model_output", "sql.exec", "src/steps/answer.ts", 6) in _flows(_tree())


def test_a_chain_without_a_model_answers_with_nothing_of_a_model() -> None:
    assert not any(line == 11 for _, _, path, line in _flows(_tree()) if path == "src/steps/answer.ts")


def test_a_prisma_client_generated_into_the_project_runs_sql() -> None:
    actions = _actions(_tree())
    assert ("sql.exec", "src/steps/answer.ts", 6) in actions
    assert not any(path == "src/uses_own.ts" for _, path, _ in actions)
