#!/usr/bin/env python3
"""Claude Code through three routers in front of the same raw model server;
prints a Markdown section. Run by bench/agents_routers.sh, which installs
the routers and says which programs to use.

The task: tests/agents/upstream.py plays Qwen3-Coder served raw (no tool
parser: llama.cpp, vLLM or SGLang without `--tool-call-parser`, TGI,
Ollama's raw mode), answering in `<think>` / `<tool_call><function=…>`
text streamed in random pieces of 1 to 24 characters with a pause after
each; the agent must write a 20 KB file, read it back and answer (three
turns, two tool calls). Between the agent and the router sits
tests/agents/record.py as a tap that notes when each answer's first tool
call goes back to the agent.

For each router, each run: whether the task completes (the file holds the
exact bytes, the agent's last words carry the server's marker and the
server found every call and its `tool_call_id` in the histories it was
sent), the time from the agent's first request to the first tool call
reaching the agent, and the calls lost (written by the model, never run
by the agent).
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from procs import free_port, said_port, start, stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENTS = os.path.join(ROOT, "tests", "agents")
PROMPT = "Write notes.txt, read it back, then say done."
MARKER = "[agent-loop-ok]"
MODEL = "qwen3-coder"




def wait_port(port, proc, limit=90):
    """Waits until something accepts on `port` (or `proc` exits)."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False








def base_env(home):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8"}


def router_actionstream(args, up_port, scratch):
    log = os.path.join(scratch, "router.log")
    proc = start([args.actionstream, "serve", "--upstream", f"http://127.0.0.1:{up_port}/v1",
                  "--listen", "127.0.0.1:0", "--dialect", "qwen3_coder"], log,
                 env=base_env(os.path.join(scratch, "home")))
    return proc, said_port(log, "listening on http://127.0.0.1:", proc)


def router_ccr(args, up_port, scratch):
    """claude-code-router as its README says: a config.json in
    ~/.claude-code-router, one provider (the OpenAI-compatible server's
    chat/completions URL), the default route to it, `ccr start`."""
    home = os.path.join(scratch, "home")
    conf = os.path.join(home, ".claude-code-router")
    os.makedirs(conf, exist_ok=True)
    port = free_port()
    with open(os.path.join(conf, "config.json"), "w") as f:
        json.dump({
            "HOST": "127.0.0.1", "PORT": port, "LOG": False, "NON_INTERACTIVE_MODE": True,
            "Providers": [{"name": "local",
                           "api_base_url": f"http://127.0.0.1:{up_port}/v1/chat/completions",
                           "api_key": "test", "models": [MODEL]}],
            "Router": {"default": f"local,{MODEL}"},
        }, f, indent=1)
    proc = start([args.ccr, "start"], os.path.join(scratch, "router.log"), env=base_env(home))
    if not wait_port(port, proc):
        raise SystemExit("ccr start: nothing listens:\n"
                         + open(os.path.join(scratch, "router.log")).read()[-2000:])
    return proc, port


def router_litellm(args, up_port, scratch):
    """LiteLLM's proxy as its docs say for an OpenAI-compatible server: a
    model_list entry `openai/<model>` with `api_base`; Claude Code talks to
    its Anthropic `/v1/messages` endpoint. Offline:
    LITELLM_LOCAL_MODEL_COST_MAP=True. LiteLLM 1.100 sends an `openai/`
    model's /v1/messages to the upstream's Responses API (`/v1/responses`,
    which llama.cpp, TGI or Ollama do not serve); its
    LITELLM_USE_CHAT_COMPLETIONS_URL_FOR_ANTHROPIC_MESSAGES=True sends it
    to /v1/chat/completions instead."""
    home = os.path.join(scratch, "home")
    config = os.path.join(scratch, "litellm.yaml")
    with open(config, "w") as f:
        f.write(f"model_list:\n  - model_name: {MODEL}\n    litellm_params:\n"
                f"      model: openai/{MODEL}\n      api_base: http://127.0.0.1:{up_port}/v1\n"
                f"      api_key: test\n")
    port = free_port()
    env = base_env(home)
    env.update({"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False",
                "LITELLM_USE_CHAT_COMPLETIONS_URL_FOR_ANTHROPIC_MESSAGES": "True",
                "NO_DOCS": "True", "DISABLE_ADMIN_UI": "True"})
    proc = start([args.litellm, "--config", config, "--host", "127.0.0.1", "--port", str(port)],
                 os.path.join(scratch, "router.log"), env=env)
    if not wait_port(port, proc, limit=180):
        raise SystemExit("litellm: nothing listens:\n"
                         + open(os.path.join(scratch, "router.log")).read()[-3000:])
    return proc, port


ROUTERS = [
    ("actionstream", "actionstream serve --dialect qwen3_coder", router_actionstream),
    ("claude-code-router", "@musistudio/claude-code-router 2.0.0", router_ccr),
    ("LiteLLM proxy", "litellm[proxy] 1.100.0, /v1/messages", router_litellm),
]


