"""The `anthropic` and `openai` Python clients against the gateway's agent
APIs (`/v1/messages`, `/v1/messages/count_tokens`, `/v1/responses`), for
tests/serve_agents.rs.

Usage: python3 agent_apis.py BASE_URL MODEL

The upstream behind the gateway writes a Qwen3-Coder `write_file` call (a
prompt containing "break" makes it break off mid-call). Prints one JSON
line per finding:

- {"event": "messages_stream", ...}: `client.messages.stream(...)` and its
  typed accumulator's `get_final_message()`;
- {"event": "messages_whole", ...}: `client.messages.create(...)`;
- {"event": "count_tokens", ...}: `client.messages.count_tokens(...)`;
- {"event": "messages_bad_block", ...}: the SDK's error for a block the
  gateway cannot carry;
- {"event": "messages_broken", ...}: what the SDK raises when the upstream
  breaks off;
- {"event": "responses_stream", ...}: `client.responses.stream(...)` and
  `get_final_response()`;
- {"event": "responses_whole", ...}: `client.responses.create(...)`;
- {"event": "responses_stateful", ...}: the SDK's error for
  `previous_response_id`;
- {"event": "responses_broken", ...}: what the SDK sees when the upstream
  breaks off (it does not raise: an `error` event, then `response.failed`).
"""

import json
import sys

import anthropic
import openai

base_url, model = sys.argv[1], sys.argv[2]
claude = anthropic.Anthropic(base_url=base_url, api_key="client-key", max_retries=0, timeout=60)
oai = openai.OpenAI(base_url=base_url + "/v1", api_key="client-key", max_retries=0, timeout=60)

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}
ANTHROPIC_TOOLS = [{"name": "write_file", "description": "Writes a file.", "input_schema": SCHEMA}]
RESPONSES_TOOLS = [
    {"type": "function", "name": "write_file", "description": "Writes a file.", "parameters": SCHEMA, "strict": False},
    {"type": "web_search"},
]


def say(**fields):
    print(json.dumps(fields), flush=True)


def message_summary(message):
    blocks = []
    for block in message.content:
        if block.type == "text":
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "thinking":
            blocks.append({"type": "thinking", "thinking": block.thinking})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        else:
            blocks.append({"type": block.type})
    return {
        "id": message.id,
        "blocks": blocks,
        "stop_reason": message.stop_reason,
        "usage": {"input_tokens": message.usage.input_tokens, "output_tokens": message.usage.output_tokens},
    }


def response_summary(response):
    items = []
    for item in response.output:
        if item.type == "message":
            items.append({"type": "message", "text": "".join(p.text for p in item.content if p.type == "output_text")})
        elif item.type == "reasoning":
            items.append({"type": "reasoning", "text": "".join(p.text for p in (item.content or []))})
        elif item.type == "function_call":
            items.append(
                {
                    "type": "function_call",
                    "call_id": item.call_id,
                    "name": item.name,
                    "arguments": json.loads(item.arguments),
                    "status": item.status,
                }
            )
        else:
            items.append({"type": item.type})
    usage = response.usage
    return {
        "id": response.id,
        "status": response.status,
        "items": items,
        "usage": None if usage is None else {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


def messages_args(prompt):
    return dict(
        model=model,
        max_tokens=4096,
        system=[{"type": "text", "text": "You are a coding agent.", "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": prompt}],
        tools=ANTHROPIC_TOOLS,
    )


# Anthropic Messages, streamed through the SDK's typed accumulator.
with claude.messages.stream(**messages_args("Write out/notes.txt.")) as stream:
    deltas = 0
    for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
            deltas += 1
    final = stream.get_final_message()
say(event="messages_stream", input_json_deltas=deltas, **message_summary(final))

say(event="messages_whole", **message_summary(claude.messages.create(**messages_args("Write out/notes.txt."))))

count = claude.messages.count_tokens(
    model=model, messages=[{"role": "user", "content": "Write out/notes.txt."}], tools=ANTHROPIC_TOOLS
)
say(event="count_tokens", input_tokens=count.input_tokens)

try:
    claude.messages.create(
        model=model,
        max_tokens=100,
        messages=[{"role": "user", "content": [{"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]}],
    )
    say(event="messages_bad_block", raised=None)
except anthropic.BadRequestError as e:
    say(event="messages_bad_block", raised=type(e).__name__, status=e.status_code, message=str(e))

try:
    with claude.messages.stream(**messages_args("Write it, then break.")) as stream:
        for _ in stream:
            pass
    say(event="messages_broken", raised=None)
except anthropic.APIError as e:
    say(event="messages_broken", raised=type(e).__name__, message=str(e))

# OpenAI Responses, streamed through the SDK's typed accumulator.
with oai.responses.stream(
    model=model,
    input=[
        {"type": "message", "role": "developer", "content": "You are a coding agent."},
        {"type": "message", "role": "user", "content": "Write out/notes.txt."},
    ],
    tools=RESPONSES_TOOLS,
    store=False,
    parallel_tool_calls=True,
) as stream:
    kinds = set()
    for event in stream:
        kinds.add(event.type)
    final = stream.get_final_response()
say(event="responses_stream", kinds=sorted(kinds), **response_summary(final))

whole = oai.responses.create(model=model, input="Write out/notes.txt.", tools=RESPONSES_TOOLS, store=False)
say(event="responses_whole", **response_summary(whole))

try:
    oai.responses.create(model=model, input="again", previous_response_id="resp_123")
    say(event="responses_stateful", raised=None)
except openai.BadRequestError as e:
    say(event="responses_stateful", raised=type(e).__name__, status=e.status_code, message=str(e))

try:
    with oai.responses.stream(model=model, input="Write it, then break.", tools=RESPONSES_TOOLS) as stream:
        seen = []
        for event in stream:
            seen.append(event.type)
    say(event="responses_broken", raised=None, error_event="error" in seen, last=seen[-1] if seen else None)
except openai.APIError as e:
    say(event="responses_broken", raised=type(e).__name__, message=str(e))
