"""actionstream from Python against the pure-Python way, measured in one run.

    pip install ./python && python python/bench.py

1. A response of about 100 KB (the example responses repeated: prose,
   ```json action blocks, <tool_call> tags) pushed in 4-byte chunks:
   actionstream's Parser from Python, against what agent code does today:
   after every chunk, re-parse the accumulated text with regexes for fenced
   JSON and <tool_call> tags and json.loads each block found.
2. The cost of a small push from Python: µs per push of 1-, 4- and 16-byte
   chunks of the same response, against the same pushes made from Rust
   (no Python), so the difference is what crossing into Python costs
   (the call, the str, the event objects).

Each timing is the fastest of several runs (Python and Rust taken in turn),
but the pure-Python one, which takes tens of seconds and is run once.

`python python/bench.py --markdown` prints the same figures as a Markdown
section, as `bench/performance.sh` writes it into docs/performance.md.
"""

import json
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The installed package, not the source folder beside this script.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import actionstream  # noqa: E402
from actionstream import _native  # noqa: E402

SIZE = 100 * 1024
CHUNK = 4


def corpus(size=SIZE):
    parts = [
        (ROOT / "examples/responses" / name).read_text(encoding="utf-8")
        for name in ("release_plan.md", "gembrain_tasks.md", "facilitator.md")
    ]
    text = ""
    while len(text.encode("utf-8")) < size:
        for p in parts:
            text += p + "\n\n"
    return text


def chunks_of(text, n):
    return [text[i : i + n] for i in range(0, len(text), n)]


# --- the pure-Python way ------------------------------------------------------

FENCE = re.compile(r"```(?:json|action|actions)[ \t]*\n(.*?)\n```", re.S)
TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


def naive(chunks):
    """Re-parse the text so far after every chunk; report each block that
    parses as JSON once (by its offset)."""
    text = ""
    seen = set()
    actions = []
    for chunk in chunks:
        text += chunk
        for pattern in (FENCE, TOOL_CALL):
            for m in pattern.finditer(text):
                try:
                    value = json.loads(m.group(1))
                except ValueError:
                    continue
                if m.start() not in seen:
                    seen.add(m.start())
                    actions.append(value)
    return actions


def ours(chunks):
    parser = actionstream.Parser()
    actions = []
    for chunk in chunks:
        for e in parser.push(chunk):
            if isinstance(e, actionstream.ActionComplete):
                actions.append(e.arguments)
    for e in parser.finish():
        if isinstance(e, actionstream.ActionComplete):
            actions.append(e.arguments)
    return actions


def best(f, *args, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = f(*args)
        times.append(time.perf_counter() - start)
    return min(times), result


def per_push(text, n, runs=15):
    """µs per push from Python and from Rust, each the fastest of `runs`,
    the two taken in turn so both see the same load."""
    chunks = chunks_of(text, n)
    py, rs = float("inf"), float("inf")
    for _ in range(runs):
        t, _ = best(ours, chunks, runs=1)
        py = min(py, t / len(chunks))
        t, pushes = _native._time_native(text, n, 1)
        rs = min(rs, t / pushes)
    return py * 1e6, rs * 1e6


def main():
    markdown = "--markdown" in sys.argv[1:]
    text = corpus()
    size = len(text.encode("utf-8"))
    chunks = chunks_of(text, CHUNK)

    t_ours, found_ours = best(ours, chunks, runs=15)
    t_naive, found_naive = best(naive, chunks, runs=1)
    pushes = [(n, *per_push(text, n)) for n in (1, 4, 16)]
    narrative = ("The quick brown fox jumps over the lazy dog. " * 2400)[:SIZE]
    prose_py, prose_rs = per_push(narrative, 4)

    if markdown:
        print("## Python\n")
        print(
            f"`python python/bench.py --markdown`, the package built in release mode (`pip install ./python`). A response of "
            f"{size / 1024:.0f} KB (the three example responses repeated: prose, fenced JSON and "
            f"`actions` blocks, call tags; ASCII, so characters are bytes) in {len(chunks)} pushes "
            f"of {CHUNK} characters. The baseline re-parses the accumulated text after every chunk "
            "(regexes for fenced JSON and `<tool_call>` tags, `json.loads` of each block), as agent "
            "code does; it also reads less: an `actions` wrapper is one block to it, and it does not "
            "read `<action_call>` tags.\n"
        )
        print("| what | measured | baseline | ratio | target |")
        print("|---|---:|---:|---:|---|")
        ratio = t_naive / t_ours
        print(
            f"| the response in 4-byte pushes, `Parser` from Python ({len(found_ours)} actions) "
            f"against re-parsing ({len(found_naive)} blocks that parse) | {t_ours * 1e3:.1f} ms | "
            f"{t_naive * 1e3:.0f} ms | {ratio:.0f}x faster | ≥ 100x: {'met' if ratio >= 100 else 'NOT met'} |"
        )
        for n, per_py, per_rs in pushes:
            print(
                f"| a push of {n} B from Python, against the same push from Rust | {per_py:.2f} µs | "
                f"{per_rs:.2f} µs | {per_py / per_rs:.1f}x ({per_py - per_rs:.2f} µs a push for the "
                "call, the `str`, the event objects) | |"
            )
        print(
            f"| a push of 4 B of prose only, from Python against Rust | {prose_py:.2f} µs | "
            f"{prose_rs:.2f} µs | {prose_py / prose_rs:.1f}x | |"
        )
        print()
        return 0

    print(f"response: {size / 1024:.0f} KB, {len(chunks)} pushes of {CHUNK} characters\n")
    print("1. the whole response in 4-byte pushes")
    print(f"   actionstream from Python:        {t_ours * 1e3:9.1f} ms   ({len(found_ours)} actions)")
    print(f"   re-parse with regex + json.loads: {t_naive * 1e3:9.1f} ms   ({len(found_naive)} blocks that parse)")
    print(f"   ratio: {t_naive / t_ours:.0f}x faster\n")

    print("2. per push, small pushes (the same response)")
    print("   chunk   from Python   from Rust   overhead   ratio")
    for n, per_py, per_rs in pushes:
        print(
            f"   {n:3d} B   {per_py:8.2f} µs   {per_rs:7.2f} µs   {per_py - per_rs:6.2f} µs   {per_py / per_rs:5.1f}x"
        )
    print(
        f"   prose only, 4 B: {prose_py:.2f} µs from Python, {prose_rs:.2f} µs from Rust "
        f"({prose_py - prose_rs:.2f} µs overhead, {prose_py / prose_rs:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
