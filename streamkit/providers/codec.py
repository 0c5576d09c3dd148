"""Every wire format's codecs behind one door, by provider name.

:func:`build_request` encodes a conversation (:mod:`streamkit.conversation.messages`), tools
(:mod:`streamkit.conversation.tools`), structured output and options into the JSON body of
one provider's wire format; :func:`parse_request` reads such a body back into
a :class:`~streamkit.Request`, so a gateway can take a request in one format
and send it in another, and ``build_request(provider, parse_request(provider,
body))`` gives ``body`` back. :func:`parse_response` reads a non-streamed JSON
response into the same :class:`~streamkit.ChatResponse` a stream gives. All
three are sans-IO: dicts in, dicts out.

The other direction, answers written: :func:`encode_stream` turns streamkit
events (a :class:`~streamkit.Stream`, any iterable of events, or a finished
:class:`~streamkit.ChatResponse` replayed as one) into the bytes the
provider streams, event by event; :func:`encode_response` writes a response
as the provider's non-streamed body, :func:`encode_error` an error as its HTTP
error answer. Every wire has all three (they are required verbs of its record).

``provider`` is any registry name or alias (:data:`streamkit.PROVIDERS`): the
vendor record says which wire format it speaks and with which dialect, and
the wire's record (:class:`~streamkit.providers.wire_format.WireFormat`) does
the work. This module knows no wire field name.

Malformed bodies: :func:`parse_request` and :func:`parse_response` raise
:class:`~streamkit.model.errors.InvalidBodyError` (a ``ValueError``) for a body that
is not its wire's shape, whatever it holds: wrong types anywhere, nesting
deeper than :data:`~streamkit.model.limits.MAX_JSON_DEPTH`, an integer past
Python's 4,300-digit limit, a value JSON cannot say, text that is not JSON.
:func:`parse_response` raises :class:`~streamkit.model.errors.ProviderError` (with
the partial response) for an error body, as a stream would. A lone surrogate
(JSON's ``"\\ud800"``) is no error: a request keeps it (building the body
again gives it back), a response reads it as its stream reads text holding
one (``?``, see :func:`~streamkit.providers.base.decode_json`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any

import msgspec

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, JsonSchemaOutput, Request, ToolChoice
from ..conversation.tools import Tool, tool
from ..conversation.workbench import ListedTool, without_workbenches
from ..framing.encoding import json_bytes
from ..model.errors import (
    InvalidBodyError,
    ProtocolError,
    ProviderError,
    StreamError,
    StreamkitError,
    UnsupportedFeatureError,
)
from ..model.events import TRUNCATED_PAYLOAD, ErrorEvent, Event, without_cut_payload
from ..model.extras import Extras, origin_of
from ..model.limits import MAX_JSON_DEPTH, json_depth, nested_deeper_than, too_deep
from ..model.response import ChatResponse
from ..model.token_count import TokenCount
from ..model.vendors import ProviderEntry
from .acceptance import answered_calls_only

if TYPE_CHECKING:
    from .counting import TokenCounting
    from .encoder import StreamEncoder
    from .wire_format import WireFormat

__all__ = [
    "EncodedError",
    "EncodedStream",
    "build_request",
    "encode_error",
    "encode_response",
    "encode_stream",
    "encode_token_count",
    "parse_count_request",
    "parse_request",
    "parse_response",
]

Tools = Sequence[ListedTool]


class _Unsaid:
    """The ``stream`` a caller of :func:`build_request` did not give."""


UNSAID = _Unsaid()


def _vendor(provider: str) -> ProviderEntry:
    from . import vendor

    return vendor(provider)


def _tools(tools: Tools | None) -> list[Tool | dict[str, Any]] | None:
    if tools is None:
        return None
    listed = without_workbenches(tools, "build_request() (sans-IO)") or []
    return [t if isinstance(t, (Tool, dict)) else tool(t) for t in listed]


def _json_output(json_output: JsonOutput | None) -> bool | JsonSchemaOutput | None:
    from pydantic import BaseModel

    if isinstance(json_output, type) and issubclass(json_output, BaseModel):
        return JsonSchemaOutput.from_model(json_output)
    if isinstance(json_output, dict):
        return JsonSchemaOutput(name=str(json_output.get("title", "output")), schema=json_output)
    return json_output


def build_request(
    provider: str,
    messages: Sequence[Message] | Request,
    *,
    model: str | None = None,
    tools: Tools | None = None,
    tool_choice: ToolChoice | Tool | None = None,
    json_output: JsonOutput | None = None,
    stream: bool | _Unsaid | None = UNSAID,
    **options: Any,
) -> dict[str, Any]:
    """The JSON body of ``provider``'s wire format for this conversation.

    ``messages`` is a list of messages (a :class:`~streamkit.ChatResponse` counts
    as the assistant turn it is; ``stream`` defaults to ``True``) or a
    :class:`~streamkit.Request` (from :func:`parse_request`), whose fields are
    then used as they are, except what is given here: ``model=`` and
    ``stream=`` win (a client or a gateway sends another wire's request its own
    way), ``options`` fill in what the request does not say (a client's
    defaults, such as asking for usage in a stream). ``tools`` take Python
    functions too (see :func:`streamkit.tool`); a workbench is refused (its
    tools are async to list: pass ``await workbench.list_tools()``, or let
    :class:`~streamkit.Client` list them); ``json_output`` is ``True`` (any
    JSON object), a pydantic model or a JSON schema.
    """
    from . import wire_format

    entry = _vendor(provider)
    wire = wire_format(entry.wire)
    if isinstance(messages, Request):
        request = _given(messages, model=model, stream=stream, options=options,
                         unsaid=wire.streams_unless_said)
    else:
        request = Request(
            messages=list(messages), model=model, tools=_tools(tools),
            tool_choice=tool_choice.name if isinstance(tool_choice, Tool) else tool_choice,
            json_output=_json_output(json_output),
            stream=True if isinstance(stream, _Unsaid) else stream, options=options,
        )
    if entry.options:
        request = dataclasses.replace(request, options=with_defaults(request.options,
                                                                     entry.options))
    request = answered_calls_only(_crossing(request, entry.wire), entry.wire)
    return _readable(wire.build_request(request, entry.dialect), entry.wire)


def _crossing(request: Request, wire: str) -> Request:
    """``request`` with the tools (and their calls) another wire's reader kept
    in the function form ``wire`` has for them (see
    :attr:`~streamkit.providers.wire_format.WireFormat.function_forms`); only
    the wires the tools came from are asked."""
    from . import wire_format

    origins = {origin_of(tool if isinstance(tool, dict) else tool.metadata)
               for tool in request.tools or []}
    for origin in sorted(name for name in origins if name is not None and name != wire):
        forms = wire_format(origin).function_forms
        if forms is not None:
            request = forms.rewrite(request, wire)
    return request


def _readable(body: dict[str, Any], wire: str) -> dict[str, Any]:
    """``body``, when :func:`parse_request` reads it back: a body nested deeper than
    :data:`~streamkit.model.limits.MAX_JSON_DEPTH` is the builder's
    :class:`~streamkit.model.errors.UnsupportedFeatureError`, naming the depth and
    where. A body read within the limit can be written deeper: a wire may hold
    a value further down than the wire it was read from (Ollama's ``format``
    schema is OpenAI Chat's ``response_format.json_schema.schema``); sent, it
    would be refused by streamkit's own reader (a gateway's) and by JSON readers
    of the same limit (serde_json's default). A body JSON cannot say is left to
    whoever encodes it, as before. One pass over the body's containers; only a
    body found too deep is encoded, to say how deep."""
    if not nested_deeper_than(body):
        return body
    try:
        depth = too_deep(json_bytes(body))
    except RecursionError:  # deeper than msgspec goes
        nested = "too deeply to encode"
    except (TypeError, ValueError, OverflowError):
        return body
    else:
        if depth is None:
            return body
        nested = f"{depth} levels deep"
    raise UnsupportedFeatureError(
        wire, f"a request body nested {nested} (deepest at {_deepest_at(body)})",
        f"the limit is {MAX_JSON_DEPTH} levels, which streamkit's reader and other JSON "
        f"readers refuse past: flatten that value (this wire holds it deeper than the wire "
        f"it may have been read from)")


def _deepest_at(body: Any, steps: int = 6) -> str:
    """Where ``body`` nests deepest, its first ``steps`` keys
    (``response_format.json_schema.schema...``): at each step the child of the
    deepest encoding. Only on the refusing path, at most ``steps`` passes over
    the body."""
    path = ""
    node = body
    for _ in range(steps):
        keys: Iterable[Any] = node if isinstance(node, dict) else range(len(node)) \
            if isinstance(node, list) else ()
        deepest = max(keys, key=lambda key: _depth_of(node[key]), default=None)
        if deepest is None:
            break
        path += f"[{deepest}]" if isinstance(node, list) else f".{deepest}" if path \
            else str(deepest)
        node = node[deepest]
    return path


def _depth_of(value: Any) -> int:
    try:
        return json_depth(json_bytes(value))
    except Exception:  # deeper than msgspec goes, or no JSON: the deepest there is
        return MAX_JSON_DEPTH * 1000


def _given(request: Request, *, model: str | None, stream: bool | _Unsaid | None,
           options: Mapping[str, Any], unsaid: bool) -> Request:
    """``request`` with what :func:`build_request`'s caller gave (see there).
    A request that does not say ``stream`` keeps not saying it when what is
    given is what the wire does unsaid (``unsaid``), so a body read and built
    again stays as it was."""
    changes: dict[str, Any] = {}
    if model is not None:
        changes["model"] = model
    if not isinstance(stream, _Unsaid) and not (request.stream is None and stream is unsaid):
        changes["stream"] = stream
    if options:
        changes["options"] = with_defaults(request.options, options)
    return dataclasses.replace(request, **changes) if changes else request


def with_defaults(options: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` over the vendor's default options (Anthropic's ``max_tokens``),
    so that a body built here is the body :class:`~streamkit.Client` sends, and
    a conversation read from a wire that needs no output budget still has one.
    An option given as ``None`` is not given; the options' origin stays
    (:class:`~streamkit.model.extras.Extras`)."""
    merged = {**defaults, **{name: value for name, value in options.items()
                             if value is not None or name not in defaults}}
    return Extras(options.wire, merged) if isinstance(options, Extras) else merged


def parse_request(provider: str, body: dict[str, Any] | bytes | str) -> Request:
    """The :class:`~streamkit.Request` a body of ``provider``'s wire format stands
    for, decoded (a dict) or as it came (the JSON text a server received); a
    malformed body raises :class:`~streamkit.model.errors.InvalidBodyError`."""
    from . import wire_format

    entry = _vendor(provider)
    if isinstance(body, bytes | str):
        body = _request_json(body, entry.wire)
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a request body is a JSON object, not {type(body).__name__}",
                               wire=entry.wire, where="body")
    json_text(body, entry.wire, "request")  # refused before any reader walks it
    try:
        return wire_format(entry.wire).parse_request(body, entry.dialect)
    except InvalidBodyError:
        raise
    except Exception as exc:
        raise _unreadable(exc, entry.wire, "request") from exc


