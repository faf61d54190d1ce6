#!/usr/bin/env python3
"""A scripted model server for the agent tests: a loopback OpenAI Chat
Completions endpoint that answers a coding agent's turns in a real model's
raw format (Qwen3-Coder, GLM-4.5 or MiniMax-M2: `<think>` reasoning, prose,
the model's own tool-call markers), streamed in pieces of a chosen size,
and checks what the agent sends back.

    python3 tests/agents/upstream.py --agent claude --dialect qwen3_coder \
        --chunking random --seed 7 --dir /tmp/work --report /tmp/report.json

prints `listening on PORT` when ready (`--port 0`: any free port). Behind a
gateway that reads the raw format (`actionstream serve --upstream
http://127.0.0.1:PORT/v1 --dialect qwen3_coder`), the agent runs a
three-turn tool loop:

1. the model writes a 20 KB file (backticks, quotes, backslashes, unicode)
   with the agent's write tool (Claude Code's `Write`; Codex CLI's
   `exec_command` with a here-document; opencode's `write`; Qwen Code's
   `write_file`);
2. once the agent sends the tool's result, the server checks that the
   history carries the call (its name and exact arguments) and a tool
   message with the call's `tool_call_id`, then reads the file back
   (`Read`; `exec_command` `wc -c`; `read`; `read_file`);
3. it checks the second call and its result the same way, and that the
   result shows the file, then answers in prose ending with the marker
   `[agent-loop-ok]`.

A side request gets a short prose answer: one without tools (a title), or
one whose first message differs from the first tool-bearing request's (a
subagent, such as Qwen Code's memory extraction). What the server saw goes to `--report` as JSON after
every request: the turns, the failures of its checks, the calls written
and the calls whose results came back (the difference is the calls lost),
when the first turn was asked and when its file appeared on disk. The bytes
the file must hold go to `--report` + `.expected`.

tests/agents.rs runs it behind the gateway; bench/agents_routers.sh behind
the gateway and other routers. Standard library only.
"""

import argparse
import json
import os
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKER = "[agent-loop-ok]"
FILE_NAME = "notes.txt"


def body_text():
    """The file the model writes: about 20 KB, with backticks, quotes,
    backslashes, a tag-like text and unicode; no line is a here-document's
    end marker."""
    lines = []
    size = 0
    i = 0
    while size < 20_000:
        line = (f"line {i}: `code` \"double\" 'single' \\back\\slash $HOME "
                f"<b>&amp; naïve café 日本語 🚀 {'{'}x{'}'}\n")
        lines.append(line)
        size += len(line.encode())
        i += 1
    return "".join(lines)


def call_text(dialect, name, params):
    """One tool call in the model's own markers."""
    if dialect == "qwen3_coder":
        inner = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
        return f"<tool_call>\n<function={name}>\n{inner}</function>\n</tool_call>"
    if dialect == "glm":
        inner = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"
                        for k, v in params)
        return f"<tool_call>{name}\n{inner}</tool_call>"
    if dialect == "minimax_m2":
        inner = "".join(f"<parameter name=\"{k}\">{v}</parameter>\n" for k, v in params)
        return (f"<minimax:tool_call>\n<invoke name=\"{name}\">\n{inner}"
                f"</invoke>\n</minimax:tool_call>")
    raise SystemExit(f"--dialect {dialect}: expected qwen3_coder, glm or minimax_m2")


