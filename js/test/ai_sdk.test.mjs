// `actionstreamMiddleware` under the real AI SDK: `streamText` and
// `generateText` of `ai` 5 (specification v2, `MockLanguageModelV2`) and
// `ai` 6 (v3, `MockLanguageModelV3`), over mock models that stream raw
// model text. The text, reasoning and tool calls the AI SDK reports equal
// what the CLI's events say for the same text, at several chunkings; a
// `</tool_call>` inside an argument is cut at every offset; the UI stream
// reads back through `readUIMessageStream`. `ai` and `ai6` are this
// package's devDependencies (js/package.json, `npm ci` in js/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { actionstreamMiddleware } from "../src/node.js";
import { DELTA_UNITS } from "../src/middleware.js";
import { cases, cli, cliExists, cut, grid, random, read, requireClients } from "./common.mjs";
import { execFileSync } from "node:child_process";

const SDKS = await loadSdks();

/** `ai` 5 and 6 with their mock models, or a reason they are missing. */
async function loadSdks() {
  try {
    const out = [];
    for (const [name, version, mock] of [
      ["ai", "v2", "MockLanguageModelV2"],
      ["ai6", "v3", "MockLanguageModelV3"],
    ]) {
      const ai = await import(name);
      const mocks = await import(`${name}/test`);
      out.push({ name, version, ai, Mock: mocks[mock] });
    }
    return out;
  } catch (e) {
    return `the AI SDK is not installed (cd js && npm ci): ${e.message}`;
  }
}

const missing = typeof SDKS === "string" ? requireClients(SDKS) : false;

const usage = {
  v2: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  v3: {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 },
  },
};
const stop = { v2: "stop", v3: { unified: "stop", raw: "stop" } };

/**
 * A mock model of `sdk` that streams `chunks` as text deltas (and `before`
 * parts first, such as a provider's reasoning or native call), and
 * generates their text as one text part.
 */
function mockModel(sdk, chunks, before = [], modelId = undefined) {
  const text = chunks.join("");
  return new sdk.Mock({
    modelId,
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of [
            { type: "stream-start", warnings: [] },
            ...before,
            { type: "text-start", id: "t" },
            ...chunks.filter((c) => c !== "").map((delta) => ({ type: "text-delta", id: "t", delta })),
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: stop[sdk.version], usage: usage[sdk.version] },
          ]) {
            controller.enqueue(part);
          }
          controller.close();
        },
      }),
    }),
    doGenerate: async () => ({
      content: [
        ...before.filter((p) => p.type === "tool-call" || p.type === "reasoning-delta").map((p) =>
          p.type === "reasoning-delta" ? { type: "reasoning", text: p.delta } : p,
        ),
        { type: "text", text },
      ],
      finishReason: stop[sdk.version],
      usage: usage[sdk.version],
      warnings: [],
    }),
  });
}

/** The AI SDK's tools for these names: any object input, no `execute`. */
function sdkTools(sdk, names) {
  const tools = {};
  for (const name of names) {
    tools[name] = sdk.ai.tool({ inputSchema: sdk.ai.jsonSchema({ type: "object" }) });
  }
  return tools;
}

/** What the AI SDK reports of a result (streamed or generated). */
async function reported(result) {
  const calls = await result.toolCalls;
  return {
    text: await result.text,
    reasoning: (await result.reasoningText) ?? "",
    calls: calls.filter((c) => !c.invalid).map((c) => ({ toolName: c.toolName, input: c.input })),
    invalid: calls.filter((c) => c.invalid).map((c) => c.toolName),
    finishReason: await result.finishReason,
  };
}

async function stream(sdk, options, chunks, names, before) {
  const model = sdk.ai.wrapLanguageModel({ model: mockModel(sdk, chunks, before), middleware: actionstreamMiddleware(options) });
  const result = sdk.ai.streamText({ model, prompt: "p", tools: names ? sdkTools(sdk, names) : undefined });
  return reported(result);
}

