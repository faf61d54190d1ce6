"""The `openai` Python client against `actionstream serve`, for tests/serve_clients.rs.

Usage: python3 openai_gateway.py BASE_URL MODEL TOOLS_JSON

Prints one JSON line per finding, flushed at once, so the Rust test can act
while the stream is still open:

- {"event": "first_call", ...} as soon as the first tool call's arguments,
  accumulated by the SDK's ChatCompletionStreamState, parse as JSON (the
  test then releases the upstream, which holds back everything after that
  call until then);
- {"event": "stream", ...} the streamed answer as the SDK accumulated it;
- {"event": "helper", ...} the same through client.chat.completions.stream();
- {"event": "whole", ...} a non-streaming request;
- {"event": "bad_request", ...} the SDK's error for a request the gateway refuses.
"""

import json
import sys

import openai
from openai.lib.streaming.chat import ChatCompletionStreamState

base_url, model, tools_json = sys.argv[1], sys.argv[2], sys.argv[3]
tools = json.loads(tools_json)
client = openai.OpenAI(base_url=base_url + "/v1", api_key="client-key", max_retries=0, timeout=60)
messages = [{"role": "user", "content": "What is the weather in Dallas and Orlando?"}]


def say(**fields):
    print(json.dumps(fields), flush=True)


def calls_of(message):
    return [
        {"id": c.id, "type": c.type, "name": c.function.name, "arguments": json.loads(c.function.arguments)}
        for c in message.tool_calls or []
    ]


# 1. create(stream=True): typed chunks, accumulated by the SDK's own state.
state = ChatCompletionStreamState(input_tools=tools)
reasoning = []
first_sent = False
chunks = 0
for chunk in client.chat.completions.create(model=model, messages=messages, tools=tools, stream=True):
    chunks += 1
    assert chunk.object == "chat.completion.chunk"
    for choice in chunk.choices:
        extra = choice.delta.model_extra or {}
        if extra.get("reasoning_content"):
            reasoning.append(extra["reasoning_content"])
    state.handle_chunk(chunk)
    if not first_sent:
        snapshot = state.current_completion_snapshot
        calls = snapshot.choices[0].message.tool_calls or [] if snapshot.choices else []
        if calls:
            try:
                arguments = json.loads(calls[0].function.arguments)
            except ValueError:
                arguments = None
            if arguments is not None:
                first_sent = True
                say(event="first_call", name=calls[0].function.name, arguments=arguments,
                    finish=snapshot.choices[0].finish_reason, chunks=chunks)
final = state.get_final_completion()
message = final.choices[0].message
say(event="stream", content=message.content, reasoning="".join(reasoning), calls=calls_of(message),
    finish=final.choices[0].finish_reason, chunks=chunks)

# 2. The SDK's streaming helper: its events and its final completion.
with client.chat.completions.stream(model=model, messages=messages, tools=tools) as stream:
    kinds = []
    done_arguments = []
    for event in stream:
        kinds.append(event.type)
        if event.type == "tool_calls.function.arguments.done":
            done_arguments.append(json.loads(event.arguments))
    helper = stream.get_final_completion()
say(event="helper", kinds=sorted(set(kinds)), done_arguments=done_arguments,
    calls=calls_of(helper.choices[0].message), finish=helper.choices[0].finish_reason)

# 3. Not streamed: one message.
whole = client.chat.completions.create(model=model, messages=messages, tools=tools, stream=False)
message = whole.choices[0].message
say(event="whole", content=message.content, reasoning=(message.model_extra or {}).get("reasoning_content"),
    calls=calls_of(message), finish=whole.choices[0].finish_reason)

# 4. A request the gateway refuses: the SDK raises with the gateway's message.
try:
    client.chat.completions.create(model=model, messages=messages, n=0)
    say(event="bad_request", raised=False)
except openai.BadRequestError as e:
    say(event="bad_request", raised=True, status=e.status_code, message=e.message, type=e.type, param=e.param)
