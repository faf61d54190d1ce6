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
from ._native import SseParser
from ._sse import drive, drive_async, frame, payload

__all__ = ["events", "events_async"]


def _frame(item: Any) -> Optional[bytes]:
    # Responses API events carry their type, which the SSE event names.
    kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
    return frame(payload(item), kind if isinstance(kind, str) else None)


def _error_frame(err: BaseException) -> Optional[bytes]:
    # The SDK raises `APIError` with the stream's `error` object as its body.
    body = getattr(err, "body", None)
    if not isinstance(body, dict):
        return None
    if "error" not in body:
        body = {"error": body}
    return frame(payload(body))


def events(stream: Iterable[Any], **options: Any) -> Iterator[StreamEvent]:
    """The events of a chat-completions (or Responses) stream."""
    return drive(stream, _frame, _error_frame, SseParser(**options))


def events_async(stream: AsyncIterable[Any], **options: Any) -> AsyncIterator[StreamEvent]:
    """The events of an async chat-completions (or Responses) stream."""
    return drive_async(stream, _frame, _error_frame, SseParser(**options))
