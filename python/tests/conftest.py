"""What the tests share: the inputs, the every-chunking helper, the CLI's
golden outputs and the CLI itself.

The every-chunking helper is the Python side of the crate's oracle
(`src/oracle.rs`): a response pushed whole, one character at a time, one
byte at a time (cutting UTF-8 characters) and at seeded random splits must
give the same events once adjacent narrative, reasoning and deltas of one
action are merged.
"""

import json
import os
import random
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

import actionstream

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (1, 2, 3, 7, 42)

# The loopback server that replays a recorded stream to a real SDK client,
# shared with the protocol client checks.
sys.path.insert(0, str(ROOT / "tests" / "clients"))


# ---------------------------------------------------------------------------
# Inputs.


def text_inputs():
    """(path, options) of every response the CLI's golden files cover: the
    responses under `examples/responses/` and `tests/data/` (`.md`, `.txt`),
    and each dialect's example with its dialect."""
    out = []
    for folder in ("examples/responses", "tests/data"):
        for path in sorted((ROOT / folder).iterdir()):
            if path.suffix in (".md", ".txt"):
                out.append((path, {}))
    for path in sorted((ROOT / "examples/responses/dialects").glob("*.txt")):
        out.append((path, {"dialects": [path.stem]}))
    return out


def input_id(item):
    path, options = item
    return str(path.relative_to(ROOT))


# ---------------------------------------------------------------------------
# The every-chunking helper.


def chunkings(text):
    """(name, chunks) of the ways a response is pushed: whole, one character
    at a time, one byte at a time, and random splits (1 to 64 characters,
    and 1 to 64 bytes) from each seed."""
    data = text.encode("utf-8")
    yield "whole", [text]
    yield "chars", list(text)
    yield "bytes", [data[i : i + 1] for i in range(len(data))]
    for seed in SEEDS:
        rng = random.Random(seed)
        for name, whole in (("chars", text), ("bytes", data)):
            chunks, at = [], 0
            while at < len(whole):
                n = rng.randint(1, 64)
                chunks.append(whole[at : at + n])
                at += n
            yield f"random {name} {seed}", chunks


def run(chunks, **options):
    """The events of one response pushed in `chunks`."""
    parser = actionstream.Parser(**options)
    events = []
    for chunk in chunks:
        events.extend(parser.push(chunk))
    events.extend(parser.finish())
    return events


MERGED = {"narrative": "text", "reasoning": "text", "action_delta": "text", "arguments_delta": "json"}


def merged(lines):
    """JSON lines (dicts) with adjacent narrative, adjacent reasoning and
    adjacent deltas of one action merged: what does not depend on the
    chunking."""
    out = []
    for line in lines:
        key = MERGED.get(line["event"])
        last = out[-1] if out else None
        if (
            key
            and last is not None
            and last["event"] == line["event"]
            and last.get("id") == line.get("id")
        ):
            out[-1] = dict(last, **{key: last[key] + line[key]})
        else:
            out.append(dict(line))
    return out


def dicts(events):
    return [e.to_dict() for e in events]


def check_every_chunking(text, **options):
    """The merged events of `text`, asserted equal at every chunking."""
    expected = None
    for name, chunks in chunkings(text):
        got = merged(dicts(run(chunks, **options)))
        if expected is None:
            expected = got
        else:
            assert got == expected, f"{name} differs from whole"
    return expected


def same_lines(got, expected):
    """Lists of JSON lines compared key order and all (as JSON texts)."""
    dump = lambda lines: [json.dumps(line, ensure_ascii=False) for line in lines]
    assert dump(got) == dump(expected)


# ---------------------------------------------------------------------------
# The CLI's golden outputs (`tests/golden/`, written by tests/cli_golden.rs).


@lru_cache(maxsize=None)
def golden(path):
    """The runs of a golden file: the command (its arguments after
    `actionstream`) to its stdout lines."""
    runs = {}
    command, lines, in_stdout = None, [], False
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if line.startswith("$ actionstream "):
            command, lines, in_stdout = line[len("$ actionstream ") :], [], False
            runs[command] = lines
        elif line == "stdout:":
            in_stdout = True
        elif in_stdout and line:
            lines.append(line)
    return runs


def golden_file(path):
    rel = path.relative_to(ROOT)
    if rel.parts[:3] == ("examples", "responses", "dialects"):
        return ROOT / "tests/golden/dialects" / f"{path.name}.out"
    return ROOT / "tests/golden" / f"{path.name}.out"


def golden_events(path, flags=""):
    """The JSON lines the CLI printed for `parse [--dialect D] FLAGS PATH`."""
    rel = str(path.relative_to(ROOT))
    in_dialects = path.relative_to(ROOT).parts[:3] == ("examples", "responses", "dialects")
    dialect = f"--dialect {path.stem} " if in_dialects else ""
    command = f"parse {dialect}{flags + ' ' if flags else ''}{rel}"
    runs = golden(str(golden_file(path)))
    assert command in runs, f"no run `{command}` in {golden_file(path)}"
    return [json.loads(line) for line in runs[command]]


# ---------------------------------------------------------------------------
# The CLI itself, for streams the golden files do not hold.


@lru_cache(maxsize=None)
def cli_path():
    """The `actionstream` binary: `$ACTIONSTREAM_CLI`, else
    `target/debug/actionstream` built (or found fresh) by cargo."""
    given = os.environ.get("ACTIONSTREAM_CLI")
    if given:
        return given
    subprocess.run(
        ["cargo", "build", "--quiet", "--all-features", "--bin", "actionstream"],
        cwd=ROOT,
        check=True,
    )
    return str(ROOT / "target/debug/actionstream")


def cli(*args):
    """(exit code, stdout lines as dicts, stderr) of `actionstream ARGS`."""
    done = subprocess.run(
        [cli_path(), *args], cwd=ROOT, capture_output=True, text=True, encoding="utf-8"
    )
    lines = [json.loads(l) for l in done.stdout.splitlines() if l.strip()]
    return done.returncode, lines, done.stderr


@pytest.fixture(scope="session")
def root():
    return ROOT
