#!/usr/bin/env python3
"""Direct to an upstream, through `actionstream serve`, and through
LiteLLM's proxy, in one run against the same scripted upstream; prints a
Markdown section. Run by bench/sections/60-gateway.sh, which builds and
installs what it needs and says which programs to use.

The upstream (examples/scripted_upstream.rs) answers every chat-completions
request with a plain-text stream of 1,000 pieces and no calls, each piece's
text the time it was sent. The load client (examples/stream_load.rs) opens
N streams at once and takes, for each piece, its arrival time minus that
send time. For each path, in this order, on a fresh gateway:

1. a warm-up answer, then the gateway's resident memory at rest;
2. N streams held open (the upstream pauses every answer after its first
   piece until all N have one): the gateway's memory again; (open − rest)
   ÷ N is the memory per open stream;
3. 1, 100 and 1,000 streams of 1,000 paced pieces: the delays' p50 and
   p99, and the gateway's CPU time (user + system, every process of it,
   from /proc) over the largest run, per 1,000 answers.

Direct to the upstream gives the baseline; a gateway's added latency is its
percentile minus direct's. Diagnostics go to standard error.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request

from procs import free_port, said, start, stop

TICK = os.sysconf("SC_CLK_TCK")
PAGE = "bench"


def log(*a):
    print(*a, file=sys.stderr, flush=True)








def post(url, body, timeout=10.0):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def tree(root):
    """`root` and every process below it."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(c for c, pp in parents.items() if pp == p)
    return found


def cpu_seconds(root):
    total = 0
    for p in tree(root):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def rss_bytes(root):
    total = 0
    for p in tree(root):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            pass
    return total


def settle(pid, limit=10.0):
    """Waits until the process tree uses under 5% of a core over half a
    second (a gateway still busy with streams the run before cut would
    slow the next run), at most `limit` s; whether it did."""
    deadline = time.time() + limit
    before = cpu_seconds(pid)
    while time.time() < deadline:
        time.sleep(0.5)
        now = cpu_seconds(pid)
        if now - before < 0.025:
            return True
        before = now
    return False


class Bench:
    def __init__(self, args, scratch):
        self.args = args
        self.scratch = scratch
        up_log = os.path.join(scratch, "upstream.log")
        self.upstream = start([args.upstream, "--listen", "127.0.0.1:0"], up_log)
        self.up_url = said(up_log, "listening on ", self.upstream, 30).strip()
        log(f"   upstream at {self.up_url}")

    def script(self, pieces, pace_us, hold_after=None):
        post(f"{self.up_url}/control",
             {"pieces": pieces, "pace_us": pace_us, "hold_after": hold_after})

    def load(self, url, streams, pieces, deadline, hold_pid=None):
        """Runs the load client; with `hold_pid`, reads that process tree's
        memory once every stream is open, then releases the upstream."""
        cmd = [self.args.load, "--url", url, "--streams", str(streams), "--pieces", str(pieces),
               "--model", PAGE, "--deadline-seconds", str(deadline)]
        if hold_pid:
            cmd.append("--hold")
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        upstream_cpu = cpu_seconds(self.upstream.pid)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        held = None
        for line in proc.stdout:
            line = line.strip()
            if line.startswith("open ") and hold_pid:
                time.sleep(0.5)
                held = (rss_bytes(hold_pid), int(line.split()[1]))
                post(f"{self.up_url}/release", {})
            elif line.startswith("{"):
                result = json.loads(line)
                break
        else:
            result = {"errors": [{"count": streams, "error": "the load client printed nothing: "
                                  + proc.stderr.read()[-500:]}], "complete": 0, "pieces": 0}
        proc.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        result["client_cpu"] = (after.ru_utime + after.ru_stime
                                - children.ru_utime - children.ru_stime)
        result["upstream_cpu"] = cpu_seconds(self.upstream.pid) - upstream_cpu
        if hold_pid and held is None:
            # Not every stream opened: release anyway, and say so.
            post(f"{self.up_url}/release", {})
        result["held_rss"] = held
        return result

    def path(self, name, url, pid):
        """Every measurement of one path; `pid` is the gateway (None: direct)."""
        a = self.args
        out = {"runs": {}}
        log(f"== {name}")
        self.script(20, 0)
        warm = self.load(url, 1, 20, 60)
        if warm.get("complete") != 1:
            raise RuntimeError(f"the warm-up answer through {name} failed: {warm.get('errors')}")
        if pid:
            time.sleep(0.5)
            out["idle_rss"] = rss_bytes(pid)
            self.script(a.hold_pieces, 0, hold_after=1)
            held = self.load(url, a.hold_streams, a.hold_pieces, a.hold_deadline, hold_pid=pid)
            out["hold"] = held
            if not settle(pid):
                out.setdefault("busy", []).append("still busy 10 s after the held streams ended")
            log(f"   held {a.hold_streams}: {json.dumps(held)[:400]}")
            if held["held_rss"] is not None and held["held_rss"][1] > 0:
                rss, open_streams = held["held_rss"]
                out["per_stream"] = (rss - out["idle_rss"]) / open_streams
                out["held_open"] = open_streams
        for streams, pace in a.levels:
            self.script(a.pieces, pace)
            before = cpu_seconds(pid) if pid else 0
            r = self.load(url, streams, a.pieces, deadline(a.pieces, pace))
            r["deadline"] = deadline(a.pieces, pace)
            r["cpu"] = cpu_seconds(pid) - before if pid else None
            r["pace_us"] = pace
            out["runs"][streams] = r
            if pid and not settle(pid):
                out.setdefault("busy", []).append(f"still busy 10 s after the {streams:,}-stream run")
            log(f"   {streams} streams: {json.dumps(r)[:400]}")
        return out


