/** One event, as the CLI's `parse` prints it (a JSON line). */
export type Event =
  | { event: "narrative"; text: string }
  | { event: "reasoning"; text: string }
  | { event: "action_started"; id: number; name: string | null; syntax: string; tag: string }
  | { event: "action_delta"; id: number; text: string }
  | { event: "arguments_delta"; id: number; json: string }
  | {
      event: "action_complete";
      id: number;
      name: string;
      arguments: Record<string, unknown>;
      raw: string;
      span: [number, number] | null;
      repairs: string[];
      [key: string]: unknown;
    }
  | {
      event: "action_invalid";
      id: number;
      name: string | null;
      errors: string[];
      raw: string;
      span: [number, number] | null;
    };

/** The Python package's options, in camelCase. */
export interface ParserOptions {
  /** `actions` (fences and call tags, the default) or a model's own format (`hermes`, `qwen3_coder`, …). */
  dialects?: string[];
  /** A model id whose family chooses the dialects. */
  model?: string;
  /** The request's tool list (any provider's form). */
  tools?: unknown;
  /** Action names to JSON Schemas (not in this build: refused). */
  schema?: Record<string, unknown>;
  strict?: boolean;
  /** The block size limit in bytes (at least 16). */
  maxBlockBytes?: number;
  argumentDeltas?: boolean;
  actionDeltas?: boolean;
  reasoningOpen?: boolean;
  callsInReasoning?: boolean;
  fenceTags?: string[];
  xmlTags?: string[];
  discriminators?: string[];
}

/** The streaming parser of one response. Bad options throw an `Error` with the CLI's message. */
export class Parser {
  constructor(options?: ParserOptions);
  /** Pushes the next piece; returns the events it made certain. */
  push(chunk: string | Uint8Array): Event[];
  /** Ends the response; returns the last events. */
  finish(): Event[];
  /** Frees the WebAssembly memory the parser holds. */
  free(): void;
}

/**
 * Instantiates the WebAssembly module (a compiled `WebAssembly.Module`, or
 * a URL / Response of the .wasm file). A no-op in Node, where the import
 * does it.
 */
export function init(module?: WebAssembly.Module | URL | string | Response | BufferSource): Promise<void>;

/**
 * What `actionstreamMiddleware` takes: the `Parser`'s options. Argument
 * deltas are always on; `tools`, when absent, are the request's function
 * tools; with neither `dialects` nor `model`, the dialects are those of the
 * wrapped model id's family (the default ones when the id names none).
 */
export type ActionstreamMiddlewareOptions = Omit<ParserOptions, "argumentDeltas">;

/**
 * A language model middleware of the AI SDK (specification v2 for `ai` 5,
 * v3 for `ai` 6), for `wrapLanguageModel`. A plain object: the package
 * does not depend on the AI SDK, so its parameters are typed loosely.
 *
 * ```ts
 * import { streamText, wrapLanguageModel } from "ai";
 * import { actionstreamMiddleware } from "actionstream";
 * const model = wrapLanguageModel({ model: raw, middleware: actionstreamMiddleware({ dialects: ["hermes"] }) });
 * const result = streamText({ model, prompt: "Weather in Paris?", tools });
 * ```
 */
export interface ActionstreamMiddleware {
  readonly specificationVersion: "v3";
  readonly middlewareVersion: "v2";
  wrapStream(options: { doStream: () => PromiseLike<any>; doGenerate: () => PromiseLike<any>; params: any; model: any }): Promise<any>;
  wrapGenerate(options: { doStream: () => PromiseLike<any>; doGenerate: () => PromiseLike<any>; params: any; model: any }): Promise<any>;
}

/**
 * The middleware: the wrapped model's text goes through a `Parser`, and
 * comes out as `text-*`, `reasoning-*`, `tool-input-*` and `tool-call`
 * parts (`finishReason` `tool-calls` when a call completed). Bad options
 * throw here, with the CLI's message. In a browser, `await init()` first.
 *
 * ```ts
 * const middleware = actionstreamMiddleware({ dialects: ["qwen3_coder"] });
 * actionstreamMiddleware({ dialects: ["qwen"] }); // throws: unknown dialect `qwen` …
 * ```
 */
export function actionstreamMiddleware(options?: ActionstreamMiddlewareOptions): ActionstreamMiddleware;
