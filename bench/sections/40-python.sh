#!/usr/bin/env bash
# The Python package against re-parsing in Python, and the cost of a push
# from Python: python/bench.py. Prints a Markdown section. Uses an
# installed `actionstream` package; without one it builds the package in
# release mode into a virtual environment under target/ (a few minutes),
# unless QUICK=1, when the section says it was left out.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=python3
if ! "$py" -c "import actionstream._native" 2>/dev/null; then
    if [ "${QUICK:-0}" = 1 ]; then
        echo "## Python"
        echo
        echo "Left out in quick mode: no \`actionstream\` package installed (\`pip install ./python\`)."
        echo
        exit 0
    fi
    venv=target/bench-venv
    [ -x "$venv/bin/python" ] || "$py" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python >&2
    py=$venv/bin/python
fi
"$py" python/bench.py --markdown
