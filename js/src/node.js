// The Node entry: the WebAssembly module is read and instantiated on
// import, so `Parser` is ready at once.
import { readFileSync } from "node:fs";
import { initSync } from "../pkg/actionstream_wasm.js";

initSync({ module: readFileSync(new URL("../pkg/actionstream_wasm_bg.wasm", import.meta.url)) });

export { Parser } from "./parser.js";
export { actionstreamMiddleware } from "./middleware.js";

/** Already done on import; here so that code written for `./edge` runs. */
export async function init() {}