def _counting(provider: str) -> TokenCounting:
    """The count endpoint of ``provider``'s wire; a wire without one is refused."""
    from . import wire_format

    entry = _vendor(provider)
    counting = wire_format(entry.wire).count_tokens
    if counting is None:
        raise UnsupportedFeatureError(entry.wire, "a token count endpoint",
                                      "estimate the count instead (streamkit.estimate_tokens)")
    return counting


def parse_count_request(provider: str, body: dict[str, Any] | bytes | str) -> Request:
    """The :class:`~streamkit.Request` a body sent to ``provider``'s token count
    endpoint stands for (a server's side: the fake provider, the gateway), read
    as the wire's request body it holds; malformed: :class:`InvalidBodyError`."""
    counting = _counting(provider)
    if isinstance(body, bytes | str):
        body = _request_json(body, _vendor(provider).wire)
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a request body is a JSON object, not {type(body).__name__}",
                               wire=_vendor(provider).wire, where="body")
    return parse_request(provider, counting.request_body(body))


def encode_token_count(provider: str, count: TokenCount) -> dict[str, Any]:
    """``count`` as ``provider``'s count endpoint answers it (its SDK reads it)."""
    return _counting(provider).write_answer(count)


def _request_json(text: bytes | str, wire: str) -> Any:
    """A request body's JSON, bounded: deeper than
    :data:`~streamkit.model.limits.MAX_JSON_DEPTH` is refused before any decoder
    recurses; msgspec decodes, and Python's decoder reads what msgspec refuses
    but JSON allows and a request keeps: a lone surrogate, as its escape
    (``"\\ud800"``) or, in text, itself (msgspec reads text as UTF-8, which
    cannot carry one: ``UnicodeEncodeError``)."""
    depth = too_deep(text)
    if depth is not None:
        raise _too_deep(wire, "request", depth)
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, UnicodeEncodeError):
        try:
            return json.loads(text)
        except ValueError as exc:  # UnicodeDecodeError too
            raise InvalidBodyError(f"the {wire} request body is not JSON: {exc}",
                                   wire=wire, where="body") from None


