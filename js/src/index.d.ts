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
