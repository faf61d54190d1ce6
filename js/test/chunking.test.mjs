// Chunk invariance against the CLI: every response under examples/responses/
// and tests/data/dialects/, pushed as strings at every two-way split (a
// spread of them for long inputs), in 1- and 4-unit grids, in seeded random
// pieces and cut inside every surrogate pair, and as bytes in 1-byte and
// random pieces, gives the same merged events as `actionstream parse`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Parser } from "../src/node.js";
import { cases, cliEvents, cliExists, merge, cut, grid, random, read } from "./common.mjs";

const ALL_SPLITS_UP_TO = 1500;

function run(options, chunks) {
  const p = new Parser(options);
  const events = [];
  for (const c of chunks) events.push(...p.push(c));
  events.push(...p.finish());
  p.free();
  return merge(events);
}

function chunkings(text) {
  const out = [["whole", [text]], ["1-unit grid", grid(text, 1)], ["4-unit grid", grid(text, 4)]];
  const step = text.length <= ALL_SPLITS_UP_TO ? 1 : Math.floor(text.length / 200) + 1;
  for (let at = 1; at < text.length; at += step) out.push([`split at unit ${at}`, cut(text, [at])]);
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff) out.push([`inside the surrogate pair at ${i}`, cut(text, [i + 1])]);
  }
  for (let seed = 0; seed < 8; seed++) {
    out.push([`random pieces, seed ${seed}`, random(text, seed, 1 + ((seed * 9) % 64))]);
  }
  return out;
}

test("every bundled response, at every chunking, equals the CLI's events", { skip: !cliExists() && "the CLI is not built (cargo build)" }, () => {
  const all = cases();
  assert.ok(all.length > 100, `the cases are found (${all.length})`);
  let pairs = 0;
  for (const c of all) {
    const want = cliEvents(c);
    const options = c.dialect ? { dialects: [c.dialect] } : {};
    const bytes = new Uint8Array(read(c.file));
    const text = new TextDecoder().decode(bytes);
    for (const [how, chunks] of chunkings(text)) {
      assert.deepEqual(run(options, chunks), want, `${c.file}: ${how}`);
    }
    for (const [how, chunks] of [
      ["bytes, whole", [bytes]],
      ["bytes, one at a time", grid(bytes, 1)],
      ["bytes, random pieces", random(bytes, 1, 16)],
    ]) {
      assert.deepEqual(run(options, chunks), want, `${c.file}: ${how}`);
    }
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff) pairs++;
  }
  assert.ok(pairs > 0, "some input holds a character outside the BMP");
});

test("argument deltas join the same at every chunking", { skip: !cliExists() && "the CLI is not built" }, () => {
  for (const c of cases().filter((c) => c.dialect !== null).slice(0, 40)) {
    const want = cliEvents(c, ["--argument-deltas"]);
    const options = { dialects: [c.dialect], argumentDeltas: true };
    const text = read(c.file).toString("utf8");
    for (const [how, chunks] of [["1-unit grid", grid(text, 1)], ["random", random(text, 3, 7)]]) {
      assert.deepEqual(run(options, chunks), want, `${c.file}: ${how}`);
    }
  }
});

test("a surrogate pair cut between pushes stays one character", () => {
  const text = "Rocket 🚀 then <tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"🚀\"}}</tool_call>";
  const whole = run({ dialects: ["hermes"] }, [text]);
  for (let at = 1; at < text.length; at++) {
    assert.deepEqual(run({ dialects: ["hermes"] }, cut(text, [at])), whole, `split at ${at}`);
  }
  assert.equal(whole[0].text, "Rocket 🚀 then ");
  // A high surrogate never followed by its low half ends as U+FFFD.
  assert.deepEqual(run({}, ["a\ud83d"]), [{ event: "narrative", text: "a\ufffd" }]);
});