def parse_response(provider: str, body: dict[str, Any] | bytes | str) -> ChatResponse:
    """A non-streamed JSON response of ``provider``'s wire format as a
    :class:`~streamkit.ChatResponse` (the same model a stream gives, with the
    provider's registry name). A malformed body raises
    :class:`~streamkit.model.errors.InvalidBodyError`, an error body the
    :class:`~streamkit.model.errors.ProviderError` its stream would raise."""
    from . import wire_format
    from .base import decode_json

    entry = _vendor(provider)
    try:
        if isinstance(body, (bytes, str)):
            payload = decode_json(body, "response")
        else:
            text = json_text(body, entry.wire, "response")
            # Text: the body holds a lone surrogate, which UTF-8 cannot carry; it is
            # read as its stream would read that text (decode_json says how).
            payload = decode_json(text, "response") if isinstance(text, str) else body
    except ProtocolError as exc:
        raise _not_its_shape(exc, entry.wire) from exc
    try:
        response = wire_format(entry.wire).parse_response(payload, entry.dialect)
    except (InvalidBodyError, ProviderError):
        raise
    except ProtocolError as exc:  # the body is read as its stream: what breaks that stream
        raise _not_its_shape(exc, entry.wire) from exc
    except Exception as exc:
        raise _unreadable(exc, entry.wire, "response") from exc
    response.provider = entry.name
    return response


