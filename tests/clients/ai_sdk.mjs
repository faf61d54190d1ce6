// `--output ai-sdk` read by the `ai` package (the AI SDK): `node ai_sdk.mjs
// [ai|ai6] [FILE...]` reads each stream (standard input without FILE) and
// prints what the client built, one JSON line each.
//
// 1. Every frame is parsed by the package's own `parseJsonEventStream` with
//    its `uiMessageChunkSchema`: each chunk must validate; the stream must
//    start with `start`, end with `finish` then `[DONE]`, and every text,
//    reasoning and tool part must open before it is written and close once.
// 2. The same bytes are answered (with the headers a server sends,
//    `x-vercel-ai-ui-message-stream: v1`) to `AbstractChat`, the class
//    behind `useChat`, through `DefaultChatTransport`: the assistant message
//    it builds (text parts, reasoning parts, tool parts with their states)
//    is what this prints.

import { readFileSync } from "node:fs";

const pkg = process.argv[2] ?? "ai";
const ai = await import(pkg);

function fail(message) {
  throw new Error(message);
}

async function check(body) {
  // 1. Chunk by chunk.
  const text = body.toString("utf8");
  if (!text.endsWith("data: [DONE]\n\n")) fail("the stream must end with data: [DONE]");
  const parsed = ai.parseJsonEventStream({
    stream: new Blob([body]).stream(),
    schema: ai.uiMessageChunkSchema,
  });
  const kinds = [];
  const open = new Map(); // id -> kind
  let finishReason;
  const streamErrors = [];
  for await (const result of parsed) {
    if (!result.success) fail(`a chunk does not validate: ${result.error?.message ?? result.error}`);
    const c = result.value;
    kinds.push(c.type);
    const t = c.type;
    if (t === "text-start" || t === "reasoning-start") {
      if (open.has(c.id)) fail(`${c.id} opened twice`);
      open.set(c.id, t.split("-")[0]);
    } else if (t === "text-delta" || t === "reasoning-delta" || t === "text-end" || t === "reasoning-end") {
      if (open.get(c.id) !== t.split("-")[0]) fail(`${t} for ${c.id}, not open`);
      if (t.endsWith("-end")) open.delete(c.id);
    } else if (t === "tool-input-start") {
      if (open.has(c.toolCallId)) fail(`${c.toolCallId} started twice`);
      open.set(c.toolCallId, "tool");
    } else if (t === "tool-input-delta") {
      if (open.get(c.toolCallId) !== "tool") fail(`delta of ${c.toolCallId}, not started`);
    } else if (t === "tool-input-available" || t === "tool-input-error") {
      open.delete(c.toolCallId);
    } else if (t === "finish") {
      finishReason = c.finishReason;
    } else if (t === "error") {
      streamErrors.push(c.errorText);
    }
  }
  if (kinds[0] !== "start") fail("the first chunk must be start");
  if (kinds[kinds.length - 1] !== "finish") fail("the last chunk must be finish");
  if (open.size) fail(`parts left open: ${[...open.keys()]}`);

  // 2. What useChat builds.
  class State {
    constructor() {
      this.messages = [];
      this.status = "ready";
      this.error = undefined;
    }
    pushMessage(m) {
      this.messages = this.messages.concat(m);
    }
    popMessage() {
      this.messages = this.messages.slice(0, -1);
    }
    replaceMessage(i, m) {
      this.messages = [...this.messages.slice(0, i), this.snapshot(m), ...this.messages.slice(i + 1)];
    }
    snapshot(v) {
      return structuredClone(v);
    }
  }
  class Chat extends ai.AbstractChat {
    constructor(options) {
      super({ ...options, state: new State() });
    }
  }
  let seenHeaders;
  const transport = new ai.DefaultChatTransport({
    api: "http://actionstream.invalid/api/chat",
    fetch: async () => {
      const response = new Response(new Blob([body]).stream(), {
        status: 200,
        headers: ai.UI_MESSAGE_STREAM_HEADERS,
      });
      seenHeaders = Object.fromEntries(response.headers);
      return response;
    },
  });
  const chatErrors = [];
  const chat = new Chat({ transport, onError: (e) => chatErrors.push(String(e?.message ?? e)) });
  await chat.sendMessage({ text: "hi" });
  if (seenHeaders["x-vercel-ai-ui-message-stream"] !== "v1") fail("header");
  const message = chat.messages[chat.messages.length - 1];
  if (message.role !== "assistant") fail(`no assistant message: ${JSON.stringify(chat.messages)}`);

  const out = { text: "", reasoning: "", calls: [], finish: finishReason, errors: streamErrors };
  for (const part of message.parts) {
    if (part.type === "text") out.text += part.text;
    else if (part.type === "reasoning") out.reasoning += part.text;
    else if (ai.isToolUIPart(part)) {
      if (part.state !== "input-available" && part.state !== "output-error")
        fail(`tool part ${part.toolCallId} left in state ${part.state}`);
      out.calls.push({
        id: part.toolCallId,
        name: ai.getToolName(part),
        arguments: part.state === "input-available" ? part.input : null,
        status: part.state,
        errorText: part.errorText,
      });
    } else if (part.type !== "step-start") fail(`unexpected part ${part.type}`);
    if (part.state === "streaming") fail(`part left streaming: ${JSON.stringify(part)}`);
  }
  if (streamErrors.length && chatErrors[0] !== streamErrors[0]) fail(`the chat saw ${chatErrors}`);
  if (!streamErrors.length && chatErrors.length) fail(`the chat failed: ${chatErrors}`);
  return out;
}

// The files named on the command line, else standard input; one JSON line
// each. The first failure names its file and exits 1.
const paths = process.argv.slice(3);
const bodies = [];
if (paths.length === 0) {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  bodies.push(["<stdin>", Buffer.concat(chunks)]);
} else for (const p of paths) bodies.push([p, readFileSync(p)]);
for (const [path, body] of bodies) {
  try {
    process.stdout.write(JSON.stringify(await check(body)) + "\n");
  } catch (e) {
    process.stderr.write(`${path}:\n${e?.stack ?? e}\n`);
    process.exit(1);
  }
}
