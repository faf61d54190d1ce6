"""The stubs agree with the module (mypy's stubtest), and code using the
package type-checks under `mypy --strict`."""

import os
import subprocess
import sys

import pytest

if not os.environ.get("ACTIONSTREAM_REQUIRE_CLIENTS"):
    pytest.importorskip("mypy")

USAGE = '''
import actionstream
import actionstream.anthropic
import actionstream.openai
from actionstream import ActionComplete, Event, StreamEvent

parser = actionstream.Parser(dialects=["hermes"], tools=[{"name": "f"}], max_block_bytes=1 << 20)
events: list[Event] = parser.push("text") + parser.push(b"bytes") + parser.finish()
for event in events:
    if isinstance(event, ActionComplete):
        arguments: dict[str, object] = event.arguments
        if event.span is not None:
            start, end = event.span
        line: dict[str, object] = event.to_dict()
replaced: int = parser.replaced
stream: list[StreamEvent] = list(actionstream.openai.events(iter([]), strict=True))
text: str = actionstream.Narrative("a").text
'''


def mypy(*args, cwd):
    done = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_stubs_agree_with_the_module(tmp_path):
    # From a folder where `actionstream` is the installed package.
    mypy("mypy.stubtest", "actionstream", cwd=tmp_path)


def test_usage_type_checks(tmp_path):
    (tmp_path / "usage.py").write_text(USAGE)
    mypy("mypy", "--strict", "--no-incremental", "usage.py", cwd=tmp_path)
