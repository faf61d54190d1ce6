// Compiled (not run) by types.test.mjs: the package's types fit the AI
// SDK's middleware types of `ai` 5 (v2) and `ai` 6 (v3).
import { streamText, wrapLanguageModel } from "ai";
import { wrapLanguageModel as wrapLanguageModel6 } from "ai6";
import { MockLanguageModelV2 } from "ai/test";
import { MockLanguageModelV3 } from "ai6/test";
import { actionstreamMiddleware, init, Parser, type Event } from "actionstream";

export const v2 = wrapLanguageModel({
  model: new MockLanguageModelV2(),
  middleware: actionstreamMiddleware({ dialects: ["hermes"] }),
});
export const v3 = wrapLanguageModel6({ model: new MockLanguageModelV3(), middleware: actionstreamMiddleware() });
export const result = streamText({ model: v2, prompt: "p" });

export async function parse(chunks: AsyncIterable<string | Uint8Array>): Promise<Event[]> {
  await init();
  const parser = new Parser({ dialects: ["hermes"], maxBlockBytes: 1 << 20 });
  const events: Event[] = [];
  for await (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.finish());
  parser.free();
  return events.filter((e) => e.event !== "narrative" || e.text !== "");
}