def json_text(body: Any, wire: str, kind: str) -> bytes | str:
    """``body`` as JSON text (UTF-8 bytes; a ``str`` when it holds a lone
    surrogate, which UTF-8 cannot carry), or the
    :class:`~streamkit.model.errors.InvalidBodyError` that says why it is none: JSON
    nested deeper than :data:`~streamkit.model.limits.MAX_JSON_DEPTH` (every reader
    behind this walks the body, most of them recursively), an integer past
    Python's digit limit, a value JSON cannot say. msgspec encodes in C and
    stops at its own depth limit; the depth is then counted on the text."""
    try:
        text: bytes | str = msgspec.json.encode(body)
    except UnicodeEncodeError:
        text = _text_with_surrogates(body, wire, kind)
    except RecursionError:
        raise _too_deep(wire, kind, None) from None
    except (TypeError, ValueError, OverflowError) as exc:  # a huge integer, a set...
        raise InvalidBodyError(f"the {wire} {kind} body must be JSON: {exc}", wire=wire) from None
    depth = too_deep(text)
    if depth is not None:
        raise _too_deep(wire, kind, depth)
    return text


def _text_with_surrogates(body: Any, wire: str, kind: str) -> str:
    try:
        return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except RecursionError:
        raise _too_deep(wire, kind, None) from None
    except (TypeError, ValueError) as exc:
        raise InvalidBodyError(f"the {wire} {kind} body must be JSON: {exc}", wire=wire) from None


def _too_deep(wire: str, kind: str, depth: int | None) -> InvalidBodyError:
    nested = f"{depth} levels deep" if depth is not None else "too deeply to encode"
    return InvalidBodyError(f"the {wire} {kind} body nests {nested}; the limit is "
                            f"{MAX_JSON_DEPTH}", wire=wire)


