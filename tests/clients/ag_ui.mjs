// `--output ag-ui` read by AG-UI's packages: `node ag_ui.mjs [FILE...]`
// reads each stream (standard input without FILE) and prints what the
// client built, one JSON line each.
//
// 1. Every event is validated with `@ag-ui/core`'s `EventSchemas.parse`,
//    and the sequence is checked here: `RUN_STARTED` first, `RUN_FINISHED`
//    or `RUN_ERROR` last, every text message, reasoning message, reasoning
//    span and tool call started once, written only while open, and ended.
// 2. The same bytes are answered to `@ag-ui/client`'s `HttpAgent` (its SSE
//    parser, its `verifyEvents`, its `defaultApplyEvents`): the messages it
//    builds are what this prints.

import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent } from "@ag-ui/client";

import { readFileSync } from "node:fs";

function fail(message) {
  throw new Error(message);
}

async function check(body) {
  // 1. Event by event.
  const text = body.toString("utf8");
  if (!text.endsWith("\n\n")) fail("the stream must end with a blank line");
  const events = text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      if (!frame.startsWith("data: ") || frame.includes("\n")) fail(`not one data line: ${frame}`);
      return EventSchemas.parse(JSON.parse(frame.slice("data: ".length)));
    });
  const open = { text: new Set(), reasoning: new Set(), span: new Set(), tool: new Set() };
  const seen = new Set();
  const once = (kind, id) => {
    if (seen.has(kind + id)) fail(`${kind} ${id} started twice`);
    seen.add(kind + id);
  };
  const need = (set, id, what) => {
    if (!set.has(id)) fail(`${what} for ${id}, not open`);
  };
  events.forEach((e, i) => {
    const last = i === events.length - 1;
    if ((i === 0) !== (e.type === "RUN_STARTED")) fail("RUN_STARTED first, once");
    if (last !== (e.type === "RUN_FINISHED" || e.type === "RUN_ERROR")) fail("the run ends last, once");
    switch (e.type) {
      case "TEXT_MESSAGE_START":
        once("text", e.messageId);
        if (e.role !== "assistant") fail("an assistant message");
        open.text.add(e.messageId);
        break;
      case "TEXT_MESSAGE_CONTENT":
        need(open.text, e.messageId, e.type);
        if (!e.delta) fail("empty delta");
        break;
      case "TEXT_MESSAGE_END":
        need(open.text, e.messageId, e.type);
        open.text.delete(e.messageId);
        break;
      case "REASONING_START":
        once("span", e.messageId);
        open.span.add(e.messageId);
        break;
      case "REASONING_MESSAGE_START":
        need(open.span, e.messageId, e.type);
        once("reasoning", e.messageId);
        open.reasoning.add(e.messageId);
        break;
      case "REASONING_MESSAGE_CONTENT":
        need(open.reasoning, e.messageId, e.type);
        if (!e.delta) fail("empty delta");
        break;
      case "REASONING_MESSAGE_END":
        need(open.reasoning, e.messageId, e.type);
        open.reasoning.delete(e.messageId);
        break;
      case "REASONING_END":
        need(open.span, e.messageId, e.type);
        if (open.reasoning.has(e.messageId)) fail("reasoning message still open");
        open.span.delete(e.messageId);
        break;
      case "TOOL_CALL_START":
        once("tool", e.toolCallId);
        open.tool.add(e.toolCallId);
        break;
      case "TOOL_CALL_ARGS":
        need(open.tool, e.toolCallId, e.type);
        if (!e.delta) fail("empty delta");
        break;
      case "TOOL_CALL_END":
        need(open.tool, e.toolCallId, e.type);
        open.tool.delete(e.toolCallId);
        break;
      case "RUN_STARTED":
      case "RUN_FINISHED":
      case "RUN_ERROR":
        break;
      default:
        fail(`unexpected event ${e.type}`);
    }
  });
  for (const [kind, set] of Object.entries(open)) if (set.size) fail(`${kind} left open: ${[...set]}`);
  const runError = events[events.length - 1].type === "RUN_ERROR" ? events[events.length - 1].message : null;

  // 2. What the AG-UI client builds.
  const agent = new HttpAgent({
    url: "http://actionstream.invalid/agent",
    fetch: async () =>
      new Response(new Blob([body]).stream(), {
        status: 200,
        headers: { "content-type": "text/event-stream" },
      }),
  });
  let messages;
  let clientError = null;
  const errors = [];
  try {
    const result = await agent.runAgent(
      {},
      { onRunErrorEvent: ({ event }) => void errors.push(event.message) },
    );
    messages = result.newMessages;
  } catch (e) {
    clientError = String(e?.message ?? e);
    messages = agent.messages;
  }
  if (runError === null && clientError !== null) fail(`the client failed: ${clientError}`);
  if (runError !== null && errors[0] !== runError) fail(`RUN_ERROR not seen: ${errors}`);

  const out = { text: "", reasoning: "", calls: [], finish: events[events.length - 1].type, errors };
  for (const m of messages) {
    if (m.role === "assistant") {
      out.text += m.content ?? "";
      for (const call of m.toolCalls ?? []) {
        let args = null;
        try {
          args = JSON.parse(call.function.arguments);
        } catch {}
        out.calls.push({ id: call.id, name: call.function.name, arguments: args });
      }
    } else if (m.role === "reasoning") {
      out.reasoning += m.content;
    } else fail(`unexpected message ${JSON.stringify(m)}`);
  }
  return out;
}

// The files named on the command line, else standard input; one JSON line
// each. The first failure names its file and exits 1.
const paths = process.argv.slice(2);
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
