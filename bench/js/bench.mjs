// The JavaScript bench: the npm package `actionstream` (the `Parser`, and
// `actionstreamMiddleware` where the package has it) against
// `@ai-sdk-tool/parser` on its hermes and qwen3_coder protocols. Prints one
// Markdown section (bench/sections/70-javascript.sh runs it; progress goes
// to standard error). Environment: QUICK=1 (fewer repetitions and seeds, a
// shorter limit for the peer); PEER_NEWEST_VERSION and PEER_NEWEST_ENTRY
// (a file URL of that version's `dist/index.js`) add a newer published
// version of the peer beside the pinned one.
//
// Each measurement runs in a worker thread of its own (measure.mjs), one at
// a time; a worker that runs past its limit (CPU time: the figures are CPU
// time, so a busy machine stops the peer at the same work) is ended, and
// the figure reads "> the time it had spent, stopped". Sizes above one
// where a side was stopped are not run: their first part is the same
// input, so they would take longer still.
import { Worker } from "node:worker_threads";
import { readFileSync } from "node:fs";
import { haveOurMiddleware } from "./sides.mjs";

const quick = process.env.QUICK === "1";
const sizes = [16, 64, 128, 512];
const dialects = ["hermes", "qwen3_coder"];
const reps = quick ? 1 : 3;
/** The peer's limit for one measurement, in seconds of wall time. */
const limitS = quick ? 5 : 10;
/** Ours and the identity are linear: a limit only against a hang. */
const oursLimitS = 300;
const warmKiB = quick ? 128 : 256;
/** Ours and the identity: a smaller call is timed over runs that make this many KiB. */
const batchKiB = quick ? 128 : 256;
const seeds = quick ? 50 : 200;
const paceKiB = quick ? 16 : 64;
const pace = { parts: 100, ms: 10 };

const pinned = JSON.parse(
  readFileSync(new URL("./node_modules/@ai-sdk-tool/parser/package.json", import.meta.url), "utf8"),
).version;
const aiVersion = JSON.parse(
  readFileSync(new URL("./node_modules/ai/package.json", import.meta.url), "utf8"),
).version;
const peers = [{ version: pinned, entry: null }];
if (process.env.PEER_NEWEST_ENTRY && process.env.PEER_NEWEST_VERSION !== pinned) {
  peers.push({ version: process.env.PEER_NEWEST_VERSION, entry: process.env.PEER_NEWEST_ENTRY });
}

/**
 * Runs one job in a worker: `{result}`, or `{stopped: true, cpu}` once the
 * process has spent `limit` seconds of CPU time on it (this thread only
 * waits meanwhile, so that time is the worker's), or three times that in
 * wall time, whichever comes first: `cpu` is what it had spent by then.
 */
function measure(job, limit = limitS) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./measure.mjs", import.meta.url), { workerData: job });
    let poll = null;
    const arm = () => {
      if (poll !== null) return;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      poll = setInterval(() => {
        const used = process.cpuUsage(cpu0);
        const cpu = (used.user + used.system) / 1000;
        if (cpu >= limit * 1000 || performance.now() - t0 >= 3 * limit * 1000) {
          clearInterval(poll);
          worker.terminate();
          resolve({ stopped: true, cpu });
        }
      }, 50);
    };
    // A losses job is limited from the start; a speed job from its first timed run.
    if (job.task !== "speed") arm();
    worker.on("message", (m) => {
      if (m.started) arm();
      else {
        clearInterval(poll);
        worker.terminate();
        resolve({ result: m });
      }
    });
    worker.on("error", (e) => {
      clearInterval(poll);
      reject(e);
    });
  });
}

const log = (...a) => console.error("  js bench:", ...a);

/** The speed of one side at every size, smallest first, up to a size where it was stopped. */
async function series(side, kind, dialect, peer, extra = {}) {
  const out = new Map();
  let stoppedAt = null;
  for (const size of extra.sizes ?? sizes) {
    if (stoppedAt !== null) {
      out.set(size, { notRun: stoppedAt, stopCpu: out.get(stoppedAt).stopCpu });
      continue;
    }
    const job = {
      task: "speed",
      side,
      kind,
      dialect,
      size: size * 1024,
      reps: side === "peer" ? 1 : (extra.reps ?? reps),
      warmKiB,
      batchKiB,
      pace: extra.pace,
      peerEntry: peer?.entry ?? null,
    };
    const r = await measure(job, side === "peer" ? limitS : oursLimitS);
    log(side, peer?.version ?? "", kind, dialect, `${size} KiB`, r.stopped ? "stopped" : `${r.result.cpu.toFixed(0)} ms CPU`);
    if (r.stopped) {
      stoppedAt = size;
      out.set(size, { stopped: true, stopCpu: r.cpu });
    } else out.set(size, r.result);
  }
  return out;
}

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (ms) => (ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);

