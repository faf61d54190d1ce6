// The package in a real browser: headless Chromium (Debian's `chromium`,
// driven by `playwright-core`) opens a page from a static server on
// 127.0.0.1 that this test starts. The page imports the package's browser
// entry by its name (an import map), `init()`s it (the .wasm fetched next to
// the glue), reads responses streamed by the server in small pieces, and
// parses them as bytes (each piece as it arrives, in pieces of 7 bytes at
// most) and as strings, and through `actionstreamMiddleware`
// over a stream of text parts. The events equal the CLI's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { cliEvents, cliExists, merge, requireClients, root } from "./common.mjs";

const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const js = join(root, "js");

const chromium = await import("playwright-core").then((m) => m.chromium, () => null);
const why =
  chromium === null
    ? requireClients("playwright-core is not installed (cd js && npm ci)")
    : !existsSync(chromiumPath) && requireClients(`no Chromium at ${chromiumPath} (apt-get install chromium)`);

const CASES = [
  { file: join(root, "examples", "responses", "release_plan.md"), dialect: null },
  { file: join(root, "examples", "responses", "dialects", "hermes.txt"), dialect: "hermes" },
  { file: join(root, "examples", "responses", "dialects", "qwen3_coder.txt"), dialect: "qwen3_coder" },
  { file: join(root, "examples", "responses", "dialects", "gpt_oss.txt"), dialect: "gpt_oss" },
];

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>actionstream in the browser</title>
<script type="importmap">{"imports": {"actionstream": "/src/edge.js"}}</script>
<script type="module">
import { init, Parser, actionstreamMiddleware } from "actionstream";

/** The response at \`url\`, read as the network delivers it. */
async function pieces(url) {
  const response = await fetch(url);
  const out = [];
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function parse(url, options) {
  // Bytes as they arrive (a piece may end inside a UTF-8 character).
  const bytes = new Parser(options);
  const fromBytes = [];
  const received = await pieces(url);
  // The network may join the server's pieces: each is pushed in pieces of 7 bytes at most.
  for (const piece of received) {
    for (let i = 0; i < piece.length; i += 7) fromBytes.push(...bytes.push(piece.subarray(i, i + 7)));
  }
  fromBytes.push(...bytes.finish());
  bytes.free();
  // Strings of 3 UTF-16 units (a piece may end inside a surrogate pair).
  const text = new TextDecoder().decode(await (await fetch(url)).arrayBuffer());
  const strings = new Parser(options);
  const fromStrings = [];
  for (let i = 0; i < text.length; i += 3) fromStrings.push(...strings.push(text.slice(i, i + 3)));
  fromStrings.push(...strings.finish());
  strings.free();
  // The middleware over a stream of text parts, as a model would send them.
  const middleware = actionstreamMiddleware(options);
  const { stream } = await middleware.wrapStream({
    model: { specificationVersion: "v2", modelId: "page" },
    params: {},
    doGenerate: async () => { throw new Error("not used"); },
    doStream: async () => ({
      stream: new ReadableStream({
        start(c) {
          for (let i = 0; i < text.length; i += 5) c.enqueue({ type: "text-delta", id: "t", delta: text.slice(i, i + 5) });
          c.enqueue({ type: "finish", finishReason: "stop", usage: {} });
          c.close();
        },
      }),
    }),
  });
  const parts = [];
  for (const reader = stream.getReader(); ; ) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return { pieces: received.length, fromBytes, fromStrings, parts };
}

window.parseAll = async (cases) => {
  await init();
  const out = [];
  for (const c of cases) out.push(await parse("/response?file=" + encodeURIComponent(c.file), c.dialect ? { dialects: [c.dialect] } : {}));
  return out;
};
window.ready = true;
</script>
`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

/** Serves the page, js/src and js/pkg, and responses in 7-byte pieces. */
function serve() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(PAGE);
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === "/response") {
      const file = url.searchParams.get("file");
      if (!CASES.some((c) => c.file === file)) {
        res.writeHead(404).end();
        return;
      }
      const body = readFileSync(file);
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < body.length; i += 7) {
        res.write(body.subarray(i, i + 7));
        if (i % 70 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      res.end();
      return;
    }
    const path = normalize(url.pathname).replace(/^\/+/, "");
    if (!/^(src|pkg)\//.test(path) || !existsSync(join(js, path))) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(join(js, path)));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** What the middleware's parts say, as events: text, reasoning, calls. */
function fromParts(parts) {
  const out = { text: "", reasoning: "", calls: [] };
  for (const p of parts) {
    if (p.type === "text-delta") out.text += p.delta;
    else if (p.type === "reasoning-delta") out.reasoning += p.delta;
    else if (p.type === "tool-call") out.calls.push({ name: p.toolName, arguments: JSON.parse(p.input) });
  }
  return out;
}

test("headless Chromium parses streamed responses with the browser entry, as the CLI does", { skip: why || (!cliExists() && "the CLI is not built") }, async () => {
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), "actionstream-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const failures = [];
    page.on("pageerror", (e) => failures.push(String(e)));
    page.on("console", (m) => m.type() === "error" && failures.push(m.text()));
    page.on("response", (r) => r.status() >= 400 && failures.push(`${r.status()} for ${r.url()}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
    const results = await page.evaluate((cases) => window.parseAll(cases), CASES);
    assert.deepEqual(failures, []);
    const pieces = results.map((r) => r.pieces);
    assert.ok(pieces.some((n) => n > 1), `the responses streamed: ${pieces} pieces`);
    for (const [i, c] of CASES.entries()) {
      const want = cliEvents(c);
      const got = results[i];
      assert.deepEqual(merge(got.fromBytes), want, `${c.file}: bytes`);
      assert.deepEqual(merge(got.fromStrings), want, `${c.file}: strings`);
      const calls = want.filter((e) => e.event === "action_complete").map((e) => ({ name: e.name, arguments: e.arguments }));
      const parts = fromParts(got.parts);
      assert.deepEqual(parts.calls, calls, `${c.file}: the middleware's calls`);
      assert.equal(parts.reasoning, want.filter((e) => e.event === "reasoning").map((e) => e.text).join(""), `${c.file}: reasoning`);
      assert.ok(calls.length > 0, `${c.file} has calls`);
    }
  } finally {
    await context?.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
