"""`--output openai-chat` read by the `openai` Python package.

Every chunk is validated strictly as a `ChatCompletionChunk` (and may hold
no field the type does not declare, except `reasoning_content` in a delta)
and accumulated by the SDK's `ChatCompletionStreamState`; the same bytes are
also served on loopback to `client.chat.completions.stream(...)`, the SDK's
own streaming helper, whose final completion must agree.
"""

import json

import openai
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from sse_replay import Replay, frames, main, no_extras, parse_arguments

def check(body):
    fs = frames(body)
    assert fs[-1] == (None, "[DONE]"), "the stream ends with [DONE]"

    state = ChatCompletionStreamState()
    errors = []
    reasoning = []
    ids = set()
    for event, data in fs[:-1]:
        assert event is None, "chat chunks have no event names"
        payload = json.loads(data)
        if "error" in payload:
            errors.append(payload["error"]["message"])
            continue
        assert not errors, "nothing after an error but [DONE]"
        chunk = ChatCompletionChunk.model_validate(payload, strict=True)
        no_extras(chunk, allowed={"reasoning_content"})
        ids.add((chunk.id, chunk.created, chunk.model))
        delta = chunk.choices[0].delta
        if delta.model_extra and "reasoning_content" in delta.model_extra:
            reasoning.append(delta.model_extra["reasoning_content"])
        state.handle_chunk(chunk)
    assert len(ids) == 1, "one id, created and model for the whole stream"

    final = state.get_final_completion()
    message = final.choices[0].message
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": parse_arguments(c.function.arguments)}
        for c in message.tool_calls or []
    ]

    # The SDK's streaming helper over HTTP.
    with Replay(body) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
        try:
            with client.chat.completions.stream(
                model="any", messages=[{"role": "user", "content": "hi"}]
            ) as stream:
                events = [e.type for e in stream]
                http_final = stream.get_final_completion()
            assert not errors, "an error payload makes the SDK raise"
            http_message = http_final.choices[0].message
            assert http_message.content == message.content
            assert [(c.id, c.function.name, c.function.arguments) for c in http_message.tool_calls or []] == [
                (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []
            ]
            assert http_final.choices[0].finish_reason == final.choices[0].finish_reason
            if calls:
                assert "tool_calls.function.arguments.done" in events
        except openai.APIError as e:
            assert errors and e.message == errors[0], e

    return (
        {
            "text": message.content or "",
            "reasoning": "".join(reasoning),
            "calls": calls,
            "finish": final.choices[0].finish_reason,
            "errors": errors,
        }
    )


if __name__ == "__main__":
    main(check)
