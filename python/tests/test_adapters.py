"""The SDK adapters fed recorded provider streams give the events of
`actionstream parse --input sse` on the same bytes.

Each stream is fed three ways: parsed frame by frame into the SDK's own
types (`ChatCompletionChunk`, `ResponseStreamEvent`,
`RawMessageStreamEvent`) as the SDK's streams build them (`construct_type`:
no validation, so a provider's `"choices": null` passes); served on loopback
to the real SDK client, whose stream is passed as it comes; and the same
through the async client.
"""

import asyncio
import json
import os

import pytest

if os.environ.get("ACTIONSTREAM_REQUIRE_CLIENTS"):
    import anthropic
    import openai
else:
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")

from anthropic.types import RawMessageStreamEvent  # noqa: E402
from openai.types.chat import ChatCompletionChunk  # noqa: E402
from openai.types.responses import ResponseStreamEvent  # noqa: E402
from anthropic._models import construct_type as anthropic_type  # noqa: E402
from openai._models import construct_type as openai_type  # noqa: E402
from sse_replay import Replay  # noqa: E402

import actionstream.anthropic  # noqa: E402
import actionstream.openai  # noqa: E402
from conftest import ROOT, cli, dicts, merged, same_lines  # noqa: E402

DATA = ROOT / "tests/data"
CHAT = sorted(DATA.glob("openai_*.sse")) + sorted(DATA.glob("providers/chat_*.sse"))
RESPONSES = sorted(DATA.glob("providers/openai_responses_*.sse"))
ANTHROPIC = sorted(DATA.glob("anthropic_*.sse")) + sorted(DATA.glob("providers/anthropic_*.sse"))
MESSAGES = [{"role": "user", "content": "hi"}]


def rel(path):
    return str(path.relative_to(ROOT))


def expected(path, *flags):
    code, lines, stderr = cli("parse", "--input", "sse", *flags, rel(path))
    assert code == 0, stderr
    return merged(lines)


def payloads(path):
    """(event name, JSON value) of each data frame of a recorded stream."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        event, data = None, None
        for line in block.split("\n"):
            if line.startswith("event:"):
                event = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data = line[len("data:") :].strip()
        if data and data != "[DONE]":
            out.append((event, json.loads(data)))
    return out


def body(path):
    """The bytes a server sends: a last frame the file leaves without its
    blank line gets one (the SDKs drop an unterminated event)."""
    data = path.read_bytes()
    return data if data.endswith(b"\n\n") else data.rstrip(b"\n") + b"\n\n"


def typed(path, build, error, body):
    """The frames of a recorded stream as the SDK's objects, in order; at
    the provider's error payload, the SDK's exception is raised, as the
    SDK's stream does."""
    import httpx2

    for _, p in payloads(path):
        if p.get("type") == "ping":
            continue  # the SDK's stream drops pings
        if is_error(p):
            request = httpx2.Request("POST", "http://127.0.0.1/")
            raise error("error in the stream", request, body=body(p))
        yield build(p)


# What the SDKs' `APIError` carries as its body: OpenAI's stream the
# payload's `error` object, Anthropic's the whole `error` event.
OPENAI_BODY = lambda p: p["error"]  # noqa: E731
ANTHROPIC_BODY = lambda p: p  # noqa: E731


def is_error(payload):
    return "error" in payload or payload.get("type") == "error"


def collect(events, errors):
    """The events of a sync adapter, and whether the SDK raised."""
    got = []
    try:
        for e in events:
            got.append(e)
    except errors:
        return got, True
    return got, False


# --- OpenAI chat completions -------------------------------------------------


