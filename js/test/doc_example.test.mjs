// The AI SDK example of docs/javascript.md, run as it is written, against
// an OpenAI-compatible server on 127.0.0.1 that this test starts in place of
// vLLM: it streams a raw model's text (a hermes call inside it) as Chat
// Completions chunks, and the example's `streamText` reports a tool call.
// `@ai-sdk/openai-compatible` (1.x, for `ai` 5) is a js/ devDependency.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { requireClients, root } from "./common.mjs";

const DOCUMENTED_URL = "http://127.0.0.1:8000/v1";

let missing = false;
try {
  await import("@ai-sdk/openai-compatible");
  await import("ai");
} catch {
  missing = requireClients("@ai-sdk/openai-compatible or ai is not installed (cd js && npm ci)");
}

/** The first ```js block under the heading `## The AI SDK` of docs/javascript.md. */
function example() {
  const page = readFileSync(join(root, "docs", "javascript.md"), "utf8");
  const section = page.slice(page.indexOf("## The AI SDK"));
  const match = /```js\n([^]*?)```/.exec(section);
  assert.ok(match, "the AI SDK section has a js example");
  assert.ok(match[1].includes(DOCUMENTED_URL), "the example's server URL");
  return match[1];
}

const ANSWER =
  'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

/** A Chat Completions server that streams ANSWER in 6-character deltas. */
function serve(requests) {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      requests.push({ url: req.url, body: JSON.parse(body) });
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion.chunk",
          created: 0,
          model: "Qwen/Qwen3-8B",
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }));
      for (let i = 0; i < ANSWER.length; i += 6) res.write(chunk({ content: ANSWER.slice(i, i + 6) }));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

test("the documented AI SDK example reports the raw model's call as a tool call", { skip: missing }, async () => {
  const requests = [];
  const server = await serve(requests);
  try {
    const code = example().replace(DOCUMENTED_URL, `http://127.0.0.1:${server.address().port}/v1`);
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code], {
      cwd: join(root, "js"),
      encoding: "utf8",
    });
    const types = stdout.trim().split("\n");
    assert.equal(requests.length, 1);
    assert.equal(requests[0].url, "/v1/chat/completions");
    assert.equal(requests[0].body.tools[0].function.name, "get_weather");
    assert.ok(types.includes("text-delta"), stdout);
    assert.deepEqual(types.filter((t) => t.startsWith("tool-")), ["tool-input-start", "tool-input-delta", "tool-input-end", "tool-call"]);
    assert.equal(types[types.length - 1], "finish");
  } finally {
    server.close();
  }
});
