"""Events from the Anthropic SDK's streams.

``events(stream)`` reads what ``client.messages.create(..., stream=True)``
returns (``RawMessageStreamEvent`` objects), or the stream of ``with
client.messages.stream(...) as stream`` (its helper events, ``text``,
``input_json`` and the like, are skipped: the raw events carry the same).
``text_delta`` text is parsed as text, ``thinking`` blocks are
:class:`~actionstream.Reasoning`, ``tool_use`` blocks are native actions with
syntax ``native`` and tag ``anthropic``. ``events_async`` reads the async
client's streams. The keyword options are :class:`~actionstream.Parser`'s,
for the text.

The events are those of ``actionstream parse --input sse`` on the same
stream. An ``error`` event makes the SDK raise: the events up to it come
first, then an :class:`~actionstream.Error` with the provider's message and
the actions it cut off, then the SDK's exception is raised again.
"""

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, Optional

from . import StreamEvent
from . import SseParser
from ._sse import drive, drive_async, frame, payload

__all__ = ["events", "events_async"]

# The events of the Messages stream as the API sends them.
RAW = {
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
    "error",
}

# What the SDK's stream helper adds to raw events (snapshots of the message
# so far), left out when they are written back.
ADDED = {"message_stop": {"message"}, "content_block_stop": {"content_block"}}


def _frame(item: Any) -> Optional[bytes]:
    kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
    if kind not in RAW:
        return None
    return frame(payload(item, ADDED.get(kind)), kind)


def _error_frame(err: BaseException) -> Optional[bytes]:
    # The SDK raises an `APIStatusError` whose body is the `error` event.
    body = getattr(err, "body", None)
    if not isinstance(body, dict):
        return None
    if body.get("type") != "error":
        body = {"type": "error", "error": body}
    return frame(payload(body), "error")


def events(stream: Iterable[Any], **options: Any) -> Iterator[StreamEvent]:
    """The events of a Messages stream."""
    return drive(stream, _frame, _error_frame, SseParser(**options))


def events_async(stream: AsyncIterable[Any], **options: Any) -> AsyncIterator[StreamEvent]:
    """The events of an async Messages stream."""
    return drive_async(stream, _frame, _error_frame, SseParser(**options))