def start_actionstream(args, up_url, scratch):
    logfile = os.path.join(scratch, "actionstream.log")
    proc = start([args.actionstream, "serve", "--upstream", f"{up_url}/v1",
                  "--listen", "127.0.0.1:0"], logfile)
    url = said(logfile, "listening on ", proc, 30).split()[0].rstrip("/")
    return proc, url


def start_litellm(args, up_url, scratch):
    """LiteLLM's proxy as its docs say for an OpenAI-compatible server: one
    model_list entry `openai/<model>` with `api_base`; offline with
    LITELLM_LOCAL_MODEL_COST_MAP=True; room for 1,000 upstream connections;
    its defaults otherwise (one worker)."""
    config = os.path.join(scratch, "litellm.yaml")
    with open(config, "w") as f:
        f.write(f"model_list:\n  - model_name: {PAGE}\n    litellm_params:\n"
                f"      model: openai/{PAGE}\n      api_base: {up_url}/v1\n"
                f"      api_key: test\n")
    port = free_port()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": scratch, "LANG": "C.UTF-8",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
           "LITELLM_LOG": "ERROR", "NO_DOCS": "True", "DISABLE_ADMIN_UI": "True",
           # Its default, 500 connections to one upstream, holds the 501st
           # stream back until one ends (1,000 held streams opened 500).
           "AIOHTTP_CONNECTOR_LIMIT_PER_HOST": "2000"}
    logfile = os.path.join(scratch, "litellm.log")
    proc = start([args.litellm, "--config", config, "--host", "127.0.0.1", "--port", str(port)],
                 logfile, env=env)
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health/liveliness", timeout=2).read()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.3)
    stop(proc)
    raise RuntimeError("litellm: nothing answered /health/liveliness in 180 s: "
                       + open(logfile, errors="replace").read()[-1500:])




def deadline(pieces, pace_us):
    """How long a run may take before its streams are cut (the pieces that
    arrived are kept): the answer's paced length and a tenth, and 3 s."""
    return int(1.1 * pieces * pace_us / 1e6) + 3


def ms(us):
    return f"{us / 1000:.2f}"


