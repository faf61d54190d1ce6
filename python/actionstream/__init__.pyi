from typing import Any, ClassVar, Literal, Optional, Self, Union, final

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

@final
class Narrative:
    """Text that is certain to be narrative; adjacent ones may be merged."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Reasoning:
    """Reasoning the model wrote apart from its answer."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ActionStarted:
    """An action's name is known, or its block ended without one."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def syntax(self) -> Literal["fence", "tag", "native", "dialect"]: ...
    @property
    def tag(self) -> str: ...
    def __new__(cls, id: int, name: Optional[str], syntax: str, tag: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ActionDelta:
    """More raw text of a started action's JSON (``action_deltas=True``)."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def id(self) -> int: ...
    @property
    def text(self) -> str: ...
    def __new__(cls, id: int, text: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ArgumentsDelta:
    """The next piece of a started action's arguments as compact JSON
    (``argument_deltas=True``); the pieces of one action concatenate to a
    JSON text of its arguments."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def id(self) -> int: ...
    @property
    def json(self) -> str: ...
    def __new__(cls, id: int, json: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ActionComplete:
    """An action closed and validated."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def raw(self) -> str: ...
    @property
    def span(self) -> Optional[tuple[int, int]]:
        """Byte offsets ``[start, end)`` of the block in the UTF-8 text;
        ``None`` for a provider's native tool call."""
    @property
    def repairs(self) -> list[str]: ...
    @property
    def attributes(self) -> dict[str, str]: ...
    def __new__(
        cls,
        id: int,
        name: str,
        arguments: dict[str, Any],
        raw: str,
        span: Optional[tuple[int, int]] = None,
        repairs: Optional[list[str]] = None,
        attributes: Optional[dict[str, str]] = None,
    ) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ActionInvalid:
    """An action that could not be read, was cut off, or did not validate."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def id(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def errors(self) -> list[str]: ...
    @property
    def raw(self) -> str: ...
    @property
    def span(self) -> Optional[tuple[int, int]]: ...
    def __new__(
        cls,
        id: int,
        name: Optional[str],
        errors: list[str],
        raw: str,
        span: Optional[tuple[int, int]] = None,
    ) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Error:
    """A stream-level problem in a provider's stream."""

    __match_args__: ClassVar[tuple[str, ...]]
    @property
    def message(self) -> str: ...
    def __new__(cls, message: str) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...

Event = Union[
    Narrative,
    Reasoning,
    ActionStarted,
    ActionDelta,
    ArgumentsDelta,
    ActionComplete,
    ActionInvalid,
]
StreamEvent = Union[Event, Error]

@final
class Parser:
    """The streaming parser of one response's text.

    Options (keyword only) are the CLI's ``parse`` flags: ``dialects`` (names:
    ``actions`` or a model dialect), ``model`` (a model id whose family
    chooses the dialects), ``tools`` (the request's tool list, any provider's
    form), ``schema`` (action names to JSON Schemas, or one union),
    ``strict``, ``max_block_bytes``, ``argument_deltas``, ``action_deltas``,
    ``reasoning_open``, ``calls_in_reasoning``, ``fence_tags``, ``xml_tags``,
    ``discriminators``. ``reasoning_open=None`` (the default) lets ``model``
    decide (on for DeepSeek-R1, Qwen3 ``*-Thinking-2507``, Olmo 3 Think and
    the other families whose template opens reasoning); ``False`` is the
    CLI's ``--no-reasoning-open``. Bad options raise ``ValueError`` with the
    CLI's message.
    """

    def __new__(
        cls,
        *,
        dialects: Optional[list[str]] = None,
        model: Optional[str] = None,
        tools: Optional[Union[list[dict[str, Any]], dict[str, Any]]] = None,
        schema: Optional[dict[str, Any]] = None,
        strict: bool = False,
        max_block_bytes: Optional[int] = None,
        argument_deltas: bool = False,
        action_deltas: bool = False,
        reasoning_open: Optional[bool] = None,
        calls_in_reasoning: bool = False,
        fence_tags: Optional[list[str]] = None,
        xml_tags: Optional[list[str]] = None,
        discriminators: Optional[list[str]] = None,
    ) -> Self: ...
    def push(self, data: Union[str, bytes]) -> list[Event]:
        """Pushes the next piece (``bytes`` may end inside a character);
        returns the events it makes certain."""
    def finish(self) -> list[Event]:
        """Ends the response; the parser is then ready for a new one."""
    @property
    def replaced(self) -> int:
        """Invalid UTF-8 sequences in pushed bytes, read as U+FFFD."""
    @property
    def buffered(self) -> int:
        """Bytes of text the parser holds."""

@final
class SseParser:
    """The parser of a provider's server-sent-event stream (OpenAI chat
    completions or Responses, Anthropic Messages, Gemini), as ``actionstream
    parse --input sse``. Takes :class:`Parser`'s options."""

    def __new__(
        cls,
        *,
        dialects: Optional[list[str]] = None,
        model: Optional[str] = None,
        tools: Optional[Union[list[dict[str, Any]], dict[str, Any]]] = None,
        schema: Optional[dict[str, Any]] = None,
        strict: bool = False,
        max_block_bytes: Optional[int] = None,
        argument_deltas: bool = False,
        action_deltas: bool = False,
        reasoning_open: Optional[bool] = None,
        calls_in_reasoning: bool = False,
        fence_tags: Optional[list[str]] = None,
        xml_tags: Optional[list[str]] = None,
        discriminators: Optional[list[str]] = None,
    ) -> Self: ...
    def push(self, data: Union[str, bytes]) -> list[StreamEvent]: ...
    def finish(self) -> list[StreamEvent]: ...

def dialects() -> list[str]:
    """The built-in model dialects."""

def dialects_for_model(model: str) -> list[str]:
    """The dialects a model id's family reads; ``ValueError`` for none."""

def parse(text: Union[str, bytes], **options: Any) -> list[Event]:
    """The events of a whole response."""
