#!/usr/bin/env bash
# Claude Code through actionstream, claude-code-router and LiteLLM's proxy,
# in front of the same raw model server; prints a Markdown section
# (bench/agents_routers.py says what is measured and how).
#
#   bench/agents_routers.sh            # 3 runs per router
#   QUICK=1 bench/agents_routers.sh    # 1 run per router
#
# Installs what it needs, pinned, under target/agents-routers/ (once):
# Claude Code from tests/agents (npm ci --ignore-scripts),
# @musistudio/claude-code-router 2.0.0 (npm), litellm[proxy] 1.100.0
# (PyPI, in a virtualenv); builds the release binary with the gateway.
# A router that cannot be installed is a row that says why.
# Diagnostics go to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
cache="$root/target/agents-routers"
mkdir -p "$cache"

echo "== building actionstream (release, with the gateway)" >&2
cargo build --release --features serve --bin actionstream >&2

claude="$root/tests/agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if [ ! -x "$claude" ]; then
    echo "== installing the agents (tests/agents)" >&2
    (cd tests/agents && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
fi

ccr="$cache/ccr/node_modules/.bin/ccr"
ccr_missing=""
if [ ! -x "$ccr" ]; then
    echo "== installing @musistudio/claude-code-router 2.0.0" >&2
    mkdir -p "$cache/ccr"
    if ! npm install --prefix "$cache/ccr" --no-audit --no-fund --loglevel=error \
        @musistudio/claude-code-router@2.0.0 >&2; then
        ccr_missing="npm install @musistudio/claude-code-router@2.0.0 failed"
    fi
fi

litellm_missing=""
litellm=$(bench/litellm_venv.sh) || litellm_missing="pip install litellm[proxy]==1.100.0 failed"

runs=3
[ "${QUICK:-0}" = 1 ] && runs=1
args=(--actionstream "$root/target/release/actionstream" --claude "$claude" --runs "$runs")
if [ -z "$ccr_missing" ] && [ -x "$ccr" ]; then args+=(--ccr "$ccr"); else args+=(--ccr-missing "${ccr_missing:-not installed}"); fi
if [ -z "$litellm_missing" ] && [ -x "$litellm" ]; then args+=(--litellm "$litellm"); else args+=(--litellm-missing "${litellm_missing:-not installed}"); fi
exec python3 bench/agents_routers.py "${args[@]}"
