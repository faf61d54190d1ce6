#!/usr/bin/env bash
# The Python package against re-parsing in Python, and the cost of a push
# from Python: python/bench.py. Prints a Markdown section. The package is
# built in release mode into its own virtual environment under target/
# (a few minutes the first time), never taken from whatever is installed,
# whose build profile the figures could not name. QUICK=1 leaves the section
# out unless that environment exists already.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import actionstream._native" 2>/dev/null; then
    if [ "${QUICK:-0}" = 1 ]; then
        echo "## Python"
        echo
        echo "Left out in quick mode (a full run builds the package in release mode into \`$venv\` and runs \`python/bench.py --markdown\`)."
        echo
        exit 0
    fi
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python >&2
fi
"$venv/bin/python" python/bench.py --markdown