def _not_its_shape(exc: ProtocolError, wire: str) -> InvalidBodyError:
    return InvalidBodyError(f"the {wire} response body cannot be read: {exc.message}",
                            wire=wire)


def _unreadable(exc: Exception, wire: str, kind: str) -> InvalidBodyError:
    """The promise's last line. Each class of malformed body is refused where it
    lives (the depth and JSON checks above, each wire's typed readers), and the
    fuzzers (``tests/support/write_fuzzing.py``) count what still reaches this point;
    but a reader that trips over a shape nobody thought of must not leak its
    own exception type (a ``TypeError`` from ``"role": []``) to a caller who was
    promised one. The original stays as ``__cause__``."""
    if isinstance(exc, InvalidBodyError):
        return exc
    if isinstance(exc, RecursionError):
        return _too_deep(wire, kind, None)
    return InvalidBodyError(f"the {wire} {kind} body cannot be read: "
                            f"{type(exc).__name__}: {str(exc)[:300]}", wire=wire)


# ---------------------------------------------------------------- answers written

EventSource = (ChatResponse | Iterable[Event | ChatResponse]
               | AsyncIterable[Event | ChatResponse])
"""What :func:`encode_stream` writes: a finished response, or events (a
:class:`~streamkit.SyncStream` or :class:`~streamkit.Stream` too: the final
response they end with is skipped, its events have said it)."""


def _encoding_wire(provider: str) -> tuple[WireFormat, str | None]:
    """The vendor's wire record and dialect."""
    from . import wire_format

    entry = _vendor(provider)
    return wire_format(entry.wire), entry.dialect


class EncodedStream:
    """The provider's stream bytes for a source of events, written as the events
    come (nothing is buffered beyond what the wire says later): ``for chunk in``
    it over a synchronous source (a response, a list, a
    :class:`~streamkit.SyncStream`), ``async for chunk in`` it over any source.
    ``content_type`` is the media type to serve the bytes with.

    A source that fails (a :class:`~streamkit.Stream` raising
    :class:`~streamkit.model.errors.StreamError` after its first bytes) ends the
    bytes with the wire's in-stream error event, after everything it said
    before, as the provider ends a stream that fails; the error is kept in
    :attr:`error` (it is not raised: the bytes have said it)."""

    def __init__(self, encoder: StreamEncoder, source: EventSource) -> None:
        from ..model.replay import events_of

        self._encoder = encoder
        self._source: Iterable[Any] | AsyncIterable[Any] = (
            events_of(source) if isinstance(source, ChatResponse) else source)
        if isinstance(source, ChatResponse):
            encoder.foreseen_usage = source.usage
        self._error_written = False
        self.content_type = encoder.content_type
        self.error: StreamError | None = None
        """The error the source raised, when it failed."""

    def __iter__(self) -> Iterator[bytes]:
        if not isinstance(self._source, Iterable):
            raise TypeError("an async source of events is encoded with 'async for'")
        for item in _ended(self._source):
            chunk = self._feed(item)
            if chunk:
                yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if not isinstance(self._source, AsyncIterable):
            for chunk in self:
                yield chunk
            return
        async with contextlib.aclosing(_ended_async(self._source)) as items:
            async for item in items:
                chunk = self._feed(item)
                if chunk:
                    yield chunk

    def _feed(self, item: Any) -> bytes:
        """The bytes for one item of the source, its end (``None``) or the error
        it raised: the one step both loops take."""
        if item is None:
            return self._encoder.close()
        if isinstance(item, ChatResponse):
            return b""  # a stream's final item: its events have said it all
        if isinstance(item, StreamError):
            return self._failed(item)
        if type(item) is ErrorEvent:
            self._error_written = True
        return self._encoder.feed(item)

    def _failed(self, error: StreamError) -> bytes:
        """The in-stream error event for a source that raised (none when the
        source's own error event was written already)."""
        self.error = error
        return self.fail(error_event(error))

    def fail(self, event: ErrorEvent) -> bytes:
        """The bytes that end this stream with ``event``, written by its own
        encoder (so a form with a closing, Gemini's JSON array, is closed after
        it): what a server sends when it cannot go on (an answer the wire
        cannot say). None once an error was written."""
        if self._error_written:
            return b""
        self._error_written = True
        return self._encoder.feed(event)


