// The live page of `actionstream serve` in headless Chromium, for
// tests/serve_clients.rs.
//
// Usage: node live_page.mjs GATEWAY_URL MODEL TOOLS_JSON_FILE SCREENSHOT
//
// Submits a prompt, then prints one JSON line per stage, flushed at once:
// {"stage": "held", ...} when the page shows part of the narrative and a
// card whose arguments are streaming (the upstream is held there until the
// test has read this line), then {"stage": "done", ...} with every card's
// state when the answer has ended, after the screenshot is saved.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [url, model, toolsFile, screenshot] = process.argv.slice(2);
const say = (fields) => process.stdout.write(JSON.stringify(fields) + "\n");

const profile = mkdtempSync(join(tmpdir(), "actionstream-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 900 },
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
try {
  const page = context.pages()[0] || (await context.newPage());
  const failures = [];
  page.on("pageerror", (e) => failures.push(String(e)));
  page.on("requestfailed", (r) => failures.push("request failed: " + r.url()));
  await page.goto(url + "/?model=" + encodeURIComponent(model));
  await page.locator("#tools").evaluate((el, text) => { el.value = text; }, readFileSync(toolsFile, "utf8"));
  await page.fill("#prompt", "Write the report to report.md, then check the weather in Dallas.");
  await page.click("#send");

  // Mid-stream: the upstream holds inside the first call's long parameter.
  await page.waitForFunction(() => {
    const card = document.querySelector(".card[data-state=streaming] .card-args");
    // Held at the start of "line 150": all before it is on the card.
    return card && /line 149:[^]*- $/.test(card.textContent) &&
      document.querySelector("#narrative strong") !== null;
  }, null, { timeout: 30000 });
  const held = await page.evaluate(() => ({
    narrative: document.querySelector("#narrative").innerText,
    narrativeHtml: document.querySelector("#narrative").innerHTML,
    reasoning: document.querySelector("#reasoning").textContent,
    reasoningShown: !document.querySelector("#reasoning-panel").hidden,
    status: document.querySelector("#status").dataset.state,
    cards: [...document.querySelectorAll(".card")].map((c) => ({
      state: c.dataset.state,
      name: c.querySelector(".card-name").textContent,
      args: c.querySelector(".card-args").textContent.length,
    })),
  }));
  say({ stage: "held", ...held });

  await page.waitForFunction(() => document.querySelector("#status").dataset.state === "done",
    null, { timeout: 30000 });
  // Let the last frame render, then keep the picture.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  await page.screenshot({ path: screenshot, fullPage: true });
  const done = await page.evaluate(() => ({
    narrative: document.querySelector("#narrative").innerText,
    narrativeHtml: document.querySelector("#narrative").innerHTML,
    reasoning: document.querySelector("#reasoning").textContent,
    status: document.querySelector("#status").textContent,
    cards: [...document.querySelectorAll(".card")].map((c) => ({
      state: c.dataset.state,
      name: c.querySelector(".card-name").textContent,
      args: c.querySelector(".card-args").textContent,
      errors: [...c.querySelectorAll(".card-errors li")].map((li) => li.textContent),
    })),
  }));
  say({ stage: "done", failures, ...done });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
