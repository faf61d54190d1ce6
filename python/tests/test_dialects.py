"""Each of the model dialects, by name and by model id, as the CLI reads it."""

import pytest

import actionstream
from conftest import ROOT, check_every_chunking, cli, merged, same_lines

EXAMPLES = ROOT / "examples/responses/dialects"
PEER_INPUTS = sorted((ROOT / "tests/data/dialects").glob("*/*.txt"))


def test_every_dialect_has_an_example():
    names = sorted(actionstream.dialects())
    assert len(names) == len(set(names)) >= 29
    assert names == sorted(p.stem for p in EXAMPLES.glob("*.txt"))


@pytest.mark.parametrize("dialect", sorted(actionstream.dialects()))
def test_each_dialect_finds_its_calls(dialect):
    text = (EXAMPLES / f"{dialect}.txt").read_text(encoding="utf-8")
    events = check_every_chunking(text, dialects=[dialect])
    complete = [e for e in events if e["event"] == "action_complete"]
    assert complete, "the example holds calls"
    for e in complete:
        started = next(s for s in events if s["event"] == "action_started" and s["id"] == e["id"])
        assert (started["syntax"], started["tag"]) == ("dialect", dialect)
    # Without the dialect the calls are not read as the dialect's.
    plain = actionstream.parse(text)
    assert not any(getattr(e, "tag", None) == dialect for e in plain)


@pytest.mark.parametrize("path", PEER_INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_peer_inputs_give_the_cli_events(path):
    dialect = path.parent.name
    code, lines, stderr = cli("parse", "--dialect", dialect, str(path.relative_to(ROOT)))
    assert code == 0, stderr
    events = check_every_chunking(path.read_text(encoding="utf-8"), dialects=[dialect])
    same_lines(events, merged(lines))


@pytest.mark.parametrize(
    "model,dialects",
    [
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", ["qwen3_coder"]),
        ("deepseek-ai/DeepSeek-V3.1", ["deepseek_v31"]),
        ("Llama-3.2-3B-Instruct", ["llama3", "pythonic"]),
    ],
)
def test_a_model_id_chooses_the_dialects(model, dialects):
    assert actionstream.dialects_for_model(model) == dialects
    text = (EXAMPLES / f"{dialects[0]}.txt").read_text(encoding="utf-8")
    assert check_every_chunking(text, model=model) == check_every_chunking(text, dialects=dialects)


def test_dialects_combine_with_actions():
    text = 'A fence:\n```json\n{"action": "note", "text": "hi"}\n```\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    only_hermes = check_every_chunking(text, dialects=["hermes"])
    both = check_every_chunking(text, dialects=["hermes", "actions"])
    names = lambda events: [e["name"] for e in events if e["event"] == "action_complete"]
    assert names(only_hermes) == ["f"]
    assert names(both) == ["note", "f"]


def test_reasoning_open_and_argument_deltas():
    text = 'Think first.</think>Done.<tool_call>{"name": "write", "arguments": {"body": "a long text"}}</tool_call>'
    events = check_every_chunking(text, dialects=["hermes"], reasoning_open=True, argument_deltas=True)
    assert events[0] == {"event": "reasoning", "text": "Think first."}
    assert events[1] == {"event": "narrative", "text": "Done."}
    deltas = [e for e in events if e["event"] == "arguments_delta"]
    assert "".join(d["json"] for d in deltas) == '{"body":"a long text"}'
    assert events[-1]["arguments"] == {"body": "a long text"}


def test_a_model_opens_reasoning_by_its_family(tmp_path):
    # Qwen3 *-Thinking-2507's template ends the prompt inside `<think>`.
    model = "Qwen/Qwen3-235B-A22B-Thinking-2507"
    text = 'Check the weather first.</think>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    events = check_every_chunking(text, model=model)
    assert events[0] == {"event": "reasoning", "text": "Check the weather first."}
    assert events[-1]["name"] == "get_weather"
    # `reasoning_open=False` is the CLI's `--no-reasoning-open`.
    off = check_every_chunking(text, model=model, reasoning_open=False)
    assert off[0] == {"event": "narrative", "text": "Check the weather first.</think>\n"}
    path = tmp_path / "thinking.txt"
    path.write_text(text, encoding="utf-8")
    for flags, events in (([], events), (["--no-reasoning-open"], off)):
        code, lines, stderr = cli("parse", "--model", model, *flags, str(path))
        assert code == 0, stderr
        same_lines(events, merged(lines))
