"""`--output openai-responses` read by the `openai` Python package.

Every event is validated strictly against the SDK's `ResponseStreamEvent`
union (a pydantic `TypeAdapter`; no undeclared fields), its event name must
be its type, its `sequence_number` must count from 0, and the events are
accumulated by the SDK's `ResponseStreamState`; the same bytes are also
served on loopback to `client.responses.stream(...)`, whose final response
must agree.
"""

import json

import openai
from openai._types import omit
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter

from sse_replay import Replay, frames, main, no_extras, parse_arguments

def shape(item):
    """What an output item says, without the SDK's parsed additions."""
    dumped = item.model_dump(exclude_none=True)
    dumped.pop("parsed_arguments", None)
    for part in dumped.get("content") or []:
        part.pop("parsed", None)
    return dumped


ADAPTER = TypeAdapter(ResponseStreamEvent)


def check(body):
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    errors = []
    last = None
    for n, (event, data) in enumerate(frames(body)):
        payload = json.loads(data)
        assert event == payload["type"], "the event name is the type"
        parsed = ADAPTER.validate_python(payload, strict=True)
        no_extras(parsed)
        assert parsed.sequence_number == n, "sequence numbers count from 0"
        if parsed.type == "error":
            errors.append(parsed.message)
        state.handle_event(parsed)
        last = parsed

    assert last.type in ("response.completed", "response.failed"), last.type
    response = last.response
    if last.type == "response.completed":
        # The state's own final response (with items parsed by the SDK).
        final = state.handle_event(last)[-1].response
        assert [i.id for i in final.output] == [i.id for i in response.output]
    else:
        assert errors and response.error.message == errors[0]

    text, reasoning, calls = [], [], []
    for item in response.output:
        if item.type == "message":
            text.extend(part.text for part in item.content)
        elif item.type == "reasoning":
            reasoning.extend(part.text for part in item.content or [])
        elif item.type == "function_call":
            calls.append(
                {
                    "id": item.call_id,
                    "name": item.name,
                    "arguments": parse_arguments(item.arguments) if item.status == "completed" else None,
                    "status": item.status,
                }
            )

    # The SDK's streaming helper over HTTP.
    with Replay(body) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
        with client.responses.stream(model="any", input="hi") as stream:
            kinds = [e.type for e in stream]
            if last.type == "response.completed":
                http_final = stream.get_final_response()
                assert [shape(i) for i in http_final.output] == [shape(i) for i in response.output]
                assert http_final.output_text == "".join(text)
        assert kinds[-1] == last.type

    return (
        {
            "text": "".join(text),
            "reasoning": "".join(reasoning),
            "calls": calls,
            "finish": response.status,
            "errors": errors,
        }
    )


if __name__ == "__main__":
    main(check)
