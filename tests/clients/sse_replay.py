"""Shared by the Python client checks: SSE frames, strict validation, and a
loopback HTTP server that replays a recorded stream to a real SDK client.

Each check reads outputs of `actionstream parse --output FORMAT` (the files
named on its command line, else standard input) and prints one JSON line
per stream: what the client reconstructed.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
os.environ["no_proxy"] = os.environ["NO_PROXY"]


def frames(body: bytes):
    """(event name or None, data text) of each frame; asserts the framing:
    frames end with a blank line, each has at most one `event:` line and
    exactly one `data:` line."""
    text = body.decode("utf-8")
    assert text.endswith("\n\n"), "the stream ends with a blank line"
    out = []
    for block in text[:-2].split("\n\n"):
        event, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                assert event is None and not data, block
                event = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
            else:
                raise AssertionError(f"unexpected line {line!r}")
        assert len(data) == 1, block
        out.append((event, data[0]))
    return out


def no_extras(model, allowed=(), path="$"):
    """Asserts that a parsed pydantic model holds no field its type does not
    declare (the SDK models accept unknown fields; a misspelt one would pass
    unseen), except the names in `allowed`."""
    from pydantic import BaseModel

    if isinstance(model, BaseModel):
        extra = set((model.model_extra or {}).keys()) - set(allowed)
        assert not extra, f"{path}: undeclared fields {sorted(extra)} in {type(model).__name__}"
        for name in type(model).model_fields:
            no_extras(getattr(model, name), allowed, f"{path}.{name}")
    elif isinstance(model, (list, tuple)):
        for i, item in enumerate(model):
            no_extras(item, allowed, f"{path}[{i}]")
    elif isinstance(model, dict):
        for k, v in model.items():
            no_extras(v, allowed, f"{path}.{k}")


class Replay:
    """Serves `body` as `text/event-stream` to every POST on a loopback
    port, one frame per write, so the client reads it as a stream."""

    def __init__(self, body: bytes):
        self.body = body
        self.requests = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("content-length", "0"))
                replay.requests.append((self.path, json.loads(self.rfile.read(length) or b"null")))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for frame in replay.body.split(b"\n\n")[:-1]:
                    self.wfile.write(frame + b"\n\n")
                    self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def main(check):
    """Runs `check(body) -> dict` on each file named on the command line
    (else on standard input) and prints each result as one JSON line; the
    first failure names its file and exits 1."""
    import traceback

    paths = sys.argv[1:]
    bodies = [(p, open(p, "rb").read()) for p in paths] or [("<stdin>", sys.stdin.buffer.read())]
    for path, body in bodies:
        try:
            result = check(body)
        except Exception:
            sys.stderr.write(f"{path}:\n{traceback.format_exc()}")
            sys.exit(1)
        json.dump(result, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        sys.stdout.flush()


def parse_arguments(text):
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    return value