async function generate(sdk, options, text, names, before) {
  const model = sdk.ai.wrapLanguageModel({ model: mockModel(sdk, [text], before), middleware: actionstreamMiddleware(options) });
  const result = await sdk.ai.generateText({ model, prompt: "p", tools: names ? sdkTools(sdk, names) : undefined });
  return reported(result);
}

/**
 * What the AI SDK must report for a text, from the CLI's events (with
 * argument deltas, so that a call that went out before it failed is
 * known): narrative and the raw text of actions that ended invalid before
 * their call went out (once per block) is the text; reasoning; completed
 * actions are the calls; actions whose call went out and then failed are
 * the invalid calls.
 */
function expected(events) {
  const out = { text: "", reasoning: "", calls: [], invalid: [] };
  const started = new Map();
  let lastRaw = null;
  for (const e of events) {
    if (e.event === "narrative") out.text += e.text;
    else if (e.event === "reasoning") out.reasoning += e.text;
    else if (e.event === "action_started") started.set(e.id, { e, out: false });
    else if (e.event === "arguments_delta" && e.json !== "") {
      const s = started.get(e.id);
      if (s && s.e.name != null && (s.e.syntax === "dialect" || s.e.syntax === "native")) s.out = true;
    } else if (e.event === "action_complete") out.calls.push({ toolName: e.name, input: e.arguments });
    else if (e.event === "action_invalid") {
      const s = started.get(e.id);
      if (s && s.out) {
        out.invalid.push(s.e.name);
        continue;
      }
      const repeated = e.span && lastRaw && e.span[0] === lastRaw[0] && e.span[1] === lastRaw[1];
      if (!repeated) out.text += e.raw;
      lastRaw = e.span;
    }
  }
  out.finishReason = out.calls.length > 0 ? "tool-calls" : "stop";
  return out;
}

