// `actionstreamMiddleware`: the parser as a language model middleware of the
// AI SDK (`wrapLanguageModel` of the `ai` package, language model
// specification v2 for `ai` 5 and v3 for `ai` 6). A plain object: the
// package depends on nothing of the AI SDK, it only reads and writes the
// specification's stream parts and results.
//
// The wrapped model's text goes through a `Parser`; its events come out as
// the specification's parts (see `Parts` below). What decides when a call
// goes out mirrors the crate's protocol encoder (src/protocol/mod.rs):
// - a call goes out with its first argument fragment, never on its name
//   alone: a dialect's call as its arguments begin, a fence's or a tag's call
//   when it completes;
// - an action that ends invalid before its call went out is text (its
//   block's raw text, once per block);
// - a call that went out and then ends invalid is failed the AI SDK's way: a
//   `tool-call` whose `input` is the block's raw text, which the AI SDK
//   reports as an invalid call (`tool-error`, `tool-input-error` in the UI);
// - argument fragments are merged into pieces of at least `DELTA_UNITS`
//   (the AI SDK's UI client parses the whole input so far at every delta);
// - the finish reason is `tool-calls` when a call completed.
import { Parser } from "./parser.js";

/** A `tool-input-delta` goes out once this many UTF-16 units (≥ 1 KiB of UTF-8) are pending. */
export const DELTA_UNITS = 1024;

let streams = 0;

/** Ids unique to one response: `as<time><n>-<kind>-<i>`. */
function idBase() {
  streams += 1;
  return `as${Date.now().toString(36)}${streams.toString(36)}`;
}

/**
 * The parser options of one request: the middleware's, with argument
 * deltas on, the request's function tools when the options name none, and
 * the dialect of the model id's family when the options name neither
 * dialects nor a model (the default dialects when the id names no family).
 */
function requestOptions(options, params, model, families) {
  const out = { ...options, argumentDeltas: true };
  if (out.tools == null && Array.isArray(params?.tools)) {
    const functions = params.tools.filter((t) => t && t.type === "function");
    if (functions.length > 0) out.tools = functions;
  }
  const id = model?.modelId;
  if (out.dialects == null && out.model == null && typeof id === "string") {
    if (!families.has(id)) {
      try {
        new Parser({ model: id }).free();
        families.set(id, true);
      } catch {
        families.set(id, false);
      }
    }
    if (families.get(id)) out.model = id;
  }
  return out;
}

/** The finish reason `tool-calls` in the model's specification version. */
function toolCalls(version, reason) {
  if (version === "v3") {
    const raw = reason && typeof reason === "object" ? reason.raw : reason;
    return { unified: "tool-calls", raw };
  }
  return "tool-calls";
}

/**
 * Turns a parser's events into the specification's parts, in order.
 * `emit(part)` receives each part; text and reasoning parts are opened and
 * closed around their deltas (a part ends when something else begins).
 */
class Parts {
  constructor(emit) {
    this.emit = emit;
    this.base = idBase();
    /** The open text or reasoning part: `{ kind, id }`. */
    this.open = null;
    this.parts = 0;
    this.calls = 0;
    /** Action id → `{ name, streams, callId, pending, sent }`. */
    this.actions = new Map();
    this.lastRaw = null;
    this.completed = false;
  }

  close() {
    if (this.open !== null) {
      this.emit({ type: `${this.open.kind}-end`, id: this.open.id });
      this.open = null;
    }
  }

  write(kind, text) {
    if (text === "") return;
    if (this.open !== null && this.open.kind !== kind) this.close();
    if (this.open === null) {
      this.open = { kind, id: `${this.base}-${kind}-${this.parts++}` };
      this.emit({ type: `${kind}-start`, id: this.open.id });
    }
    this.emit({ type: `${kind}-delta`, id: this.open.id, delta: text });
  }

  goOut(state, name) {
    this.close();
    state.callId = `${this.base}-call-${this.calls++}`;
    state.name = name;
    this.emit({ type: "tool-input-start", id: state.callId, toolName: name });
  }

  /** Sends a call's pending fragment. */
  flush(state) {
    if (state.pending !== "") {
      this.emit({ type: "tool-input-delta", id: state.callId, delta: state.pending });
      state.sent += state.pending;
      state.pending = "";
    }
  }

  /** @param {object[]} events the parser's events */
  events(events) {
    for (const e of events) this.event(e);
  }

