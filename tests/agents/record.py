#!/usr/bin/env python3
"""Records what a coding agent sends: a loopback HTTP server that logs every
request (method, path, headers, body) as one JSON line and answers each
model request with a short text answer in the API it came in, so that the
agent ends its turn.

    python3 tests/agents/record.py --port 0 --log /tmp/requests.jsonl

prints `listening on PORT` when ready. Point the agent at it
(`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` for Claude Code, a Codex
provider with `base_url = "http://127.0.0.1:PORT/v1"`).

With `--forward URL` it passes every request on to URL (a gateway) and
streams the answer back, so that a whole tool loop is recorded, and notes
when each answer's first byte and first tool call went back
(bench/agents_routers.sh times the routers so). The requests in
tests/data/agents/ were recorded so, in front of the gateway.
Standard library only.
"""

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


# A tool call starting in an answer, in any of the three APIs.
CALL_STARTS = re.compile(rb'"type": ?"(tool_use|function_call)"|"tool_calls": ?\[')


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def messages_answer(model):
    """An Anthropic Messages stream that says `Recorded.` and ends."""
    message = {
        "id": "msg_rec", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }
    return b"".join([
        sse("message_start", {"type": "message_start", "message": message}),
        sse("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}}),
        sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                    "delta": {"type": "text_delta", "text": "Recorded."}}),
        sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        sse("message_delta", {"type": "message_delta",
                              "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                              "usage": {"output_tokens": 1}}),
        sse("message_stop", {"type": "message_stop"}),
    ])


def responses_answer(model):
    """A Responses stream that says `Recorded.` and completes."""
    item = {"id": "msg_rec", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Recorded.", "annotations": []}]}
    response = {"id": "resp_rec", "object": "response", "created_at": 0, "model": model,
                "status": "in_progress", "output": []}
    done = dict(response, status="completed", output=[item],
                usage={"input_tokens": 1, "output_tokens": 1, "total_tokens": 2})
    return b"".join([
        sse("response.created", {"type": "response.created", "response": response}),
        sse("response.output_item.added", {"type": "response.output_item.added",
                                           "output_index": 0,
                                           "item": dict(item, status="in_progress", content=[])}),
        sse("response.output_text.delta", {"type": "response.output_text.delta",
                                           "item_id": "msg_rec", "output_index": 0,
                                           "content_index": 0, "delta": "Recorded."}),
        sse("response.output_item.done", {"type": "response.output_item.done",
                                          "output_index": 0, "item": item}),
        sse("response.completed", {"type": "response.completed", "response": done}),
    ])


def chat_answer(model):
    """A Chat Completions stream that says `Recorded.` and stops."""
    def chunk(delta, finish=None):
        v = {"id": "chatcmpl-rec", "object": "chat.completion.chunk", "created": 0,
             "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(v)}\n\n".encode()
    return b"".join([chunk({"role": "assistant", "content": ""}),
                     chunk({"content": "Recorded."}), chunk({}, "stop"), b"data: [DONE]\n\n"])


class Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None
    forward = None

    def log_message(self, *args):
        pass

    def record(self, body, **timing):
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        entry = {"at": timing.pop("at", time.time()), "method": self.command,
                 "path": self.path, "headers": dict(self.headers.items()), "body": parsed}
        entry.update(timing)
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        return parsed

    def answer(self, status, content_type, data):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record(b"")
        if self.path.rstrip("/").endswith("/models"):
            self.answer(200, "application/json",
                        json.dumps({"object": "list", "data": []}).encode())
        else:
            self.answer(404, "application/json", b'{"error": {"message": "not found"}}')

    def do_HEAD(self):
        self.record(b"")
        self.answer(200, "text/plain", b"")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        if self.forward:
            self.record(body, **self.pass_on(body))
            return
        parsed = self.record(body)
        model = parsed.get("model", "m") if isinstance(parsed, dict) else "m"
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            self.answer(200, "application/json", b'{"input_tokens": 1}')
        elif path.endswith("/messages"):
            self.answer(200, "text/event-stream", messages_answer(model))
        elif path.endswith("/chat/completions"):
            self.answer(200, "text/event-stream", chat_answer(model))
        elif path.endswith("/responses"):
            self.answer(200, "text/event-stream", responses_answer(model))
        else:
            self.answer(404, "application/json", b'{"error": {"message": "not found"}}')

    def pass_on(self, body):
        """Sends the request on to --forward and streams its answer back;
        returns when the request came, when the answer's first byte and
        first tool call (an Anthropic `tool_use` block, a Responses
        `function_call` item, a Chat Completions `tool_calls` delta) went
        back, and when it ended."""
        at = time.time()
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("host", "content-length", "connection",
                                        "accept-encoding")}
        req = urllib.request.Request(self.forward.rstrip("/") + self.path, data=body,
                                     headers=headers, method="POST")
        try:
            resp = urllib.request.urlopen(req, timeout=300)
        except urllib.error.HTTPError as e:
            resp = e
        self.send_response(resp.status)
        self.send_header("content-type", resp.headers.get("content-type", "application/json"))
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        timing = {"at": at, "status": resp.status, "first_byte_at": None,
                  "first_call_at": None}
        seen = b""
        while True:
            data = resp.read1(65536)
            if not data:
                break
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            now = time.time()
            timing["first_byte_at"] = timing["first_byte_at"] or now
            if timing["first_call_at"] is None:
                seen = seen[-64:] + data
                if CALL_STARTS.search(seen):
                    timing["first_call_at"] = now
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        timing["end_at"] = time.time()
        return timing

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", required=True, help="where the JSON lines go")
    ap.add_argument("--forward", help="pass each request on to this base URL")
    args = ap.parse_args()
    Recorder.log_path = args.log
    Recorder.forward = args.forward
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Recorder)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
