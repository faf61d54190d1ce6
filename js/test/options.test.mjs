// Bad options throw with the CLI's message (and Python's): the values are
// checked in one place, the library's `ParserSettings::validate`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { Parser } from "../src/node.js";
import { cli, cliExists, root } from "./common.mjs";

function cliMessage(...flags) {
  try {
    execFileSync(cli, ["parse", ...flags, join(root, "examples", "responses", "facilitator.md")], {
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
  } catch (e) {
    assert.equal(e.status, 2);
    return e.stderr.trim().replace(/^actionstream: /, "");
  }
  assert.fail(`the CLI took ${flags.join(" ")}`);
}

function thrown(options) {
  try {
    new Parser(options);
  } catch (e) {
    assert.ok(e instanceof Error);
    return e.message;
  }
  assert.fail(`no error for ${JSON.stringify(options)}`);
}

test("bad values are refused with the CLI's message", { skip: !cliExists() && "the CLI is not built" }, () => {
  for (const [options, flags] of [
    [{ maxBlockBytes: 0 }, ["--max-block-bytes", "0"]],
    [{ maxBlockBytes: 15 }, ["--max-block-bytes", "15"]],
    [{ dialects: ["qwen"] }, ["--dialect", "qwen"]],
    [{ model: "acme/unknown-7b" }, ["--model", "acme/unknown-7b"]],
    [{ xmlTags: [""] }, ["--xml-tag", ""]],
    [{ fenceTags: ["my plan"] }, ["--fence-tag", "my plan"]],
    [{ discriminators: [""] }, ["--discriminator", ""]],
  ]) {
    assert.equal(thrown(options), cliMessage(...flags), JSON.stringify(options));
  }
  assert.equal(thrown({ maxBlockBytes: 0 }), "max_block_bytes must be at least 16 bytes, not 0");
});

test("wrong types and unknown options name the option", () => {
  assert.equal(thrown({ strict: "yes" }), "option 'strict': expected a boolean, found a string");
  assert.match(thrown({ maxBlockBytes: -1 }), /^option 'maxBlockBytes'/);
  assert.match(thrown({ dialect: ["hermes"] }), /^unknown option 'dialect': the options are dialects, /);
  assert.throws(() => new Parser().push(5), TypeError);
  // Defaults: nothing, null, undefined values.
  new Parser().free();
  new Parser({ dialects: null, maxBlockBytes: undefined }).free();
});
