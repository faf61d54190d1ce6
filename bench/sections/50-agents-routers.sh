#!/usr/bin/env bash
# Claude Code through actionstream, claude-code-router and LiteLLM's proxy
# in front of the same raw model server (bench/agents_routers.sh: installs
# the routers once under target/agents-routers/). Prints a Markdown
# section. QUICK=1: one run per router instead of three.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bench/agents_routers.sh
