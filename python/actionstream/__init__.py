"""Read an LLM's response while it streams and pull out the tool calls in it.

A :class:`Parser` is pushed the response in chunks (``str``, or ``bytes`` that
may end inside a character) and returns the events each push makes certain:
:class:`Narrative` text at once, :class:`ActionStarted` as soon as an
action's name is known, :class:`ActionComplete` or :class:`ActionInvalid`
in the push that closes its block. ``to_dict()`` of an event is the JSON
line ``actionstream parse`` prints for it.

``actionstream.openai.events(stream)`` and
``actionstream.anthropic.events(stream)`` read the official SDKs' streams.
"""

from typing import Union

from ._native import (
    ActionComplete,
    ActionDelta,
    ActionInvalid,
    ActionStarted,
    ArgumentsDelta,
    Error,
    Narrative,
    Parser,
    Reasoning,
    SseParser,
    dialects,
    dialects_for_model,
)

Event = Union[
    Narrative,
    Reasoning,
    ActionStarted,
    ActionDelta,
    ArgumentsDelta,
    ActionComplete,
    ActionInvalid,
]
"""An event of a response's text."""

StreamEvent = Union[Event, Error]
"""An event of a provider's stream: a text event, or a stream-level error."""

__all__ = [
    "ActionComplete",
    "ActionDelta",
    "ActionInvalid",
    "ActionStarted",
    "ArgumentsDelta",
    "Error",
    "Event",
    "Narrative",
    "Parser",
    "Reasoning",
    "SseParser",
    "StreamEvent",
    "dialects",
    "dialects_for_model",
    "parse",
]


def parse(text: Union[str, bytes], **options) -> "list[Event]":
    """The events of a whole response (the options are :class:`Parser`'s)."""
    parser = Parser(**options)
    return parser.push(text) + parser.finish()
