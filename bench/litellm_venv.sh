#!/usr/bin/env bash
# LiteLLM's proxy for the benches that compare with it, pinned: installs
# litellm[proxy] 1.100.0 once into a virtualenv under target/agents-routers/
# and prints the path of its `litellm` program (non-zero when it cannot be
# installed). Diagnostics go to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(pwd)/target/agents-routers/litellm"
litellm="$venv/bin/litellm"
if [ ! -x "$litellm" ]; then
    echo "== installing litellm[proxy] 1.100.0 into $venv" >&2
    mkdir -p "$(dirname "$venv")"
    { python3 -m venv "$venv" &&
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'litellm[proxy]==1.100.0'; } >&2
fi
echo "$litellm"