@pytest.mark.parametrize("path", CHAT, ids=rel)
def test_chat_chunks_as_sdk_types(path):
    chunks = typed(path, lambda p: openai_type(type_=ChatCompletionChunk, value=p), openai.APIError, OPENAI_BODY)
    got, raised = collect(actionstream.openai.events(chunks), openai.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", CHAT, ids=rel)
def test_chat_stream_of_the_real_client(path):
    with Replay(body(path)) as url:
        client = openai.OpenAI(base_url=url, api_key="test", max_retries=0)
        stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        got, raised = collect(actionstream.openai.events(stream), openai.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", CHAT, ids=rel)
def test_chat_stream_of_the_async_client(path):
    async def go():
        with Replay(body(path)) as url:
            client = openai.AsyncOpenAI(base_url=url, api_key="test", max_retries=0)
            stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
            got = []
            try:
                async for e in actionstream.openai.events_async(stream):
                    got.append(e)
            except openai.APIError:
                return got, True
            return got, False

    got, raised = asyncio.run(go())
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


def test_chat_options_reach_the_text_parser():
    path = DATA / "openai_fenced_action.sse"
    chunks = [openai_type(type_=ChatCompletionChunk, value=p) for _, p in payloads(path)]
    got = list(actionstream.openai.events(iter(chunks), strict=True))
    same_lines(merged(dicts(got)), expected(path, "--strict"))
    with pytest.raises(ValueError, match="unknown dialect"):
        actionstream.openai.events(iter(chunks), dialects=["nope"])


# --- OpenAI Responses --------------------------------------------------------


@pytest.mark.parametrize("path", RESPONSES, ids=rel)
def test_responses_events_as_sdk_types(path):
    events = typed(path, lambda p: openai_type(type_=ResponseStreamEvent, value=p), openai.APIError, OPENAI_BODY)
    got, raised = collect(actionstream.openai.events(events), openai.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", RESPONSES, ids=rel)
def test_responses_stream_of_the_real_client(path):
    with Replay(body(path)) as url:
        client = openai.OpenAI(base_url=url, api_key="test", max_retries=0)
        stream = client.responses.create(model="m", input="hi", stream=True)
        got, raised = collect(actionstream.openai.events(stream), openai.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


# --- Anthropic Messages ------------------------------------------------------


@pytest.mark.parametrize("path", ANTHROPIC, ids=rel)
def test_anthropic_events_as_sdk_types(path):
    events = typed(path, lambda p: anthropic_type(type_=RawMessageStreamEvent, value=p), anthropic.APIError, ANTHROPIC_BODY)
    got, raised = collect(actionstream.anthropic.events(events), anthropic.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", ANTHROPIC, ids=rel)
def test_anthropic_stream_of_the_real_client(path):
    with Replay(body(path)) as url:
        client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
        stream = client.messages.create(model="m", max_tokens=64, messages=MESSAGES, stream=True)
        got, raised = collect(actionstream.anthropic.events(stream), anthropic.APIError)
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", ANTHROPIC, ids=rel)
def test_anthropic_stream_helper(path):
    # `messages.stream()` adds its own events (text, input_json, …) and
    # snapshots: the adapter reads the raw events among them.
    with Replay(body(path)) as url:
        client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
        got, raised = [], False
        try:
            with client.messages.stream(model="m", max_tokens=64, messages=MESSAGES) as stream:
                for e in actionstream.anthropic.events(stream):
                    got.append(e)
        except anthropic.APIError:
            raised = True
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


@pytest.mark.parametrize("path", ANTHROPIC, ids=rel)
def test_anthropic_stream_of_the_async_client(path):
    async def go():
        with Replay(body(path)) as url:
            client = anthropic.AsyncAnthropic(base_url=url, api_key="test", max_retries=0)
            stream = await client.messages.create(model="m", max_tokens=64, messages=MESSAGES, stream=True)
            got = []
            try:
                async for e in actionstream.anthropic.events_async(stream):
                    got.append(e)
            except anthropic.APIError:
                return got, True
            return got, False

    got, raised = asyncio.run(go())
    same_lines(merged(dicts(got)), expected(path))
    assert raised == any(is_error(p) for _, p in payloads(path))


def test_a_native_call_is_an_action():
    path = DATA / "anthropic_tool_use.sse"
    events = [anthropic_type(type_=RawMessageStreamEvent, value=p) for _, p in payloads(path) if p.get("type") != "ping"]
    got = list(actionstream.anthropic.events(iter(events)))
    started = {e.id: e for e in got if isinstance(e, actionstream.ActionStarted)}
    native = [e for e in got if isinstance(e, actionstream.ActionComplete) and started[e.id].syntax == "native"]
    assert native and started[native[0].id].tag == "anthropic"
    assert native[0].span is None and native[0].attributes["call_id"].startswith("toolu_")
