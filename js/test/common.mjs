// Shared by the tests: the cases, the CLI's events, merging, chunkings.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The CLI the events are compared with (built by `cargo test` / `cargo build`). */
export const cli = process.env.ACTIONSTREAM_CLI ?? join(root, "target", "debug", "actionstream");

export function cliExists() {
  return existsSync(cli);
}

/** Every response of examples/responses/ and tests/data/dialects/, with its dialect. */
export function cases() {
  const out = [];
  const responses = join(root, "examples", "responses");
  for (const f of readdirSync(responses).sort()) {
    if (f.endsWith(".md") && f !== "README.md") out.push({ file: join(responses, f), dialect: null });
  }
  for (const f of readdirSync(join(responses, "dialects")).sort()) {
    if (f.endsWith(".txt")) {
      out.push({ file: join(responses, "dialects", f), dialect: f.slice(0, -4) });
    }
  }
  const data = join(root, "tests", "data", "dialects");
  for (const d of readdirSync(data, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(join(data, d.name)).sort()) {
      if (f.endsWith(".txt")) out.push({ file: join(data, d.name, f), dialect: d.name });
    }
  }
  return out;
}

/** The CLI's events of a case (its JSON lines), merged. */
export function cliEvents(c, extra = []) {
  const args = ["parse", ...extra, c.file];
  if (c.dialect) args.push("--dialect", c.dialect);
  const out = execFileSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 28 });
  return merge(out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)));
}

/** Merges adjacent narrative, adjacent reasoning and adjacent deltas of one action. */
export function merge(events) {
  const out = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if ((e.event === "narrative" || e.event === "reasoning") && e.text === "") continue;
    if (last && last.event === e.event) {
      if (e.event === "narrative" || e.event === "reasoning") {
        out[out.length - 1] = { ...last, text: last.text + e.text };
        continue;
      }
      if (e.event === "arguments_delta" && last.id === e.id) {
        out[out.length - 1] = { ...last, json: last.json + e.json };
        continue;
      }
      if (e.event === "action_delta" && last.id === e.id) {
        out[out.length - 1] = { ...last, text: last.text + e.text };
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

/** splitmix-style seeded generator, for reproducible random chunkings. */
export function rng(seed) {
  let s = BigInt(seed) + 0x9e3779b97f4a7c15n;
  return (n) => {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    z ^= z >> 31n;
    return Number(z % BigInt(n));
  };
}

/** Cuts `s` (a string or a Uint8Array) at `cuts` (sorted offsets). */
export function cut(s, cuts) {
  const out = [];
  let at = 0;
  for (const c of cuts) {
    out.push(s.slice(at, c));
    at = c;
  }
  out.push(s.slice(at));
  return out;
}

/** Fixed-size pieces. */
export function grid(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** Random pieces of 1..=max units. */
export function random(s, seed, max) {
  const next = rng(seed);
  const out = [];
  let at = 0;
  while (at < s.length) {
    const n = 1 + next(max);
    out.push(s.slice(at, at + n));
    at += n;
  }
  return out;
}

export function read(file) {
  return readFileSync(file);
}

/**
 * A test that needs an external client (an npm package, a browser) skips
 * with `reason` when it is missing, and fails instead when
 * ACTIONSTREAM_REQUIRE_CLIENTS is set and not empty (as in CI), as the
 * Rust tests do.
 */
export function requireClients(reason) {
  if (process.env.ACTIONSTREAM_REQUIRE_CLIENTS) throw new Error(`${reason}, and ACTIONSTREAM_REQUIRE_CLIENTS is set`);
  return reason;
}
