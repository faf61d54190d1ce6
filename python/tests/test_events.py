"""The event classes: attributes, equality, repr, match and to_dict."""


import pytest

import actionstream
from actionstream import (
    ActionComplete,
    ActionDelta,
    ActionInvalid,
    ActionStarted,
    ArgumentsDelta,
    Error,
    Narrative,
    Reasoning,
)

RESPONSE = (
    "Let me look.\n"
    '<action_call name="search" source="web">{"query": "rust", "limit": 5,}</action_call>\n'
    '```json\n{"action": "broken" "x": 1}\n```\n'
)


def test_a_response_as_events():
    events = actionstream.parse(RESPONSE, action_deltas=True)
    assert events[0] == Narrative("Let me look.\n")
    assert events[1] == ActionStarted(0, "search", "tag", "action_call")
    assert isinstance(events[2], ActionDelta) and events[2].id == 0
    complete = next(e for e in events if isinstance(e, ActionComplete))
    assert complete.arguments == {"query": "rust", "limit": 5}
    assert complete.repairs == ["trailing comma"]
    assert complete.attributes == {"source": "web"}
    assert complete.span == (13, 13 + len(complete.raw))
    assert complete.to_dict()["span"] == [13, 13 + len(complete.raw)]
    assert list(complete.to_dict()) == ["event", "id", "name", "arguments", "raw", "span", "repairs", "attributes"]
    invalid = events[-2] if isinstance(events[-2], ActionInvalid) else events[-1]
    assert isinstance(invalid, ActionInvalid)
    assert invalid.name == "broken"
    assert invalid.errors[0].startswith("the JSON cannot be read")
    assert list(invalid.to_dict()) == ["event", "id", "name", "errors", "raw", "span"]


def test_equality_and_repr():
    assert Narrative("a") == Narrative("a")
    assert Narrative("a") != Narrative("b")
    assert Narrative("a") != Reasoning("a")
    assert Narrative("a") != "a"
    assert repr(Narrative("a\n")) == "Narrative(text='a\\n')"
    c = ActionComplete(1, "f", {"x": 1}, "raw", (0, 3), ["comment"], {"k": "v"})
    assert c == ActionComplete(1, "f", {"x": 1}, "raw", (0, 3), ["comment"], {"k": "v"})
    assert c != ActionComplete(1, "f", {"x": 2}, "raw", (0, 3), ["comment"], {"k": "v"})
    assert repr(c) == (
        "ActionComplete(id=1, name='f', arguments={'x': 1}, raw='raw', span=(0, 3), "
        "repairs=['comment'], attributes={'k': 'v'})"
    )
    assert eval(repr(c), vars(actionstream)) == c
    with pytest.raises(TypeError):
        hash(c)


def test_to_dict_is_the_cli_line_shape():
    assert Narrative("x").to_dict() == {"event": "narrative", "text": "x"}
    assert Reasoning("x").to_dict() == {"event": "reasoning", "text": "x"}
    assert ActionStarted(0, None, "fence", "json").to_dict() == {
        "event": "action_started", "id": 0, "name": None, "syntax": "fence", "tag": "json"}
    assert ActionDelta(2, "{").to_dict() == {"event": "action_delta", "id": 2, "text": "{"}
    assert ArgumentsDelta(2, "{").to_dict() == {"event": "arguments_delta", "id": 2, "json": "{"}
    # attributes only when there are any
    assert "attributes" not in ActionComplete(0, "f", {}, "r").to_dict()
    assert ActionComplete(0, "f", {}, "r").span is None
    assert ActionInvalid(0, None, ["e"], "r", (1, 2)).to_dict() == {
        "event": "action_invalid", "id": 0, "name": None, "errors": ["e"], "raw": "r", "span": [1, 2]}
    assert Error("cut").to_dict() == {"event": "error", "message": "cut"}


def test_match_statements():
    kinds = []
    for event in actionstream.parse(RESPONSE):
        match event:
            case Narrative(text):
                kinds.append(("narrative", text[:4]))
            case ActionStarted(id, name):
                kinds.append(("started", id, name))
            case ActionComplete(id, name, arguments):
                kinds.append(("complete", name, arguments["query"]))
            case ActionInvalid(id, name, [first, *_]):
                kinds.append(("invalid", name, first[:8]))
    assert kinds[:4] == [("narrative", "Let "), ("started", 0, "search"), ("complete", "search", "rust"), ("narrative", "\n")]
    assert ("invalid", "broken", "the JSON") in kinds


def test_events_are_frozen():
    with pytest.raises(AttributeError):
        Narrative("a").text = "b"


def test_finish_resets_the_parser():
    parser = actionstream.Parser()
    first = parser.push('<tool_call>{"name": "f", "arguments": {}}</tool_call>') + parser.finish()
    second = parser.push('<tool_call>{"name": "f", "arguments": {}}</tool_call>') + parser.finish()
    assert first == second
    assert first[0].id == 0


def test_a_large_push_releases_the_interpreter():
    # Pushes of 64 KiB and more run with the interpreter detached; the
    # events are the same.
    text = ("word " * 20000) + '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    parser = actionstream.Parser()
    events = parser.push(text) + parser.finish()
    assert events == actionstream.parse(text.encode()) 
    assert events[-1].name == "f"


def test_events_pickle_and_copy():
    import copy
    import pickle

    for event in actionstream.parse(RESPONSE, action_deltas=True, argument_deltas=True) + [Error("x")]:
        assert pickle.loads(pickle.dumps(event)) == event
        assert copy.deepcopy(event) == event
