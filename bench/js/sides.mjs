// The sides the JavaScript bench runs, each over the same parts:
//
// - plumbed: a ReadableStream of language-model parts (specification v3)
//   from `MockLanguageModelV3`, through `wrapLanguageModel` with a
//   middleware, read to the end: the identity middleware (one pass-through
//   TransformStream: the plumbing's own cost), ours
//   (`actionstreamMiddleware`, where the package has it) and the peer's
//   (`@ai-sdk-tool/parser`, hermes or qwen3_coder);
// - raw: the parser alone, with no stream: our `Parser` push loop, and the
//   peer's stream parser's own `transform` called once per part (the peer
//   has no push API; its transformer is taken from the TransformStream it
//   makes, so no stream machinery is timed).
//
// Every side reports what came out in one shape: the calls, the text, the
// number of tool-input-delta parts, and the index of the part (0-based) in
// which the first tool-input-delta came.
import { wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import * as pinnedPeer from "@ai-sdk-tool/parser";
import * as ours from "../../js/src/node.js";
import { tools } from "./inputs.mjs";

/** Whether the package has its AI SDK middleware (it came after the `Parser`). */
export const haveOurMiddleware = typeof ours.actionstreamMiddleware === "function";

const finish = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  },
};

/** The model's parts for text in `parts`: one text block, then finish. */
function modelParts(parts) {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t0" },
    ...parts.map((delta) => ({ type: "text-delta", id: "t0", delta })),
    { type: "text-end", id: "t0" },
    finish,
  ];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The model's stream. `pace`: release `pace.parts` parts every `pace.ms`
 * milliseconds (on a fixed schedule, so a slow reader falls behind rather
 * than slowing the source); else as fast as it is read. `released()` is
 * how many text parts have left so far.
 */
function source(parts, pace) {
  const all = modelParts(parts);
  let i = 0;
  let start = 0;
  const stream = new ReadableStream(
    {
      async pull(controller) {
        if (i === 0) start = performance.now();
        if (pace && i > 2 && (i - 2) % pace.parts === 0) {
          const due = start + ((i - 2) / pace.parts) * pace.ms;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
        }
        if (i < all.length) controller.enqueue(all[i++]);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, released: () => Math.max(0, Math.min(i - 2, parts.length)) };
}

const identity = {
  specificationVersion: "v3",
  wrapStream: async ({ doStream }) => {
    const { stream, ...rest } = await doStream();
    return {
      ...rest,
      stream: stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            controller.enqueue(part);
          },
        }),
      ),
    };
  },
};

/** The peer's module: the pinned one, or another version (`usePeer`). */
let peer = pinnedPeer;

/** Runs the peer from `module` (another version of `@ai-sdk-tool/parser`). */
export function usePeer(module) {
  peer = module;
}

const peerMiddleware = {
  hermes: () => peer.hermesToolMiddleware,
  qwen3_coder: () => peer.qwen3CoderToolMiddleware,
};
const peerProtocol = {
  hermes: () => peer.hermesProtocol(),
  qwen3_coder: () => peer.qwen3CoderProtocol(),
};

function middlewareOf(side, dialect) {
  if (side === "identity") return identity;
  if (side === "peer") return peerMiddleware[dialect]();
  if (side === "ours") {
    if (!haveOurMiddleware) throw new Error("the package has no actionstreamMiddleware yet");
    return ours.actionstreamMiddleware({ dialects: [dialect] });
  }
  throw new Error(`unknown side ${side}`);
}

/** What came out of a side, in one shape. */
function tally() {
  return { calls: [], text: "", deltas: 0, firstDelta: -1 };
}

function readPart(out, part, index) {
  if (part.type === "text-delta") out.text += part.delta;
  else if (part.type === "tool-input-delta") {
    if (out.firstDelta < 0) out.firstDelta = index;
    out.deltas++;
  } else if (part.type === "tool-call") {
    let input;
    try {
      input = JSON.parse(part.input);
    } catch {
      input = part.input;
    }
    out.calls.push({ name: part.toolName, input });
  }
}

/** Reads `parts` through `wrapLanguageModel` with the side's middleware. */
export async function plumbed(side, dialect, parts, pace) {
  const src = source(parts, pace);
  const model = wrapLanguageModel({
    model: new MockLanguageModelV3({ doStream: async () => ({ stream: src.stream }) }),
    middleware: middlewareOf(side, dialect),
  });
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "Write the file." }] }],
    tools,
  });
  const out = tally();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // The part being read when this came out (the streams between hold
    // at most a part or two).
    readPart(out, value, Math.max(0, src.released() - 1));
  }
  return out;
}

/** The peer's stream parser's transformer, taken from the TransformStream it makes. */
function peerTransformer(dialect) {
  const Real = globalThis.TransformStream;
  let transformer = null;
  globalThis.TransformStream = class extends Real {
    constructor(t, ...rest) {
      super(t, ...rest);
      transformer = t;
    }
  };
  try {
    const decoded = tools.map((t) => ({ ...t }));
    peerProtocol[dialect]().createStreamParser({ tools: decoded, options: {} });
  } finally {
    globalThis.TransformStream = Real;
  }
  if (!transformer) throw new Error("the peer made no TransformStream");
  return transformer;
}

/**
 * The parser alone: ours pushed part by part, or the peer's transformer
 * called part by part. `pace`: as for the model's stream, the loop waits
 * for each batch's time.
 */
export async function raw(side, dialect, parts, pace) {
  const out = tally();
  const wait = async (i) => {
    if (pace && i > 0 && i % pace.parts === 0) {
      const wait = start + (i / pace.parts) * pace.ms - performance.now();
      if (wait > 0) await sleep(wait);
    }
  };
  const start = performance.now();
  if (side === "ours") {
    const parser = new ours.Parser({ dialects: [dialect], tools, argumentDeltas: true });
    const take = (events, i) => {
      for (const e of events) {
        if (e.event === "narrative") out.text += e.text;
        else if (e.event === "arguments_delta") {
          if (out.firstDelta < 0) out.firstDelta = i;
          out.deltas++;
        } else if (e.event === "action_complete") out.calls.push({ name: e.name, input: e.arguments });
      }
    };
    for (let i = 0; i < parts.length; i++) {
      if (pace) await wait(i);
      take(parser.push(parts[i]), i);
    }
    take(parser.finish(), parts.length);
    parser.free();
    return out;
  }
  if (side === "peer") {
    const t = peerTransformer(dialect);
    let index = 0;
    const controller = {
      enqueue: (part) => readPart(out, part, index),
      error: (e) => {
        throw e;
      },
      terminate: () => {},
      desiredSize: 1,
    };
    const all = modelParts(parts);
    for (let i = 0; i < all.length; i++) {
      index = Math.max(0, Math.min(i - 2, parts.length - 1));
      if (pace && i >= 2) await wait(i - 2);
      t.transform(all[i], controller);
    }
    if (t.flush) t.flush(controller);
    return out;
  }
  throw new Error(`no raw loop for side ${side}`);
}
