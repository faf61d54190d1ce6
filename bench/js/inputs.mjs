// The model outputs the JavaScript bench feeds each side: one call whose
// argument is `size` bytes, written in the hermes or the qwen3_coder format,
// with prose before and after; the inputs with the closer `</tool_call>`
// inside an argument; and the chunkings (4-character parts, random 1-16).

/** The tool every input calls, in the AI SDK's function-tool form. */
export const tools = [
  {
    type: "function",
    name: "write_file",
    description: "Writes a file",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
];

const line = "The quick brown fox jumps over the lazy dog, then writes it down.";

/** `size` bytes of file content: lines of prose, as the format writes them. */
function content(size, newline) {
  let out = "";
  while (out.length < size) out += line + newline;
  return out.slice(0, size);
}

/**
 * One call with a `size`-byte argument (as written in the text), in
 * `dialect`: `{text, calls}`, the calls as `{name, input}`.
 */
export function oneCall(dialect, size) {
  // No trailing space: the peer trims the end of a qwen3_coder parameter.
  const written = content(size, dialect === "hermes" ? "\\n" : "\n").replace(/[\s\\]+$/, "");
  const body = dialect === "hermes" ? JSON.parse(`"${written}"`) : written;
  const call = { name: "write_file", input: { path: "notes.md", content: body } };
  if (dialect === "hermes") {
    return {
      text:
        "I'll write the file.\n<tool_call>\n" +
        `{"name": "write_file", "arguments": {"path": "notes.md", "content": "${written}"}}` +
        "\n</tool_call>\nDone.",
      calls: [call],
    };
  }
  if (dialect === "qwen3_coder") {
    return {
      text:
        "I'll write the file.\n<tool_call>\n<function=write_file>\n" +
        "<parameter=path>\nnotes.md\n</parameter>\n" +
        `<parameter=content>\n${written}\n</parameter>\n` +
        "</function>\n</tool_call>\nDone.",
      calls: [call],
    };
  }
  throw new Error(`no input for dialect ${dialect}`);
}

/**
 * Inputs whose argument holds the closer `</tool_call>` literally (a file
 * about the format): on a line of its own, and at the argument's end. Each
 * with the calls it holds, as `{name, input}`; the text ends in the prose
 * "The file is written.".
 */
export function closerInside(dialect) {
  const contents = [
    "A call ends with this line:\n</tool_call>\nOK",
    "Each call ends with </tool_call>",
  ];
  return contents.map((content) => {
    const c = { name: "write_file", input: { path: "format.md", content } };
    let call;
    if (dialect === "hermes") {
      call = `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.input })}\n</tool_call>`;
    } else if (dialect === "qwen3_coder") {
      call =
        `<tool_call>\n<function=${c.name}>\n` +
        Object.entries(c.input)
          .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
          .join("") +
        "</function>\n</tool_call>";
    } else {
      throw new Error(`no input for dialect ${dialect}`);
    }
    return { text: `Here it is.\n${call}\nThe file is written.`, calls: [c] };
  });
}

/** `text` in parts of `n` UTF-16 code units. */
export function grid(text, n) {
  const parts = [];
  for (let i = 0; i < text.length; i += n) parts.push(text.slice(i, i + n));
  return parts;
}

/** A seeded generator (mulberry32), so that a chunking can be named by its seed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `text` in parts of 1 to 16 code units, drawn from `seed`. */
export function randomParts(text, seed) {
  const next = random(seed);
  const parts = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * 16);
    parts.push(text.slice(i, i + n));
    i += n;
  }
  return parts;
}
