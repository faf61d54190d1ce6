"""What the SDK adapters share: each SDK object is written back as the
server-sent event it was read from and pushed into :class:`SseParser`, the
decoder ``actionstream parse --input sse`` uses, so the events are the
CLI's for the same stream."""

import json
from typing import AbstractSet, Any, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Optional

from . import SseParser, StreamEvent

# An OpenAI-compatible stream ends with this; the SDK reads it and stops, so
# an adapter whose stream ended without an error writes it back.
DONE = b"data: [DONE]\n\n"


def payload(obj: Any, exclude: Optional[AbstractSet[str]] = None) -> str:
    """The JSON text of an SDK object (a pydantic model, as the SDK read it:
    only the fields the provider sent), or of a plain dict."""
    dump = getattr(obj, "model_dump_json", None)
    if dump is not None:
        return str(dump(exclude_unset=True, by_alias=True, exclude=exclude, warnings=False))
    if hasattr(obj, "to_dict") and not isinstance(obj, dict):
        obj = obj.to_dict()
    if exclude:
        obj = {k: v for k, v in obj.items() if k not in exclude}
    return json.dumps(obj, ensure_ascii=False)


def frame(data: str, event: Optional[str] = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode("utf-8")


def drive(
    items: Iterable[Any],
    to_frame: Callable[[Any], Optional[bytes]],
    error_frame: Callable[[BaseException], Optional[bytes]],
    parser: SseParser,
) -> Iterator[StreamEvent]:
    try:
        for item in items:
            data = to_frame(item)
            if data is not None:
                yield from parser.push(data)
    except Exception as err:
        data = error_frame(err)
        if data is not None:
            yield from parser.push(data)
        yield from parser.finish()
        raise
    yield from parser.push(DONE)
    yield from parser.finish()


async def drive_async(
    items: AsyncIterable[Any],
    to_frame: Callable[[Any], Optional[bytes]],
    error_frame: Callable[[BaseException], Optional[bytes]],
    parser: SseParser,
) -> AsyncIterator[StreamEvent]:
    try:
        async for item in items:
            data = to_frame(item)
            if data is not None:
                for event in parser.push(data):
                    yield event
    except Exception as err:
        data = error_frame(err)
        events = parser.push(data) if data is not None else []
        for event in events + parser.finish():
            yield event
        raise
    for event in parser.push(DONE) + parser.finish():
        yield event
