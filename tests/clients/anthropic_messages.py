"""`--output anthropic` read by the `anthropic` Python package.

Every event is validated strictly against the SDK's `RawMessageStreamEvent`
union (a pydantic `TypeAdapter`; no undeclared fields; an `error` event
against `ErrorResponse`), its `event:` name must be its type, content blocks
must open and close one at a time with indexes counting from 0, and the
events are accumulated by the SDK's own `accumulate_event`; the same bytes
are also served on loopback to `client.messages.stream(...)`, whose final
message must agree (or which must raise the error event).
"""

import json

import anthropic
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import ErrorResponse, RawMessageStreamEvent
from pydantic import TypeAdapter

from sse_replay import Replay, frames, main, no_extras

ADAPTER = TypeAdapter(RawMessageStreamEvent)


def check(body):
    snapshot = None
    json_bufs = {}
    errors = []
    kinds = []
    open_block = None
    next_block = 0
    for event, data in frames(body):
        payload = json.loads(data)
        assert event == payload["type"], "the event name is the type"
        kinds.append(event)
        if event == "error":
            parsed = ErrorResponse.model_validate(payload, strict=True)
            no_extras(parsed)
            errors.append(parsed.error.message)
            continue
        assert not errors or event == "message_stop", "nothing but message_stop after an error"
        parsed = ADAPTER.validate_python(payload, strict=True)
        no_extras(parsed)
        if parsed.type == "content_block_start":
            assert open_block is None and parsed.index == next_block, "one block at a time, in order"
            open_block, next_block = parsed.index, next_block + 1
        elif parsed.type == "content_block_delta":
            assert parsed.index == open_block
        elif parsed.type == "content_block_stop":
            assert parsed.index == open_block
            open_block = None
        snapshot = accumulate_event(event=parsed, current_snapshot=snapshot, json_bufs=json_bufs)

    assert kinds[0] == "message_start"
    assert open_block is None, "every block stopped"
    if not errors:
        assert kinds[-2:] == ["message_delta", "message_stop"], kinds[-2:]

    text, reasoning, calls = [], [], []
    for block in snapshot.content:
        if block.type == "text":
            text.append(block.text)
        elif block.type == "thinking":
            reasoning.append(block.thinking)
        elif block.type == "tool_use":
            calls.append({"id": block.id, "name": block.name, "arguments": block.input})

    # The SDK's streaming helper over HTTP.
    with Replay(body) as url:
        client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
        try:
            with client.messages.stream(
                model="any", max_tokens=1024, messages=[{"role": "user", "content": "hi"}]
            ) as stream:
                for _ in stream:
                    pass
                final = stream.get_final_message()
            assert not errors, "an error event makes the SDK raise"
            assert [b.model_dump() for b in final.content] == [b.model_dump() for b in snapshot.content]
            assert final.stop_reason == snapshot.stop_reason
            assert final.usage.output_tokens == 0
        except anthropic.APIStatusError as e:
            assert errors and errors[0] in str(e), e

    return (
        {
            "text": "".join(text),
            "reasoning": "".join(reasoning),
            "calls": calls,
            "finish": snapshot.stop_reason,
            "errors": errors,
        }
    )


if __name__ == "__main__":
    main(check)