  event(e) {
    switch (e.event) {
      case "narrative":
        this.write("text", e.text);
        break;
      case "reasoning":
        this.write("reasoning", e.text);
        break;
      case "action_started":
        this.actions.set(e.id, {
          name: e.name,
          streams: e.syntax === "dialect" || e.syntax === "native",
          callId: null,
          pending: "",
          sent: "",
        });
        break;
      case "arguments_delta": {
        const state = this.actions.get(e.id);
        if (state === undefined || e.json === "") break;
        if (state.callId === null && state.streams && state.name != null) this.goOut(state, state.name);
        // Fragments of a call not out (a fence's or a tag's, or one with no
        // name yet) are dropped: its whole arguments go out at completion.
        if (state.callId !== null) {
          state.pending += e.json;
          if (state.pending.length >= DELTA_UNITS) this.flush(state);
        }
        break;
      }
      case "action_complete": {
        const state = this.actions.get(e.id) ?? { callId: null, pending: "", sent: "" };
        this.actions.delete(e.id);
        const input = JSON.stringify(e.arguments);
        if (state.callId === null) {
          this.goOut(state, e.name);
          state.pending = input;
        }
        this.flush(state);
        this.emit({ type: "tool-input-end", id: state.callId });
        this.emit({ type: "tool-call", toolCallId: state.callId, toolName: e.name, input });
        this.completed = true;
        break;
      }
      case "action_invalid": {
        const state = this.actions.get(e.id);
        this.actions.delete(e.id);
        if (state !== undefined && state.callId !== null) {
          this.fail(state, e.raw);
          break;
        }
        const repeated = e.span != null && this.lastRaw != null && e.span[0] === this.lastRaw[0] && e.span[1] === this.lastRaw[1];
        if (!repeated) this.write("text", e.raw);
        this.lastRaw = e.span;
        break;
      }
      default:
        break;
    }
  }

  /** A call that went out ends invalid: a `tool-call` whose input is not its arguments. */
  fail(state, raw) {
    this.flush(state);
    this.emit({ type: "tool-input-end", id: state.callId });
    this.emit({ type: "tool-call", toolCallId: state.callId, toolName: state.name, input: raw !== "" ? raw : state.sent });
  }

  /** The end: open parts close, calls still open fail. */
  end() {
    this.close();
    for (const state of this.actions.values()) {
      if (state.callId !== null) this.fail(state, "");
    }
    this.actions.clear();
  }
}

/**
 * The middleware. `options` are the `Parser`'s (see `ParserOptions`);
 * bad ones throw here.
 * @param {object} [options]
 */
export function actionstreamMiddleware(options = {}) {
  const settings = { ...(options ?? {}) };
  // Refused now, not at the first request.
  new Parser({ ...settings, argumentDeltas: true }).free();
  /** Model id → whether it names a family (its dialects). */
  const families = new Map();

  return {
    specificationVersion: "v3",
    middlewareVersion: "v2",

    async wrapStream({ doStream, params, model }) {
      const version = model?.specificationVersion === "v3" ? "v3" : "v2";
      const parser = new Parser(requestOptions(settings, params, model, families));
      let result;
      try {
        result = await doStream();
      } catch (e) {
        parser.free();
        throw e;
      }
      let parts;
      let finished = false;
      const end = () => {
        if (finished) return;
        finished = true;
        try {
          parts.events(parser.finish());
          parts.end();
        } finally {
          parser.free();
        }
      };
      const stream = result.stream.pipeThrough(
        new TransformStream({
          start(controller) {
            parts = new Parts((part) => controller.enqueue(part));
          },
          transform(part, controller) {
            if (finished) {
              // Past the model's `finish` (no model sends more): as it is.
              controller.enqueue(part);
              return;
            }
            switch (part?.type) {
              case "text-start":
              case "text-end":
                break;
              case "text-delta":
                parts.events(parser.push(part.delta ?? ""));
                break;
              case "finish":
                end();
                controller.enqueue(
                  parts.completed ? { ...part, finishReason: toolCalls(version, part.finishReason) } : part,
                );
                break;
              case "tool-call":
                // A provider's native call goes through as it is.
                parts.close();
                controller.enqueue(part);
                break;
              default:
                controller.enqueue(part);
            }
          },
          flush() {
            end();
          },
          // A reader that stops early (where the runtime tells the
          // transformer so): the parser's memory is freed all the same.
          cancel() {
            if (!finished) {
              finished = true;
              parser.free();
            }
          },
        }),
      );
      return { ...result, stream };
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const version = model?.specificationVersion === "v3" ? "v3" : "v2";
      const parser = new Parser(requestOptions(settings, params, model, families));
      let result;
      try {
        result = await doGenerate();
      } catch (e) {
        parser.free();
        throw e;
      }
      const content = [];
      const parts = new Parts((part) => {
        const last = content[content.length - 1];
        switch (part.type) {
          case "text-delta":
          case "reasoning-delta": {
            const type = part.type === "text-delta" ? "text" : "reasoning";
            if (last && last.type === type && last.actionstream) last.text += part.delta;
            else content.push({ type, text: part.delta, actionstream: true });
            break;
          }
          case "tool-call":
            content.push(part);
            break;
          default:
            break;
        }
      });
      try {
        for (const item of result.content ?? []) {
          if (item?.type === "text") {
            parts.events(parser.push(item.text ?? ""));
          } else {
            parts.close();
            content.push(item);
          }
        }
        parts.events(parser.finish());
        parts.end();
      } finally {
        parser.free();
      }
      for (const item of content) delete item.actionstream;
      return {
        ...result,
        content,
        finishReason: parts.completed ? toolCalls(version, result.finishReason) : result.finishReason,
      };
    },
  };
}
