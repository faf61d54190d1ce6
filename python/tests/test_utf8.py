"""Bytes may end inside a UTF-8 character."""

import actionstream
from conftest import ROOT, check_every_chunking, dicts, merged, run

TEXT = 'Café ☕ — 東京 🚀\n<tool_call>{"name": "say", "arguments": {"text": "naïve 🙂 ünïcödé"}}</tool_call>\nFin 👋'


def test_every_cut_inside_a_character_gives_the_same_events():
    data = TEXT.encode("utf-8")
    whole = merged(dicts(run([TEXT])))
    assert whole[-2]["arguments"] == {"text": "naïve 🙂 ünïcödé"}
    for cut in range(1, len(data)):
        assert merged(dicts(run([data[:cut], data[cut:]]))) == whole, cut
    check_every_chunking(TEXT)


def test_the_span_counts_bytes():
    events = actionstream.parse(TEXT)
    complete = next(e for e in events if isinstance(e, actionstream.ActionComplete))
    start, end = complete.span
    assert TEXT.encode("utf-8")[start:end].decode("utf-8") == complete.raw


def test_a_character_cut_by_a_push_is_held_until_it_is_whole():
    parser = actionstream.Parser()
    assert parser.push(b"caf\xc3") == [actionstream.Narrative("caf")]
    assert parser.push(b"\xa9!") == [actionstream.Narrative("é!")]
    assert parser.finish() == []
    assert parser.replaced == 0


def test_invalid_bytes_become_replacement_characters():
    parser = actionstream.Parser()
    events = parser.push(b"a\xffb") + parser.push(b"\xe2\x82") + parser.finish()
    assert "".join(e.text for e in events) == "a\ufffdb\ufffd"
    assert parser.replaced == 2


def test_dialect_markers_with_wide_characters_cut_anywhere():
    # DeepSeek's markers hold U+FF5C and U+2581 (three bytes each).
    path = ROOT / "examples/responses/dialects/deepseek_v31.txt"
    data = path.read_bytes()
    whole = merged(dicts(run([data], dialects=["deepseek_v31"])))
    for step in (1, 2, 3, 5):
        chunks = [data[i : i + step] for i in range(0, len(data), step)]
        assert merged(dicts(run(chunks, dialects=["deepseek_v31"]))) == whole


def test_str_and_bytes_mix():
    parser = actionstream.Parser()
    events = parser.push("Hé") + parser.push(b"\xc3") + parser.push(b"\xa9") + parser.push("!") + parser.finish()
    assert "".join(e.text for e in events) == "Héé!"