/** A table cell: the CPU time and the time per KiB, or why there is none. */
function cell(r, size) {
  if (!r) return "—";
  if (r.stopped) return `> ${secs(r.stopCpu)}, stopped`;
  if (r.notRun) return `> ${secs(r.stopCpu)} (not run: stopped at ${r.notRun} KiB)`;
  const mark = r.right === false ? " (call wrong)" : "";
  return `${fmt(r.cpu)} (${(r.cpu / size).toFixed(2)} ms/KiB)${mark}`;
}

const lines = [];
const say = (s = "") => lines.push(s);

say("## JavaScript: the npm package against `@ai-sdk-tool/parser`");
say();
say(
  `\`bench/sections/70-javascript.sh\`: Node ${process.version}, \`ai\` ${aiVersion}, ` +
    `\`@ai-sdk-tool/parser\` ${peers.map((p) => p.version).join(" and ")} (its hermes and qwen3_coder protocols)` +
    (process.env.PEER_NEWEST_NOTE ? `; ${process.env.PEER_NEWEST_NOTE}` : "") +
    ", against the package in `js/` (built by `js/build.sh`" +
    (process.env.JS_MODULE_NOTE ? `; its module, js/${process.env.JS_MODULE_NOTE}` : "") +
    "). " +
    "The input is one call to `write_file` whose `content` argument is 16 to 512 KiB of prose, with a sentence before and after, " +
    "in parts of 4 UTF-16 code units. " +
    `Each figure is the CPU time of the process (\`process.cpuUsage()\`, user + system), per run, the best of ${reps} after a warm-up, ` +
    `a smaller call timed over as many runs as make ${batchKiB} KiB (the peer: one run after a small warm-up), each side in a worker thread of its own. The peer is stopped once it has spent ${limitS} s of CPU time on a run ` +
    `(or ${3 * limitS} s of wall time): "> t, stopped" gives the time it had spent by then, and a larger argument is then not run ` +
    "(its first part is the same input).",
);
say();

// 1. Through wrapLanguageModel.
log("through wrapLanguageModel");
const plumbedSides = [{ label: "identity (the plumbing)", side: "identity" }];
if (haveOurMiddleware) plumbedSides.push({ label: "`actionstreamMiddleware`", side: "ours" });
for (const p of peers) plumbedSides.push({ label: `\`@ai-sdk-tool/parser\` ${p.version}`, side: "peer", peer: p });
const plumbedResults = new Map();
for (const dialect of dialects) {
  for (const s of plumbedSides) plumbedResults.set(`${s.label}/${dialect}`, await series(s.side, "plumbed", dialect, s.peer));
}
say("### Through `wrapLanguageModel`");
say();
say(
  "The model's parts (specification v3) come from `MockLanguageModelV3` as a `ReadableStream`, through " +
    "`wrapLanguageModel` with the side's middleware, and are read to the end. The identity middleware passes each part " +
    "through one `TransformStream`: the cost of the plumbing alone." +
    (haveOurMiddleware ? "" : " (`actionstreamMiddleware` is not in this build of the package: its column is left out.)"),
);
say();
say(`| argument | dialect | ${plumbedSides.map((s) => s.label).join(" | ")} |`);
say(`|---|---|${plumbedSides.map(() => "---|").join("")}`);
for (const size of sizes) {
  for (const dialect of dialects) {
    say(`| ${size} KiB | ${dialect} | ${plumbedSides.map((s) => cell(plumbedResults.get(`${s.label}/${dialect}`).get(size), size)).join(" | ")} |`);
  }
}
say();

