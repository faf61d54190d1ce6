"""The processes a bench script starts: a free port, a server started in its
own process group with its output to a log, what it logged, and its end.
Shared by `agents_routers.py` and `gateway_side_by_side.py`."""

import re
import signal
import socket
import subprocess
import time
import os


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd, logfile, env=None, cwd=None):
    """Starts `cmd` in its own process group, its output to `logfile`."""
    out = open(logfile, "wb")
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            env=env, cwd=cwd, start_new_session=True)


def stop(proc, grace=15):
    """Ends a process `start` started, and its group: SIGTERM, then SIGKILL
    after `grace` seconds."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=grace)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def said(logfile, needle, proc, limit=30):
    """The text after `needle` up to the line's end, once `proc` logged it."""
    deadline = time.time() + limit
    while time.time() < deadline:
        with open(logfile, encoding="utf-8", errors="replace") as f:
            text = f.read()
        at = text.find(needle)
        if at >= 0 and "\n" in text[at:]:
            return text[at + len(needle):].split("\n", 1)[0]
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError(f"no `{needle}` from {proc.args[0]} in {limit} s: "
                       + open(logfile, errors="replace").read()[-1500:])


def said_port(logfile, needle, proc, limit=30):
    """The port `proc` logged right after `needle`."""
    rest = said(logfile, needle, proc, limit)
    digits = re.match(r"\d+", rest)
    if not digits:
        raise RuntimeError(f"{logfile}: no port after `{needle}`: {rest!r}")
    return int(digits.group())