class Scenario:
    """The three turns of one agent, and the checks between them."""

    def __init__(self, agent, dialect, workdir):
        self.agent = agent
        self.dialect = dialect
        self.path = os.path.join(workdir, FILE_NAME)
        self.body = body_text()
        size = len(self.body.encode())
        if agent == "claude":
            self.calls = [
                ("Write", [("file_path", self.path), ("content", self.body)]),
                ("Read", [("file_path", self.path)]),
            ]
            # Read shows the file's lines, numbered.
            self.shows = self.body.split("\n", 1)[0]
        elif agent == "codex":
            heredoc = f"cat > {self.path} <<'ACTIONSTREAM_EOF'\n{self.body}ACTIONSTREAM_EOF"
            self.calls = [
                ("exec_command", [("cmd", heredoc)]),
                ("exec_command", [("cmd", f"wc -c < {self.path}")]),
            ]
            self.shows = str(size)
        elif agent == "opencode":
            self.calls = [
                ("write", [("filePath", self.path), ("content", self.body)]),
                ("read", [("filePath", self.path)]),
            ]
            self.shows = self.body.split("\n", 1)[0]
        elif agent == "qwen":
            self.calls = [
                ("write_file", [("file_path", self.path), ("content", self.body)]),
                ("read_file", [("file_path", self.path)]),
            ]
            self.shows = self.body.split("\n", 1)[0]
        else:
            raise SystemExit(f"--agent {agent}: expected claude, codex, opencode or qwen")
        self.size = size

    def answer(self, turn):
        """The raw text of turn `turn` (0, 1 or 2)."""
        if turn < len(self.calls):
            name, params = self.calls[turn]
            prose = ["I'll write the file now.", "Now I'll read it back to check it."][turn]
            return (f"<think>\nStep {turn + 1}: the user wants {FILE_NAME}; "
                    f"I call {name}.\n</think>\n\n{prose}\n"
                    + call_text(self.dialect, name, params))
        return ("<think>\nThe file reads back as written.\n</think>\n\n"
                f"Done: {FILE_NAME} holds {self.size} bytes and reads back as written. "
                f"{MARKER}")

    def check(self, messages, turn):
        """What is wrong with the history the agent sent for `turn`: the
        calls of the earlier turns, each with its tool message."""
        problems = []
        made = [(i, c) for i, m in enumerate(messages) if m.get("role") == "assistant"
                for c in m.get("tool_calls") or []]
        for k in range(turn):
            name, params = self.calls[k]
            if len(made) <= k:
                problems.append(f"turn {turn + 1}: the history has {len(made)} assistant "
                                f"tool calls; call {k + 1} ({name}) is missing")
                continue
            found = made[k]
            if (found[1].get("function") or {}).get("name") != name:
                problems.append(f"call {k + 1}: named {found[1].get('function')!r}, "
                                f"expected {name}")
                continue
            at, call = found
            try:
                args = json.loads(call["function"].get("arguments") or "")
            except ValueError as e:
                problems.append(f"call {k + 1} ({name}): arguments are not JSON: {e}")
                continue
            want = dict(params)
            if args != want:
                problems.append(f"call {k + 1} ({name}): arguments differ: {describe(args, want)}")
            cid = call.get("id")
            results = [m for m in messages[at + 1:]
                       if m.get("role") == "tool" and m.get("tool_call_id") == cid]
            if not results:
                problems.append(f"call {k + 1} ({name}, id {cid}): no tool message with "
                                f"that tool_call_id after it")
            elif k == 1 and self.shows not in text_of(results[0].get("content")):
                problems.append(f"call 2 ({name}): its result does not show "
                                f"{self.shows[:60]!r}: {text_of(results[0].get('content'))[:300]!r}")
        return problems


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def describe(got, want):
    if not isinstance(got, dict):
        return f"got {type(got).__name__}"
    if set(got) != set(want):
        return f"keys {sorted(got)} (expected {sorted(want)})"
    for k in want:
        a, b = got[k], want[k]
        if a != b:
            if not isinstance(a, str):
                return f"{k} is {a!r}"
            i = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return (f"{k} differs at character {i} of {len(b)} (length {len(a)}): "
                    f"{a[max(0, i - 20):i + 20]!r} vs {b[max(0, i - 20):i + 20]!r}")
    return "?"


def pieces(text, chunking, rng):
    if chunking == "whole":
        return [text]
    if chunking == "char":
        return list(text)
    out = []
    i = 0
    while i < len(text):
        n = rng.randint(1, 24)
        out.append(text[i:i + n])
        i += n
    return out