// 2. The parser alone.
log("the parser alone");
const rawOurs = new Map();
const rawPeer = new Map();
for (const dialect of dialects) {
  rawOurs.set(dialect, await series("ours", "raw", dialect));
  for (const p of peers) rawPeer.set(`${p.version}/${dialect}`, await series("peer", "raw", dialect, p));
}
say("### The parser alone");
say();
say(
  "No streams: our `Parser` pushed one part at a time (`argumentDeltas` on, the events read), and the peer's stream " +
    "parser's own `transform` called once per part (the peer has no push API; its transformer is taken from the " +
    "`TransformStream` it makes).",
);
say();
say(`| argument | dialect | \`Parser.push\` loop | ${peers.map((p) => `\`@ai-sdk-tool/parser\` ${p.version}: its transform | peer / ours`).join(" | ")} |`);
say(`|---|---|---|${peers.map(() => "---|---|").join("")}`);
for (const size of sizes) {
  for (const dialect of dialects) {
    const o = rawOurs.get(dialect).get(size);
    const cells = peers.map((p) => {
      const r = rawPeer.get(`${p.version}/${dialect}`).get(size);
      let ratio = "—";
      if (o && o.cpu !== undefined) {
        if (r.cpu !== undefined) ratio = `${(r.cpu / o.cpu).toFixed(0)}x`;
        else ratio = `> ${(r.stopCpu / o.cpu).toFixed(0)}x`;
      }
      return `${cell(r, size)} | ${ratio}`;
    });
    say(`| ${size} KiB | ${dialect} | ${cell(o, size)} | ${cells.join(" | ")} |`);
  }
}
say();

// 3. Paced.
log("paced");
const pacedSides = [{ label: "identity (the plumbing)", side: "identity", kind: "plumbed" }];
if (haveOurMiddleware) pacedSides.push({ label: "`actionstreamMiddleware`", side: "ours", kind: "plumbed" });
pacedSides.push({ label: "`Parser.push` loop", side: "ours", kind: "raw" });
for (const p of peers) pacedSides.push({ label: `\`@ai-sdk-tool/parser\` ${p.version}`, side: "peer", kind: "plumbed", peer: p });
const paced = new Map();
for (const s of pacedSides) {
  for (const dialect of dialects) {
    const r = await series(s.side, s.kind, dialect, s.peer, { sizes: [paceKiB], pace, reps: 1 });
    paced.set(`${s.label}/${dialect}`, r.get(paceKiB));
  }
}
const pacedCell = (r) => {
  if (r.stopped) return `> ${fmt(r.stopCpu / paceKiB)}/KiB, stopped`;
  return `${(r.cpu / paceKiB).toFixed(2)} ms/KiB (${fmt(r.wall)} wall)`;
};
say(`### Paced: ${pace.parts} parts every ${pace.ms} ms`);
say();
say(
  `The ${paceKiB} KiB call released at a model's pace (${pace.parts} parts of 4 characters every ${pace.ms} ms, ` +
    `${Math.ceil((paceKiB * 1024) / 4 / pace.parts) * pace.ms} ms in all): CPU time per KiB of the call, and the wall time ` +
    "(longer than the pace's when a side cannot keep up).",
);
say();
say(`| side | ${dialects.join(" | ")} |`);
say(`|---|${dialects.map(() => "---|").join("")}`);
for (const s of pacedSides) say(`| ${s.label} | ${dialects.map((d) => pacedCell(paced.get(`${s.label}/${d}`))).join(" | ")} |`);
say();

// 4. tool-input-delta parts.
say("### `tool-input-delta` parts, and when the first comes");
say();
say(
  "The 16 KiB call (4-character parts): how many `tool-input-delta` parts each side emits, the part (0-based) in which " +
    "the first comes, and the part that holds the end of the closer `</tool_call>`. Our `Parser` gives " +
    "`arguments_delta` events, one per push, which the middleware merges into pieces of at least 1 KiB.",
);
say();
say("| side | dialect | deltas | first delta in part | closer in part | parts |");
say("|---|---|---|---|---|---|");
const deltaRows = [];
if (haveOurMiddleware) deltaRows.push(["`actionstreamMiddleware`", (d) => plumbedResults.get(`\`actionstreamMiddleware\`/${d}`)]);
deltaRows.push(["`Parser` (`arguments_delta` events)", (d) => rawOurs.get(d)]);
for (const p of peers) deltaRows.push([`\`@ai-sdk-tool/parser\` ${p.version}`, (d) => rawPeer.get(`${p.version}/${d}`)]);
for (const [label, get] of deltaRows) {
  for (const d of dialects) {
    const r = get(d).get(16);
    if (r.cpu === undefined) say(`| ${label} | ${d} | stopped | | | |`);
    else say(`| ${label} | ${d} | ${r.deltas} | ${r.firstDelta < 0 ? "none" : r.firstDelta} | ${r.closerPart} | ${r.parts} |`);
  }
}
say();