function cliRun(file, dialect, toolsFile) {
  const args = ["parse", "--argument-deltas", file];
  if (dialect) args.push("--dialect", dialect);
  if (toolsFile) args.push("--tools", toolsFile);
  const out = execFileSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  return out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

/** The names of the completed actions of a text, without tools. */
function names(events) {
  return [...new Set(events.filter((e) => e.event === "action_complete").map((e) => e.name))];
}

function toolsFileFor(dir, list) {
  const file = join(dir, "tools.json");
  writeFileSync(file, JSON.stringify(list.map((name) => ({ type: "function", name, inputSchema: { type: "object" } }))));
  return file;
}

const noCli = !cliExists() && "the CLI is not built (cargo build)";

test("every bundled response: what ai 5 and 6 report equals the CLI's events", { skip: missing || noCli }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "actionstream-ai-"));
  try {
    let withCalls = 0;
    let withReasoning = 0;
    for (const c of cases()) {
      const text = read(c.file).toString("utf8");
      const options = c.dialect ? { dialects: [c.dialect] } : {};
      // The request's tools: the names the text calls, each taking any object.
      const list = names(cliRun(c.file, c.dialect, null));
      const want = expected(cliRun(c.file, c.dialect, list.length ? toolsFileFor(dir, list) : null));
      if (want.calls.length) withCalls++;
      if (want.reasoning) withReasoning++;
      const tools = list.length ? list : null;
      for (const sdk of SDKS) {
        // The AI SDK costs about 0.15 ms a part: the 4-unit grid only for
        // one response per dialect (chunking.test.mjs covers every chunking
        // of every response under the parser itself).
        const chunkings = [
          ["whole", [text]],
          ["random pieces", random(text, 5, 48)],
        ];
        if (c.file.includes(join("examples", "responses"))) chunkings.push(["4-unit grid", grid(text, 4)]);
        for (const [how, chunks] of chunkings) {
          assert.deepEqual(await stream(sdk, options, chunks, tools), want, `${sdk.name} streamText, ${c.file}: ${how}`);
        }
        assert.deepEqual(await generate(sdk, options, text, tools), want, `${sdk.name} generateText, ${c.file}`);
      }
    }
    assert.ok(withCalls > 50, `cases with calls: ${withCalls}`);
    assert.ok(withReasoning > 5, `cases with reasoning: ${withReasoning}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a </tool_call> inside an argument, with the stream cut at every offset", { skip: missing || noCli }, async () => {
  const text =
    'Writing it.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "a.xml", "content": "<a>\\n</tool_call>\\n</a>"}}\n</tool_call>\nDone: 🚀 ok.';
  const dir = mkdtempSync(join(tmpdir(), "actionstream-ai-"));
  try {
    const file = join(dir, "response.txt");
    writeFileSync(file, text);
    const want = expected(cliRun(file, "hermes", toolsFileFor(dir, ["write_file"])));
    assert.deepEqual(want.calls, [{ toolName: "write_file", input: { path: "a.xml", content: "<a>\n</tool_call>\n</a>" } }]);
    assert.equal(want.text, "Writing it.\nDone: 🚀 ok.".replace("\nDone", "\n\nDone"));
    for (const sdk of SDKS) {
      for (let at = 0; at <= text.length; at++) {
        assert.deepEqual(await stream(sdk, { dialects: ["hermes"] }, cut(text, [at]), ["write_file"]), want, `${sdk.name}: cut at ${at}`);
      }
      assert.deepEqual(await stream(sdk, { dialects: ["hermes"] }, grid(text, 1), ["write_file"]), want, `${sdk.name}: 1 unit at a time`);
      assert.deepEqual(await generate(sdk, { dialects: ["hermes"] }, text, ["write_file"]), want, `${sdk.name}: generateText`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The parts a wrapped mock model streams, as the middleware wrote them. */
async function modelParts(sdk, options, chunks, before = []) {
  const model = sdk.ai.wrapLanguageModel({ model: mockModel(sdk, chunks, before), middleware: actionstreamMiddleware(options) });
  const { stream } = await model.doStream({ prompt: [] });
  const parts = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

/**
 * Parts merged as section 12 says: ids without the response's own base,
 * adjacent deltas of one part joined, a text or reasoning part that ends
 * where another of its kind begins joined to it.
 */
function mergeParts(parts) {
  const out = [];
  for (const raw of parts) {
    const p = { ...raw };
    for (const key of ["id", "toolCallId"]) if (typeof p[key] === "string") p[key] = p[key].replace(/^as[0-9a-z]+-/, "");
    const last = out[out.length - 1];
    if (last && p.type.endsWith("-delta") && last.type === p.type && last.id === p.id) {
      out[out.length - 1] = { ...last, delta: last.delta + p.delta };
      continue;
    }
    if (last && /^(text|reasoning)-start$/.test(p.type) && last.type === p.type.replace("start", "end")) {
      out.pop();
      continue;
    }
    out.push(p);
  }
  // Part ids count the parts; joined parts renumber them.
  const ids = new Map();
  return out.map((p) => {
    if (!/^(text|reasoning)-/.test(p.type)) return p;
    if (!ids.has(p.id)) ids.set(p.id, `${p.type.split("-")[0]}-${ids.size}`);
    return { ...p, id: ids.get(p.id) };
  });
}

test("the middleware's parts, merged, are the same at every chunking", { skip: missing }, async () => {
  for (const c of cases()) {
    const text = read(c.file).toString("utf8");
    const options = c.dialect ? { dialects: [c.dialect] } : {};
    const chunkings = [["random pieces", random(text, 9, 11)]];
    // One unit at a time for one response per dialect (a wasm call per
    // unit); chunking.test.mjs pushes every response so to the parser.
    if (c.file.includes(join("examples", "responses"))) chunkings.push(["1-unit grid", grid(text, 1)]);
    for (let at = 1; at < text.length; at += Math.floor(text.length / 6) + 1) chunkings.push([`split at ${at}`, cut(text, [at])]);
    for (let i = 0; i < text.length; i++) {
      const u = text.charCodeAt(i);
      if (u >= 0xd800 && u <= 0xdbff) chunkings.push([`inside the surrogate pair at ${i}`, cut(text, [i + 1])]);
    }
    for (const sdk of SDKS) {
      const whole = mergeParts(await modelParts(sdk, options, [text]));
      for (const [how, chunks] of chunkings) {
        assert.deepEqual(mergeParts(await modelParts(sdk, options, chunks)), whole, `${sdk.name}, ${c.file}: ${how}`);
      }
    }
  }
});

test("argument deltas go out in pieces of at least 1 KiB, each as soon as it has them", { skip: missing }, async () => {
  const long = "x".repeat(5000);
  const text = `<tool_call>{"name": "f", "arguments": {"s": "${long}"}}</tool_call>`;
  const chunks = grid(text, 4);
  for (const sdk of SDKS) {
    // Which text chunk each part followed.
    const model = mockModel(sdk, chunks);
    let seen = 0;
    const counting = {
      ...model,
      specificationVersion: model.specificationVersion,
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: model.supportedUrls,
      doGenerate: (p) => model.doGenerate(p),
      doStream: async (p) => {
        const r = await model.doStream(p);
        return {
          ...r,
          stream: r.stream.pipeThrough(
            new TransformStream({
              transform(part, c) {
                if (part.type === "text-delta") seen++;
                c.enqueue(part);
              },
            }),
          ),
        };
      },
    };
    const wrapped = sdk.ai.wrapLanguageModel({ model: counting, middleware: actionstreamMiddleware({ dialects: ["hermes"] }) });
    const { stream } = await wrapped.doStream({ prompt: [] });
    const deltas = [];
    for await (const p of stream) if (p.type === "tool-input-delta") deltas.push({ delta: p.delta, chunk: seen });
    const joined = deltas.map((d) => d.delta).join("");
    assert.deepEqual(JSON.parse(joined), { s: long }, sdk.name);
    for (const d of deltas.slice(0, -1)) assert.ok(d.delta.length >= DELTA_UNITS, `${sdk.name}: a piece of ${d.delta.length}`);
    assert.ok(deltas.length >= 2 && deltas.length <= Math.ceil(joined.length / DELTA_UNITS), `${sdk.name}: ${deltas.length} deltas`);
    // The first piece went out long before the chunk that closes the call.
    const closer = Math.floor(text.lastIndexOf("</tool_call>") / 4);
    assert.ok(deltas[0].chunk < closer / 2, `${sdk.name}: first piece after chunk ${deltas[0].chunk}, the closer in ${closer}`);
  }
});

test("a provider's reasoning and native calls pass through; the dialect's reasoning comes out as reasoning parts", { skip: missing }, async () => {
  const before = [
    { type: "reasoning-start", id: "r" },
    { type: "reasoning-delta", id: "r", delta: "Provider thinks." },
    { type: "reasoning-end", id: "r" },
    { type: "tool-call", toolCallId: "native-1", toolName: "lookup", input: '{"q":"x"}' },
  ];
  const text = "<think>Model thinks.</think>Answer.";
  for (const sdk of SDKS) {
    const got = await stream(sdk, { dialects: ["hermes"], reasoningOpen: false }, grid(text, 3), ["lookup"], before);
    assert.equal(got.reasoning, "Provider thinks.Model thinks.", sdk.name);
    assert.equal(got.text, "Answer.", sdk.name);
    assert.deepEqual(got.calls, [{ toolName: "lookup", input: { q: "x" } }], sdk.name);
    const parts = (await modelParts(sdk, { dialects: ["hermes"] }, grid(text, 3))).map((p) => p.type);
    assert.deepEqual(
      parts.filter((t) => t.startsWith("reasoning") || t.startsWith("text")).filter((t, i, a) => !t.endsWith("delta") || a[i - 1] !== t),
      ["reasoning-start", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-end"],
      sdk.name,
    );
    const generated = await generate(sdk, { dialects: ["hermes"] }, text, ["lookup"], before);
    assert.equal(generated.reasoning, "Provider thinks.Model thinks.", sdk.name);
    assert.deepEqual(generated.calls, got.calls, sdk.name);
  }
});

test("an invalid action is text; a call that went out and then failed is an invalid call", { skip: missing }, async () => {
  // Fails before its arguments begin: never a call, its raw text is text.
  const broken = 'Try: <tool_call>{"name": "f", oops}</tool_call> end.';
  // Fails after its arguments began to stream: an invalid call, as the AI SDK reports one.
  const late = 'Try: <tool_call>{"name": "f", "arguments": {"a": 1,,}}</tool_call> end.';
  const cutOff = 'Go <tool_call>{"name": "f", "arguments": {"a": "unfinished';
  for (const sdk of SDKS) {
    for (const how of ["stream", "generate"]) {
      const run = (text) =>
        how === "stream" ? stream(sdk, { dialects: ["hermes"] }, grid(text, 2), ["f"]) : generate(sdk, { dialects: ["hermes"] }, text, ["f"]);
      let got = await run(broken);
      assert.deepEqual([got.text, got.calls, got.invalid, got.finishReason], [broken, [], [], "stop"], `${sdk.name} ${how}`);
      got = await run(late);
      assert.deepEqual([got.text, got.calls, got.invalid, got.finishReason], ["Try:  end.", [], ["f"], "stop"], `${sdk.name} ${how}`);
      got = await run(cutOff);
      assert.deepEqual([got.text, got.calls, got.invalid, got.finishReason], ["Go ", [], ["f"], "stop"], `${sdk.name} ${how}`);
    }
  }
});

test("with no dialect in the options, the wrapped model's id chooses it by family", { skip: missing }, async () => {
  const coder = "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
  for (const sdk of SDKS) {
    for (const [modelId, calls] of [
      ["Qwen/Qwen3-Coder-30B-A3B-Instruct", [{ toolName: "get_weather", input: { city: "Paris" } }]],
      // Qwen3 writes hermes: this text is no call of it.
      ["Qwen/Qwen3-8B", []],
      // An id of no family: the default dialects (fences and call tags).
      ["mock-model-id", []],
    ]) {
      const model = sdk.ai.wrapLanguageModel({ model: mockModel(sdk, grid(coder, 6), [], modelId), middleware: actionstreamMiddleware() });
      const result = sdk.ai.streamText({ model, prompt: "p", tools: sdkTools(sdk, ["get_weather"]) });
      assert.deepEqual((await reported(result)).calls, calls, `${sdk.name} ${modelId}`);
    }
  }
});

test("bad options throw when the middleware is made, with the CLI's message", () => {
  assert.throws(() => actionstreamMiddleware({ dialects: ["qwen"] }), /^Error: unknown dialect `qwen`/);
  assert.throws(() => actionstreamMiddleware({ maxBlockBytes: 0 }), { message: "max_block_bytes must be at least 16 bytes, not 0" });
});

test("readUIMessageStream reads the UI stream of a wrapped model", { skip: missing }, async () => {
  const text = '<think>Plan.</think>Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  for (const sdk of SDKS) {
    const model = sdk.ai.wrapLanguageModel({ model: mockModel(sdk, grid(text, 5)), middleware: actionstreamMiddleware({ dialects: ["hermes"] }) });
    const result = sdk.ai.streamText({ model, prompt: "p", tools: sdkTools(sdk, ["get_weather"]) });
    let last;
    for await (const message of sdk.ai.readUIMessageStream({ stream: result.toUIMessageStream() })) last = message;
    const parts = last.parts.filter((p) => p.type !== "step-start");
    assert.deepEqual(
      parts.map((p) => [p.type, p.text ?? p.input, p.state]),
      [
        ["reasoning", "Plan.", "done"],
        ["text", "Checking. ", "done"],
        ["tool-get_weather", { city: "Paris" }, "input-available"],
      ],
      sdk.name,
    );
  }
});
