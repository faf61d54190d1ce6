"""Events from the OpenAI SDK's streams.

``events(stream)`` reads what ``client.chat.completions.create(...,
stream=True)`` returns (``ChatCompletionChunk`` objects: ``delta.content``
is parsed as text, ``delta.reasoning_content`` / ``delta.reasoning`` is
:class:`~actionstream.Reasoning`, ``delta.tool_calls`` are native actions
with syntax ``native`` and tag ``openai``), or the Responses API's
``client.responses.create(..., stream=True)`` events; ``events_async`` reads
the async client's streams. The keyword options are
:class:`~actionstream.Parser`'s, for the text.

The events are those of ``actionstream parse --input sse`` on the same
stream. An error the provider sends in the stream makes the SDK raise: the
events up to it come first, then an :class:`~actionstream.Error` with the
provider's message and the actions it cut off, then the SDK's exception is
raised again.
"""

from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, Optional

from . import StreamEvent
from . import SseParser
from ._sse import drive, drive_async, frame, payload

__all__ = ["events", "events_async"]


class _Frames:
    """Writes the SDK's objects back as server-sent events."""

    def __init__(self) -> None:
        # Responses API events carry their type, which names the SSE event.
        self.responses = False

    def frame(self, item: Any) -> Optional[bytes]:
        kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
        if isinstance(kind, str):
            self.responses = True
            return frame(payload(item), kind)
        return frame(payload(item))

    def error(self, err: BaseException) -> Optional[bytes]:
        # The SDK raises `APIError` with the stream's `error` object as its
        # body: `{"error": …}` in chat completions, an `error` event in the
        # Responses API.
        body = getattr(err, "body", None)
        if not isinstance(body, dict):
            return None
        if self.responses:
            return frame(payload({"type": "error", "error": body}), "error")
        return frame(payload({"error": body}))


def events(stream: Iterable[Any], **options: Any) -> Iterator[StreamEvent]:
    """The events of a chat-completions (or Responses) stream."""
    parser = SseParser(**options)
    frames = _Frames()
    return drive(stream, frames.frame, frames.error, parser)


def events_async(stream: AsyncIterable[Any], **options: Any) -> AsyncIterator[StreamEvent]:
    """The events of an async chat-completions (or Responses) stream."""
    parser = SseParser(**options)
    frames = _Frames()
    return drive_async(stream, frames.frame, frames.error, parser)