class State:
    def __init__(self, args):
        self.args = args
        self.scenario = Scenario(args.agent, args.dialect, args.dir)
        self.rng = random.Random(args.seed)
        # The first message of the agent's main conversation.
        self.main = None
        self.lock = threading.Lock()
        self.report = {"agent": args.agent, "dialect": args.dialect,
                       "chunking": args.chunking, "seed": args.seed,
                       "file": self.scenario.path, "requests": [], "failures": [],
                       "calls_written": 0, "calls_answered": 0, "answered": False,
                       "first_turn_at": None, "file_at": None}
        with open(args.report + ".expected", "w", encoding="utf-8", newline="") as f:
            f.write(self.scenario.body)
        self.save()

    def save(self):
        tmp = self.args.report + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.report, f, indent=1)
        os.replace(tmp, self.args.report)

    def watch_file(self):
        """Notes when the first call's file appears on disk."""
        path = self.scenario.path
        deadline = time.time() + 300
        while time.time() < deadline:
            if os.path.exists(path):
                with self.lock:
                    self.report["file_at"] = time.time()
                    self.save()
                return
            time.sleep(0.002)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, *args):
        pass

    def send_json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": "qwen3-coder", "object": "model", "owned_by": "test"}]})
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            req = json.loads(self.rfile.read(length) or b"null")
        except ValueError as e:
            self.send_json(400, {"error": {"message": f"body is not JSON: {e}"}})
            return
        if not self.path.split("?")[0].endswith("/chat/completions") or not isinstance(req, dict):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        st = self.state
        sc = st.scenario
        messages = req.get("messages") or []
        tools = [(t.get("function") or {}).get("name") for t in req.get("tools") or []]
        with st.lock:
            entry = {"at": time.time(), "stream": bool(req.get("stream")),
                     "model": req.get("model"), "messages": len(messages),
                     "tools": len(tools)}
            first = json.dumps(messages[:1])[:300]
            if tools and st.main is None:
                st.main = first
            if not tools or first != st.main:
                entry["turn"] = None
                text = "OK."
            else:
                turn = min(sum(1 for m in messages if m.get("role") == "tool"), len(sc.calls))
                entry["turn"] = turn + 1
                problems = sc.check(messages, turn)
                if turn < len(sc.calls) and sc.calls[turn][0] not in tools:
                    problems.append(f"turn {turn + 1}: the request offers no tool "
                                    f"{sc.calls[turn][0]}: {tools}")
                st.report["failures"] += problems
                st.report["calls_answered"] = max(st.report["calls_answered"], turn)
                if problems:
                    text = "The check failed: " + "; ".join(problems)
                else:
                    text = sc.answer(turn)
                    if turn < len(sc.calls):
                        st.report["calls_written"] = max(st.report["calls_written"], turn + 1)
                    else:
                        st.report["answered"] = True
                if turn == 0 and st.report["first_turn_at"] is None:
                    st.report["first_turn_at"] = entry["at"]
                    threading.Thread(target=st.watch_file, daemon=True).start()
            st.report["requests"].append(entry)
            st.save()
            parts = pieces(text, st.args.chunking, st.rng)
        model = req.get("model") or "qwen3-coder"
        usage = {"prompt_tokens": 100 * len(messages), "completion_tokens": len(text) // 4,
                 "total_tokens": 100 * len(messages) + len(text) // 4}
        if not req.get("stream"):
            self.send_json(200, {
                "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()),
                "model": model, "usage": usage,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        include_usage = bool((req.get("stream_options") or {}).get("include_usage"))
        pace = st.args.pace_ms / 1000.0

        def chunk(delta, finish=None, extra=None):
            v = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
                 "created": int(time.time()), "model": model,
                 "choices": [{"index": 0, "delta": delta, "logprobs": None,
                              "finish_reason": finish}]}
            if extra:
                v.update(extra)
            return "data: " + json.dumps(v, ensure_ascii=False) + "\n\n"

        try:
            self.write_chunk(chunk({"role": "assistant", "content": ""}))
            for p in parts:
                self.write_chunk(chunk({"content": p}))
                if pace:
                    time.sleep(pace)
            self.write_chunk(chunk({}, "stop"))
            if include_usage:
                v = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk",
                     "created": int(time.time()), "model": model, "choices": [], "usage": usage}
                self.write_chunk("data: " + json.dumps(v) + "\n\n")
            self.write_chunk("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with st.lock:
                st.report["failures"].append("the client went away mid-answer")
                st.save()

    def write_chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", required=True, choices=["claude", "codex", "opencode", "qwen"])
    ap.add_argument("--dialect", default="qwen3_coder",
                    choices=["qwen3_coder", "glm", "minimax_m2"])
    ap.add_argument("--chunking", default="random", choices=["whole", "char", "random"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pace-ms", type=float, default=0.0, help="a pause after each piece")
    ap.add_argument("--dir", required=True, help="the agent's working directory")
    ap.add_argument("--report", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    args.dir = os.path.abspath(args.dir)
    Handler.state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
