#!/usr/bin/env bash
# The gateway side by side: direct to a scripted upstream, through
# `actionstream serve` and through LiteLLM's proxy, in one run
# (bench/gateway_side_by_side.py says what is measured and how). Prints a
# Markdown section. QUICK=1: 1 and 100 streams only, memory at 100 open
# streams.
#
# Builds the release binary with the gateway and the bench's upstream and
# load client (examples/scripted_upstream.rs, examples/stream_load.rs);
# installs litellm[proxy] 1.100.0 once into a virtualenv under
# target/agents-routers/ (bench/litellm_venv.sh). LiteLLM that cannot be
# installed is a column that says why. Diagnostics go to standard error.
set -euo pipefail
cd "$(dirname "$0")/../.."

# 1,000 streams through a gateway are 2,000 sockets in it and as many in
# the load client: raise the open-file limit as far as it goes.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

echo "== building actionstream (release, with the gateway), the upstream and the load client" >&2
cargo build --release --features serve --bin actionstream \
    --example scripted_upstream --example stream_load >&2

args=(--actionstream target/release/actionstream
      --upstream target/release/examples/scripted_upstream
      --load target/release/examples/stream_load)
if litellm=$(bench/litellm_venv.sh); then
    args+=(--litellm "$litellm")
else
    args+=(--litellm-missing "pip install litellm[proxy]==1.100.0 failed")
fi
[ "${QUICK:-0}" = 1 ] && args+=(--quick)
exec python3 bench/gateway_side_by_side.py "${args[@]}"