def run_once(args, name, make, seed):
    scratch = tempfile.mkdtemp(prefix="agents-routers-")
    work = os.path.join(scratch, "work")
    home = os.path.join(scratch, "home")
    os.makedirs(work)
    os.makedirs(home)
    report = os.path.join(scratch, "report.json")
    procs = []
    try:
        up_log = os.path.join(scratch, "upstream.log")
        up = start([sys.executable, os.path.join(AGENTS, "upstream.py"), "--agent", "claude",
                    "--dialect", "qwen3_coder", "--chunking", "random", "--seed", str(seed),
                    "--pace-ms", str(args.pace_ms), "--dir", work, "--report", report], up_log)
        procs.append(up)
        up_port = said_port(up_log, "listening on ", up)
        router, router_port = make(args, up_port, scratch)
        procs.append(router)
        tap_log = os.path.join(scratch, "tap.log")
        requests = os.path.join(scratch, "requests.jsonl")
        tap = start([sys.executable, os.path.join(AGENTS, "record.py"), "--log", requests,
                     "--forward", f"http://127.0.0.1:{router_port}"], tap_log)
        procs.append(tap)
        tap_port = said_port(tap_log, "listening on ", tap)
        env = base_env(home)
        env.update({"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{tap_port}",
                    "ANTHROPIC_API_KEY": "test", "ANTHROPIC_MODEL": MODEL,
                    "ANTHROPIC_SMALL_FAST_MODEL": MODEL,
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1"})
        began = time.time()
        try:
            agent = subprocess.run([args.claude, "-p", PROMPT, "--allowedTools", "Write,Read,Bash"],
                                   cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=args.timeout)
            code, out = agent.returncode, agent.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            code, out = None, (e.stdout or b"").decode("utf-8", "replace")
        took = time.time() - began
        with open(report) as f:
            rep = json.load(f)
        with open(report + ".expected", "rb") as f:
            expected = f.read()
        try:
            with open(os.path.join(work, "notes.txt"), "rb") as f:
                written = f.read()
        except OSError:
            written = None
        entries = []
        if os.path.exists(requests):
            with open(requests) as f:
                entries = [json.loads(line) for line in f]
        posts = [e for e in entries if e["method"] == "POST" and "/messages" in e["path"]
                 and "count_tokens" not in e["path"]]
        first_call = None
        if posts and posts[0].get("first_call_at"):
            first_call = posts[0]["first_call_at"] - posts[0]["at"]
        completes = (code == 0 and written == expected and MARKER in out
                     and not rep["failures"] and rep["answered"])
        return {"completes": completes, "first_call": first_call,
                "written": rep["calls_written"],
                "lost": rep["calls_written"] - rep["calls_answered"], "took": took,
                "exit": code, "failures": rep["failures"],
                "raw_text": "<tool_call>" in out or "<function=" in out,
                "out": out[-300:]}
    finally:
        for p in reversed(procs):
            stop(p)
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            print(f"kept {scratch}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actionstream", required=True)
    ap.add_argument("--claude", required=True)
    ap.add_argument("--ccr", help="the ccr program; without it, that row says why")
    ap.add_argument("--ccr-missing", default="not installed")
    ap.add_argument("--litellm", help="the litellm program; without it, that row says why")
    ap.add_argument("--litellm-missing", default="not installed")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pace-ms", type=float, default=2.0)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--only", help="run only the router whose name starts with this")
    args = ap.parse_args()
    for k in ("actionstream", "claude", "ccr", "litellm"):
        if getattr(args, k):
            setattr(args, k, os.path.abspath(getattr(args, k)))

    rows = []
    for name, what, make in ROUTERS:
        if args.only and not name.startswith(args.only):
            continue
        missing = {"claude-code-router": None if args.ccr else args.ccr_missing,
                   "LiteLLM proxy": None if args.litellm else args.litellm_missing}.get(name)
        if missing:
            rows.append(f"| {name} | {what} | not run: {missing} | | | | |")
            continue
        runs = []
        for seed in range(1, args.runs + 1):
            print(f"== {name}, run {seed}", file=sys.stderr)
            try:
                r = run_once(args, name, make, seed)
            except SystemExit as e:
                r = {"error": str(e)}
            print(f"   {json.dumps(r)[:600]}", file=sys.stderr)
            runs.append(r)
        errors = [r["error"] for r in runs if "error" in r]
        if errors:
            first = errors[0].strip().splitlines()[0] if errors[0].strip() else "?"
            rows.append(f"| {name} | {what} | could not run: {first[:200]} | | | | |")
            continue
        done = sum(r["completes"] for r in runs)
        calls = [r["first_call"] for r in runs if r["first_call"] is not None]
        first = (f"{statistics.median(calls):.2f} s" if len(calls) == len(runs)
                 else "never" if not calls
                 else f"{statistics.median(calls):.2f} s ({len(runs) - len(calls)} runs: never)")
        lost = sum(r["lost"] for r in runs)
        written = sum(r["written"] for r in runs)
        took = statistics.median(r["took"] for r in runs)
        if done == len(runs):
            got = "the calls as `tool_use` blocks"
        elif any(r["raw_text"] for r in runs):
            got = "the model's `<think>` / `<tool_call>` markup as text; no file written"
        else:
            got = "; ".join(sorted({(r["failures"] or [r["out"].strip()[:120]])[0]
                                    for r in runs if not r["completes"]}))[:300]
        rows.append(f"| {name} | {what} | {done} of {len(runs)} | {first} | "
                    f"{lost} of {written} | {took:.1f} s | {got} |")

    print("## Claude Code through the routers\n")
    print("The same Claude Code task (write a 20 KB file, read it back, answer: "
          "two tool calls over three turns) and the same raw model server "
          "(`tests/agents/upstream.py`: Qwen3-Coder's `<think>` and "
          "`<tool_call><function=…>` text, as a server without a tool parser "
          f"streams it, in random 1-24 character pieces {args.pace_ms:g} ms apart) "
          f"behind each router; {args.runs} run{'s' if args.runs != 1 else ''} each. *First tool call*: from "
          "Claude Code's first request to the first tool call (`tool_use` block) "
          "reaching it on the wire (median). *Calls lost*: written by the model, "
          "never run by the agent (a lost first call ends the task, so the second "
          "is never written). Command: `bench/agents_routers.sh`.\n")
    print("| router | version, setup | task completes | first tool call reaches the agent "
          "| calls lost | agent's run (median) | what Claude Code got |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)
    print()


if __name__ == "__main__":
    main()