def plus(us):
    """An added delay, with its sign (below direct's is negative: noise)."""
    return f"{'+' if us >= 0 else '−'}{ms(abs(us))}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actionstream", required=True)
    ap.add_argument("--upstream", required=True, help="examples/scripted_upstream, built")
    ap.add_argument("--load", required=True, help="examples/stream_load, built")
    ap.add_argument("--litellm", help="the litellm program; without it, its column says why")
    ap.add_argument("--litellm-missing", default="not installed")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    args.pieces = 1000
    # (streams, µs between two pieces of one stream): an answer of 1,000
    # pieces lasts 5 s, 10 s and 40 s; the upstream sends 200, 10,000 and
    # 25,000 pieces a second in all (1,000 streams of 25 tokens a second:
    # about what one GPU server gives that many at once).
    args.levels = [(1, 5000), (100, 10000)] if args.quick else \
        [(1, 5000), (100, 10000), (1000, 40000)]
    args.hold_streams = 100 if args.quick else 1000
    # One piece, the hold, one more piece and the end.
    args.hold_pieces = 2
    args.hold_deadline = 30
    top = args.levels[-1][0]

    scratch = tempfile.mkdtemp(prefix="gateway-bench-")
    bench = Bench(args, scratch)
    results, failed = {}, {}
    try:
        results["direct"] = bench.path("direct", f"{bench.up_url}/v1/chat/completions", None)
        for name, starter, missing in [
            ("actionstream", start_actionstream, None),
            ("LiteLLM", start_litellm, None if args.litellm else args.litellm_missing),
        ]:
            if missing:
                failed[name] = missing
                continue
            try:
                proc, url = starter(args, bench.up_url, scratch)
            except RuntimeError as e:
                failed[name] = str(e)
                continue
            try:
                results[name] = bench.path(name, f"{url}/v1/chat/completions", proc.pid)
            except (RuntimeError, OSError) as e:
                failed[name] = str(e)
            finally:
                stop(proc)
    finally:
        stop(bench.upstream)

    paths = ["direct", "actionstream", "LiteLLM"]
    direct = results["direct"]["runs"]

    def added(name, streams, key):
        r = results.get(name, {}).get("runs", {}).get(streams)
        if not r or not r.get("pieces"):
            return None
        return r[key] - direct[streams][key]

    print("## The gateway side by side\n")
    print("The same scripted upstream (`examples/scripted_upstream.rs`, Rust on tokio and axum, "
          "so that it costs little beside the gateways: a chat-completions stream of "
          f"{args.pieces:,} plain-text pieces, no calls, each piece's text its send time) "
          "reached directly, through `actionstream serve` (release build, its defaults) and "
          "through LiteLLM's proxy (`litellm[proxy]==1.100.0`, one `openai/` model pointing at "
          "the upstream, `LITELLM_LOCAL_MODEL_COST_MAP=True`, `AIOHTTP_CONNECTOR_LIMIT_PER_HOST=2000` since its "
          "default of 500 connections to one upstream held the 501st stream back, its other "
          "defaults: one worker), in one "
          "run, on loopback. The load client (`examples/stream_load.rs`, one tokio process) "
          "opens N streams at once and takes each piece's arrival minus its send time; "
          "*added* is a gateway's percentile minus direct's. Pieces of one stream are paced: "
          + ", ".join(f"{s:,} stream{'s' if s > 1 else ''} {p / 1000:g} ms apart"
                      for s, p in args.levels)
          + ". A run is cut at 1.1 times its answers' paced length and 3 s; the pieces "
          "that arrived by then are counted, and a figure from a cut run is a lower bound (≥)"
          + f". CPU: user + system time of every process of the gateway over the {top:,}-stream "
          f"run, per 1,000 answers. Memory: resident memory with {args.hold_streams:,} streams "
          "held open (the upstream pauses each after its first piece) minus at rest, ÷ streams. "
          "Command: `bench/sections/60-gateway.sh`"
          + (" (quick mode, `QUICK=1`: 1 and 100 streams only, memory at 100 open streams)."
             if args.quick else "."))
    print()
    header = "| figure | " + " | ".join(paths) + " |"
    print(header)
    print("|---|" + "---:|" * len(paths))

    def cell(name, fn):
        if name in failed and name not in results:
            return "not run"
        try:
            v = fn(name)
        except (KeyError, TypeError, ZeroDivisionError):
            v = None
        return "—" if v is None else v

    for streams, _ in args.levels:
        def lat(name, streams=streams):
            r = results[name]["runs"][streams]
            if not r.get("pieces"):
                return "no piece arrived"
            short = r["pieces"] < streams * args.pieces
            at_least = "≥ " if short else ""
            text = f"{at_least}{ms(r['p50_us'])} / {at_least}{ms(r['p99_us'])} ms"
            if name != "direct":
                text += (f" ({plus(added(name, streams, 'p50_us'))} / "
                         f"{plus(added(name, streams, 'p99_us'))})")
            if short:
                text += (f"; only {r['pieces']:,} of {streams * args.pieces:,} pieces arrived "
                         f"within {r['deadline']} s, the rest later")
            return text
        print(f"| delay per piece at {streams:,} stream{'s' if streams > 1 else ''}, "
              f"p50 / p99 (added) | " + " | ".join(cell(n, lat) for n in paths) + " |")

    def cpu(name):
        r = results[name]["runs"][top]
        if r["cpu"] is None or not r["pieces"]:
            return None
        # Per piece delivered, times the pieces of 1,000 answers: the same
        # as per answer when every answer is whole.
        if r["pieces"] < top * args.pieces / 2:
            # Too few arrived for a rate: what the run cost, as it was.
            return (f"not a rate: {r['cpu']:.1f} s over the run, in which "
                    f"{r['pieces']:,} pieces arrived")
        per = r["cpu"] / r["pieces"] * args.pieces * 1000
        text = f"{per:.1f} s"
        if r["pieces"] < top * args.pieces:
            text += f" (from the {r['pieces']:,} pieces that arrived)"
        return text
    print(f"| gateway CPU seconds per 1,000 answers (at {top:,} streams) | "
          + " | ".join(cell(n, cpu) for n in paths) + " |")

    def mem(name):
        per = results[name].get("per_stream")
        if per is None:
            h = results[name].get("hold")
            return None if h is None else "streams did not all open"
        opened = results[name].get("held_open", args.hold_streams)
        return f"{per / 1024:.1f} KiB" + (
            f" ({opened:,} of {args.hold_streams:,} opened)" if opened < args.hold_streams else "")
    print(f"| memory per open stream (at {args.hold_streams:,}) | "
          + " | ".join(cell(n, mem) for n in paths) + " |")

    def others(name):
        r = results[name]["runs"][top]
        return (f"{r['upstream_cpu']:.1f} s + {r['client_cpu']:.1f} s "
                f"in {r['wall_s']:.0f} s")
    print(f"| the upstream's + the load client's CPU over the {top:,}-stream run | "
          + " | ".join(cell(n, others) for n in paths) + " |")

    def idle(name):
        v = results[name].get("idle_rss")
        return None if v is None else f"{v / 1048576:.1f} MiB"
    print("| resident memory at rest | " + " | ".join(cell(n, idle) for n in paths) + " |")
    print()

    # What went wrong, for each path and run.
    notes = []
    for name in paths:
        if name in failed:
            notes.append(f"- {name}: {failed[name].strip()[:600]}")
        if results.get(name, {}).get("busy"):
            notes.append(f"- {name}: " + "; ".join(results[name]["busy"])
                         + " (the next run began all the same)")
        for key, r in [("held", results.get(name, {}).get("hold"))] + \
                list(results.get(name, {}).get("runs", {}).items()):
            if not r:
                continue
            what = (f"{args.hold_streams:,} held streams" if key == "held"
                    else f"{key:,} stream{'s' if key != 1 else ''}")
            errs = "; ".join(f"{e['count']} × {e['error']}" for e in r.get("errors", []))
            if errs or r.get("cut"):
                limit = r.get("deadline", args.hold_deadline)
                notes.append(f"- {name}, {what}: {r.get('complete', 0):,} answers whole, "
                             f"{r.get('cut', 0):,} cut at the run's {limit} s limit"
                             + (f"; {errs[:600]}" if errs else ""))
    if notes:
        print("What did not complete:\n")
        print("\n".join(notes))
        print()

    # The targets.
    def verdict(ok):
        return "met" if ok else "NOT met"
    where = f"at {top:,} streams" + (" (quick mode: 1,000 not run)" if args.quick else "")
    ours = added("actionstream", top, "p99_us")
    theirs = added("LiteLLM", top, "p99_us")
    ours_mem = results.get("actionstream", {}).get("per_stream")
    theirs_mem = results.get("LiteLLM", {}).get("per_stream")
    print("Targets (issue 32):\n")
    if ours is None:
        print(f"- actionstream added p99 < 1 ms {where}: NOT met (not measured)")
    else:
        print(f"- actionstream added p99 < 1 ms {where}: {verdict(ours < 1000)} "
              f"({plus(ours)} ms)")
    if ours_mem is None:
        print("- actionstream ≤ 64 KiB per open stream: NOT met (not measured)")
    else:
        print(f"- actionstream ≤ 64 KiB per open stream (at {args.hold_streams:,}): "
              f"{verdict(ours_mem <= 65536)} ({ours_mem / 1024:.1f} KiB)")
    if ours is None or theirs is None:
        print(f"- added p99 at least 10x less than LiteLLM's {where}: NOT met (not measured: "
              f"{failed.get('LiteLLM', 'see above')[:200]})")
    else:
        lr = results["LiteLLM"]["runs"][top]
        bound = "≥ " if lr["pieces"] < top * args.pieces else ""
        ratio = (f"{bound}{theirs / ours:.0f}x" if ours > 0
                 else "actionstream's added delay is below direct's noise")
        print(f"- added p99 at least 10x less than LiteLLM's {where}: "
              f"{verdict(theirs >= 10 * max(ours, 0))} ({plus(ours)} ms against "
              f"{bound}{plus(theirs)} ms: {ratio})")
    if ours_mem is None or theirs_mem is None:
        print("- memory per open stream at least 10x less than LiteLLM's: NOT met (not measured)")
    else:
        ratio = f"{theirs_mem / ours_mem:.0f}x" if ours_mem > 0 else "actionstream's is 0"
        print(f"- memory per open stream at least 10x less than LiteLLM's: "
              f"{verdict(theirs_mem >= 10 * max(ours_mem, 0))} ({ours_mem / 1024:.1f} KiB against "
              f"{theirs_mem / 1024:.1f} KiB: {ratio})")
    print()


if __name__ == "__main__":
    main()