def _ended(source: Iterable[Any]) -> Iterator[Any]:
    """The source's items, then ``None`` when it ends, or the
    :class:`~streamkit.model.errors.StreamError` it raised. Left early, it leaves
    the source open, as its caller found it."""
    try:
        for item in source:  # noqa: UP028  # ``yield from`` would close the source
            yield item
    except StreamError as error:
        yield error
    else:
        yield None


async def _ended_async(source: AsyncIterable[Any]) -> AsyncGenerator[Any, None]:
    """:func:`_ended` of an async source."""
    try:
        async for item in source:
            yield item
    except StreamError as error:
        yield error
    else:
        yield None


def error_event(error: StreamkitError | ErrorEvent | str, status: int | None = None) -> ErrorEvent:
    """``error`` as the :class:`~streamkit.model.events.ErrorEvent` an encoder writes:
    a :class:`~streamkit.model.errors.ProviderError`'s message, code, type and status;
    another error's message (``status`` given wins)."""
    if isinstance(error, ErrorEvent):
        event = error
    elif isinstance(error, ProviderError):
        event = ErrorEvent(message=error.message, code=error.code, error_type=error.error_type,
                           status=error.status, raw=error.raw)
    elif isinstance(error, StreamError):
        event = ErrorEvent(message=error.message)
    else:
        event = ErrorEvent(message=str(error))
    return event if status is None else msgspec.structs.replace(event, status=status)


def encode_stream(provider: str, source: EventSource, *, request: Request | None = None,
                  **options: Any) -> EncodedStream:
    """``provider``'s streaming bytes (SSE) for ``source``: a finished
    :class:`~streamkit.ChatResponse` (replayed as the stream that carries it)
    or streamkit events (a :class:`~streamkit.Stream`, a list...). The bytes
    are what the provider sends, in its exact event sequence, so its official
    SDK reads them. ``request`` is the request the stream answers (a server's:
    the caller's :class:`~streamkit.Request`), where the wire's stream depends
    on what was asked (OpenAI Chat sends its usage chunk only to a request
    that asked for it). ``options`` choose among a wire's forms (Gemini's
    ``array=True``: the JSON array ``streamGenerateContent`` sends without
    ``alt=sse``)."""
    wire, dialect = _encoding_wire(provider)
    if request is not None:
        options = {**wire.answer_options(request), **options}
    return EncodedStream(wire.encode_stream(dialect, **options), source)


def encode_response(provider: str, response: ChatResponse) -> dict[str, Any]:
    """``response`` as ``provider``'s non-streamed JSON body (what the API answers
    with ``stream: false``). A cut event's raw text a reader kept
    (:data:`~streamkit.model.events.TRUNCATED_PAYLOAD`) is not written: it is
    no field of any wire."""
    wire, dialect = _encoding_wire(provider)
    if TRUNCATED_PAYLOAD in response.metadata:
        response = dataclasses.replace(response, metadata=without_cut_payload(response.metadata))
    return wire.encode_response(response, dialect)


@dataclasses.dataclass(frozen=True)
class EncodedError:
    """An error as ``provider`` answers it before any stream: the HTTP status
    and the JSON body, so the provider's SDK raises its own exception for it."""

    status: int
    body: dict[str, Any]
    content_type: str = "application/json"


#: The status an error with none is answered with: the server's own failure.
DEFAULT_ERROR_STATUS = 500


def encode_error(provider: str, error: StreamkitError | ErrorEvent | str, *,
                 status: int | None = None) -> EncodedError:
    """``error`` as ``provider``'s HTTP error answer (status and body): a
    :class:`~streamkit.model.errors.ProviderError` keeps its status, message, type
    and code; ``status`` given wins; an error with none is a 500."""
    wire, dialect = _encoding_wire(provider)
    event = error_event(error, status)
    code = event.status if event.status is not None and 400 <= event.status <= 599 \
        else DEFAULT_ERROR_STATUS
    return EncodedError(code, wire.encode_error(event, code, dialect))
