// The package's entries and its size budget.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { merge } from "./common.mjs";

const wasm = readFileSync(new URL("../pkg/actionstream_wasm_bg.wasm", import.meta.url));

test("the .wasm is within its size budget: 300 KB gzipped", () => {
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  console.log(`actionstream_wasm_bg.wasm: ${wasm.length} bytes, ${gzipped} gzipped`);
  assert.ok(gzipped <= 300 * 1024, `${gzipped} bytes gzipped`);
});

test("the edge entry takes a compiled WebAssembly.Module", async () => {
  const { init, Parser } = await import("../src/edge.js");
  await init(await WebAssembly.compile(wasm));
  const p = new Parser({ dialects: ["hermes"] });
  const events = [
    ...p.push('Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'),
    ...p.finish(),
  ];
  p.free();
  assert.deepEqual(
    events.map((e) => e.event),
    ["narrative", "action_started", "action_complete"],
  );
  assert.deepEqual(events[2].arguments, { a: 1 });
});

test("the package's own name resolves to the Node entry", async () => {
  const { Parser, init } = await import("actionstream");
  await init();
  const p = new Parser();
  // A UTF-8 character cut between two pushes of bytes.
  const events = [
    ...p.push(new TextEncoder().encode("caf\u00e9").subarray(0, 4)),
    ...p.push(new Uint8Array([0xa9])),
    ...p.finish(),
  ];
  assert.deepEqual(merge(events), [{ event: "narrative", text: "café" }]);
});