// 5. Calls lost with the closer inside an argument.
log("losses");
const lossSides = [{ label: "`Parser`", side: "ours", kind: "raw" }];
if (haveOurMiddleware) lossSides.push({ label: "`actionstreamMiddleware`", side: "ours", kind: "plumbed" });
for (const p of peers) lossSides.push({ label: `\`@ai-sdk-tool/parser\` ${p.version}`, side: "peer", kind: "plumbed", peer: p });
say("### Calls lost with `</tool_call>` inside an argument");
say();
say(
  `Each input is one call whose \`content\` argument holds the closer literally, prose before it and "The file is written." after, ` +
    `read whole and in random parts of 1 to 16 characters (seeds 1 to ${seeds}, the generator in \`bench/js/inputs.mjs\`). ` +
    "A chunking is wrong when its calls differ from those in the text; a call is lost when it is missing, changed when its " +
    "arguments differ.",
);
say();
say("| side | dialect | argument | read whole | wrong chunkings | calls lost | calls changed | prose after lost |");
say("|---|---|---|---|---|---|---|---|");
for (const s of lossSides) {
  for (const dialect of dialects) {
    const r = await measure({ task: "losses", side: s.side, kind: s.kind, dialect, seeds, peerEntry: s.peer?.entry ?? null }, 120);
    if (r.stopped) {
      say(`| ${s.label} | ${dialect} | | stopped after 120 s | | | | |`);
      continue;
    }
    for (const t of r.result) {
      const arg = "`" + JSON.stringify(t.content).replaceAll("|", "\\|") + "`";
      say(
        `| ${s.label} | ${dialect} | ${arg} | ${t.wholeRight ? "right" : "wrong"} | ${t.wrong} of ${seeds} | ${t.lost} | ${t.changed} | ${t.proseLost} |`,
      );
    }
  }
}
say();

// 6. Verdicts.
say("### Targets");
say();
const perKiB = (r, size) => (r && r.cpu !== undefined ? r.cpu / size : null);
const linear = [];
const linearSeries = [["`Parser.push` loop", (d) => rawOurs.get(d)]];
if (haveOurMiddleware) linearSeries.push(["`actionstreamMiddleware`", (d) => plumbedResults.get(`\`actionstreamMiddleware\`/${d}`)]);
let linearMet = true;
for (const [label, get] of linearSeries) {
  for (const d of dialects) {
    const a = perKiB(get(d).get(16), 16);
    const b = perKiB(get(d).get(512), 512);
    if (a === null || b === null) {
      linear.push(`${label} ${d}: not measured`);
      linearMet = false;
    } else {
      linear.push(`${label} ${d} ${(b / a).toFixed(2)}`);
      if (b / a > 1.5) linearMet = false;
    }
  }
}
say(`- Linear (ms per KiB at 512 KiB over that at 16 KiB, at most 1.5): ${linear.join("; ")}: **${linearMet ? "met" : "not met"}**.`);
for (const p of peers) {
  const parts = [];
  // true, false, or null: the peer was stopped before the bound reached 10x.
  let met = true;
  for (const d of dialects) {
    const o = rawOurs.get(d).get(512);
    const r = rawPeer.get(`${p.version}/${d}`).get(512);
    if (!o || o.cpu === undefined) {
      parts.push(`${d}: ours not measured`);
      met = false;
    } else if (r.cpu !== undefined) {
      parts.push(`${d} ${fmt(o.cpu)} against ${fmt(r.cpu)}, ${(r.cpu / o.cpu).toFixed(0)}x`);
      if (r.cpu / o.cpu < 10) met = false;
    } else if (r.stopCpu !== undefined) {
      // A lower bound: the CPU time it had spent when it was stopped (at
      // this size, or a smaller one whose input is this one's first part).
      const bound = r.stopCpu / o.cpu;
      parts.push(`${d} ${fmt(o.cpu)} against more than ${secs(r.stopCpu)} (stopped), > ${bound.toFixed(0)}x`);
      if (bound < 10 && met) met = null;
    } else {
      parts.push(`${d}: the peer not run`);
      met = false;
    }
  }
  say(
    `- At least 10x \`@ai-sdk-tool/parser\` ${p.version} at 512 KiB, the parser alone: ${parts.join("; ")}: ` +
      (met === null ? `**undecided** (the peer was stopped before 10x; a longer limit decides)` : `**${met ? "met" : "not met"}**`) +
      ".",
  );
}
console.log(lines.join("\n"));
