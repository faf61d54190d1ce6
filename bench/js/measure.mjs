// One measurement of the JavaScript bench, in a worker thread of its own
// (bench.mjs ends the worker when it runs past its time limit, which is
// how a quadratic peer is stopped). `workerData` names it:
//   {task: "speed", side, kind: "plumbed" | "raw", dialect, size, reps, warmKiB, batchKiB, pace?, peerEntry?}
//   {task: "losses", side, kind, dialect, seeds, peerEntry?}
// and the result is posted back as one object (a speed measurement posts
// `{started: true}` first, when the timed runs begin).
import { parentPort, workerData } from "node:worker_threads";
import { plumbed, raw, usePeer } from "./sides.mjs";
import { oneCall, closerInside, grid, randomParts } from "./inputs.mjs";

const job = workerData;
if (job.peerEntry) usePeer(await import(job.peerEntry));
const run = job.kind === "raw" ? raw : plumbed;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const cpuMs = (usage) => (usage.user + usage.system) / 1000;

/** The index of the part holding the last character of the last closer. */
function closerPart(parts, text) {
  const end = text.lastIndexOf("</tool_call>") + "</tool_call>".length - 1;
  let offset = 0;
  for (let i = 0; i < parts.length; i++) {
    offset += parts[i].length;
    if (offset > end) return i;
  }
  return parts.length - 1;
}

async function speed() {
  const input = oneCall(job.dialect, job.size);
  const parts = grid(input.text, 4);
  // Warm-up: the JIT tiers of the streams, of the glue and of the
  // WebAssembly. The same input again until `job.warmKiB` KiB have gone
  // through (so a small input gets as warm as a large one), or for the peer,
  // the slow side, a 4 KiB call four times. (No forced collection between
  // runs: a full collection ages compiled code, and the next run pays to
  // compile it again.)
  if (job.side === "peer") {
    const small = grid(oneCall(job.dialect, 4096).text, 4);
    for (let i = 0; i < 4; i++) await run(job.side, job.dialect, small);
  } else {
    const times = Math.max(1, Math.ceil(job.warmKiB / (job.size / 1024)));
    for (let i = 0; i < times; i++) await run(job.side, job.dialect, parts);
  }
  // A small call is timed over as many runs as make `job.batchKiB` KiB,
  // so that every size's figure covers the same work (a busy spell or a
  // collection weighs on each alike); the figure is per run.
  const batch = job.side === "peer" || job.pace ? 1 : Math.max(1, Math.round(job.batchKiB / (job.size / 1024)));
  let best = null;
  parentPort.postMessage({ started: true });
  for (let r = 0; r < job.reps; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let out;
    for (let b = 0; b < batch; b++) out = await run(job.side, job.dialect, parts, job.pace);
    const wall = (performance.now() - t0) / batch;
    const cpu = cpuMs(process.cpuUsage(cpu0)) / batch;
    if (best === null || cpu < best.cpu) {
      best = {
        cpu,
        wall,
        right: job.side === "identity" ? null : same(out.calls, input.calls),
        deltas: out.deltas,
        firstDelta: out.firstDelta,
        closerPart: closerPart(parts, input.text),
        parts: parts.length,
      };
    }
  }
  return best;
}

async function losses() {
  const results = [];
  for (const input of closerInside(job.dialect)) {
    const whole = await run(job.side, job.dialect, [input.text]);
    const tally = { content: input.calls[0].input.content, wrong: 0, lost: 0, changed: 0, proseLost: 0 };
    tally.wholeRight = same(whole.calls, input.calls);
    for (let seed = 1; seed <= job.seeds; seed++) {
      const out = await run(job.side, job.dialect, randomParts(input.text, seed));
      if (!same(out.calls, input.calls)) tally.wrong++;
      tally.lost += Math.max(0, input.calls.length - out.calls.length);
      tally.changed += out.calls.filter((c, i) => i < input.calls.length && !same(c, input.calls[i])).length;
      if (!out.text.endsWith("The file is written.")) tally.proseLost++;
    }
    results.push(tally);
  }
  return results;
}

const result = job.task === "speed" ? await speed() : await losses();
parentPort.postMessage(result);
