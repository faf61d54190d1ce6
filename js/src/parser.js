// The `Parser` of the package, over the WebAssembly core (`Core`).
//
// A JavaScript string is UTF-16: a chunk may end between the two halves of
// a surrogate pair (an emoji cut by the network or a tokenizer). Passed on
// as it is, the lone half would become U+FFFD on its way into WebAssembly,
// and the events would depend on where the chunks were cut. So a high
// surrogate at the end of a pushed string is kept and goes in front of the
// next push. Bytes (`Uint8Array`) go to the core's own UTF-8 carry.
import { Core } from "../pkg/actionstream_wasm.js";

/** @param {string} json */
const parse = (json) => JSON.parse(json);

export class Parser {
  /** @param {object} [options] */
  constructor(options = {}) {
    this.core = new Core(JSON.stringify(options ?? {}));
    this.high = "";
  }

  /**
   * Pushes the next piece of the response.
   * @param {string | Uint8Array} chunk
   * @returns {object[]} the events it made certain
   */
  push(chunk) {
    if (this.core === null) throw new Error("push after free()");
    if (typeof chunk === "string") {
      let text = this.high + chunk;
      this.high = "";
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.high = text.slice(-1);
        text = text.slice(0, -1);
      }
      return text === "" ? [] : parse(this.core.push_str(text));
    }
    if (chunk instanceof Uint8Array) {
      const before = this.flushHigh();
      return before.concat(parse(this.core.push_bytes(chunk)));
    }
    throw new TypeError(
      `push takes a string or a Uint8Array, not ${chunk === null ? "null" : typeof chunk}`,
    );
  }

  /**
   * Ends the response.
   * @returns {object[]} the last events
   */
  finish() {
    if (this.core === null) throw new Error("finish after free()");
    const before = this.flushHigh();
    return before.concat(parse(this.core.finish()));
  }

  /** Frees the WebAssembly memory the parser holds. */
  free() {
    if (this.core !== null) {
      this.core.free();
      this.core = null;
    }
  }

  /** A high surrogate that no low one followed goes in alone (U+FFFD). */
  flushHigh() {
    if (this.high === "") return [];
    const text = this.high;
    this.high = "";
    return parse(this.core.push_str(text));
  }
}
