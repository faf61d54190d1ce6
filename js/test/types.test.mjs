// The package's TypeScript types (src/index.d.ts) compile in strict mode
// and fit the AI SDK's middleware types of `ai` 5 and 6: `tsc --noEmit` of
// test/types/check.ts (typescript is a js/ devDependency).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { requireClients } from "./common.mjs";

const js = fileURLToPath(new URL("..", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
const missing = !existsSync(tsc) && requireClients("typescript is not installed (cd js && npm ci)");

test("the types compile against ai 5 and 6", { skip: missing }, () => {
  const args = [tsc, "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "test/types/check.ts"];
  try {
    execFileSync(process.execPath, args, { cwd: js, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout}${e.stderr}`);
  }
});
