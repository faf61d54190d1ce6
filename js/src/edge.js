// The entry for browsers and edge runtimes: call `init` once before making
// a `Parser`, with a compiled `WebAssembly.Module` (edge runtimes import the
// .wasm file as one), or a URL / Response of the .wasm file (browsers); with
// nothing, the .wasm next to this package's glue is fetched.
import wasmInit, { initSync } from "../pkg/actionstream_wasm.js";

export { Parser } from "./parser.js";
export { actionstreamMiddleware } from "./middleware.js";

/**
 * @param {WebAssembly.Module | URL | string | Response | BufferSource} [module]
 */
export async function init(module) {
  if (module instanceof WebAssembly.Module) {
    initSync({ module });
    return;
  }
  await wasmInit(module === undefined ? undefined : { module_or_path: module });
}
