"""An autogen ``ChatCompletionClient`` over :class:`streamkit.Client`.

``StreamkitChatCompletionClient("anthropic:claude-sonnet-4-5")`` drops into any
autogen agent (``AssistantAgent(model_client=...)``) and reaches every provider
of :data:`streamkit.PROVIDERS` with streamkit's parsing: ids set once, parallel
calls kept apart, usage counted once. Tested against autogen-core and
autogen-agentchat 0.7.5 (``pip install 'streamkit-llm[autogen]'``).
Workbenches go both ways with :func:`to_autogen_workbench` and
:func:`from_autogen_workbench` (:mod:`streamkit.adapters.autogen_tools`).

=======================================  =========================================
autogen_core.models                      streamkit
=======================================  =========================================
``SystemMessage``                        :class:`~streamkit.conversation.messages.SystemMessage`
``UserMessage`` (``str``, ``Image``)     :class:`~streamkit.conversation.messages.UserMessage`
                                         (text, a PNG :class:`DataBlock` per
                                         image); ``source`` (the sending agent's
                                         name) is autogen's bookkeeping: not sent
``AssistantMessage`` this client         the :class:`~streamkit.ChatResponse` it
returned                                 came from, every block as it came back
other ``AssistantMessage``               an :class:`AssistantMessage`: text, or
                                         ``thought`` as text then the calls
``FunctionExecutionResultMessage``       the same, ``is_error`` ``None`` as false;
                                         a workbench's image, which the agent
                                         writes as ``[Image: <base64 PNG>]``, as
                                         a PNG :class:`DataBlock` again
``Tool`` / ``ToolSchema``                :class:`~streamkit.conversation.tools.Tool` (name,
                                         description, parameters, strict); autogen
                                         runs it, streamkit only describes it
``CreateResult.content``                 the answer text, or a ``FunctionCall``
                                         per tool call the caller must run (id,
                                         name, raw JSON arguments; ``"{}"`` for
                                         none); calls the provider ran itself
                                         (web search) stay in the response only
``CreateResult.thought``                 the visible reasoning, and, beside tool
                                         calls, the text too (as autogen's own
                                         clients put it)
``CreateResult.finish_reason``           :data:`FINISH_REASONS`
``CreateResult.usage``                   input (the whole prompt, cache reads
                                         and writes included, as OpenAI counts
                                         it) and output tokens; ``0`` unknown
=======================================  =========================================

What autogen's model cannot hold, and how it is kept: an ``AssistantMessage``
has no place for thinking signatures (Anthropic, Gemini ``thoughtSignature`` s,
which Gemini 3 requires on every function call sent back), encrypted or
redacted reasoning (OpenAI Responses ``encrypted_content``, Anthropic
``redacted_thinking``), provider item ids, server tool blocks, citations or
audio; and ``thought`` is one string where a response has separate blocks.
The agent rebuilds its history from ``CreateResult`` s, so the client keeps a
:class:`ResponseMemory`: the :class:`~streamkit.ChatResponse` behind each result
it returned, found again by what autogen keeps of it (the answer text or the
calls' ids, names and arguments, and the thought). An ``AssistantMessage`` that
matches is sent as that response, so the provider receives its own turn back
whole. The memory is bounded (``remember=``, most recently used kept) and lives
in this client object: a turn it no longer holds (evicted, from another client,
from a saved state loaded in a new process, or changed by the application) is
sent in the lossy form of the table above, and a ``thought`` beside an answer
text is then dropped (as autogen's own clients do: it is reasoning, not
something the model said).

Token counts are a best effort, documented as such: :meth:`count_tokens` takes
about :data:`CHARS_PER_TOKEN` characters per token of the text, reasoning,
calls, results and tool schemas that would be sent, plus
:data:`TOKENS_PER_MESSAGE` per message and, for an image (a tool result's
too), its pixels / 750 up to :data:`MAX_IMAGE_TOKENS` (Anthropic's published
estimate). No tokenizer is loaded: streamkit serves many vendors' models and
ships none of their vocabularies. :meth:`remaining_tokens` needs the context window, which no
registry entry knows: pass ``context_window=`` (or a ``"context_window"`` key in
``model_info=``).
"""

from __future__ import annotations

import json
import math
import warnings
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Self, TypeVar, cast

from autogen_core import CancellationToken, Component, FunctionCall, Image
from autogen_core.models import (
    AssistantMessage as AutogenAssistantMessage,
)
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    FinishReasons,
    LLMMessage,
    ModelCapabilities,
    ModelFamily,
    ModelInfo,
    RequestUsage,
    validate_model_info,
)
from autogen_core.models import (
    FunctionExecutionResultMessage as AutogenResultMessage,
)
from autogen_core.models import (
    SystemMessage as AutogenSystemMessage,
)
from autogen_core.models import (
    UserMessage as AutogenUserMessage,
)
from autogen_core.tools import Tool as AutogenTool
from autogen_core.tools import ToolSchema
from pydantic import BaseModel, Field

from ..client.client import Client
from ..conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
)
from ..conversation.tools import Tool
from ..model.blocks import ContentBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ..model.finish import FinishReason
from ..model.response import ChatResponse
from ..model.usage import ChatUsage, inclusive_input
from ..model.vendors import ModelInfo as StreamkitModelInfo
from ..providers import wire_format
from .autogen_tools import (
    cancellable,
    from_autogen_workbench,
    image_block,
    picture_of,
    result_content_of_text,
    schema_of,
    to_autogen_workbench,
    to_streamkit_tool,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_REMEMBERED",
    "FINISH_REASONS",
    "MAX_IMAGE_TOKENS",
    "TOKENS_PER_MESSAGE",
    "ResponseMemory",
    "StreamkitChatCompletionClient",
    "StreamkitClientConfig",
    "autogen_model_info",
    "estimate_tokens",
    "finish_reason",
    "from_autogen_workbench",
    "image_block",
    "request_usage",
    "to_autogen_workbench",
    "to_create_result",
    "to_streamkit_message",
    "to_streamkit_tool",
]

_T = TypeVar("_T")

#: How many responses a client remembers by default, to send back whole.
DEFAULT_REMEMBERED = 512

#: The best-effort token estimate: characters per token (English prose and
#: JSON average about four with the GPT, Claude and Gemini tokenizers).
CHARS_PER_TOKEN = 4
#: Per message: the role and the wire format's framing.
TOKENS_PER_MESSAGE = 4
#: An image costs about width x height / 750 tokens, at most this many
#: (Anthropic's vision guide; the provider scales larger images down).
MAX_IMAGE_TOKENS = 1_600
_PIXELS_PER_TOKEN = 750

#: streamkit's finish reasons as autogen's five words. A pause, an error or an
#: interrupted stream is ``unknown``: autogen has no word for them, and none of
#: them is an answer to act on.
FINISH_REASONS: Mapping[FinishReason, FinishReasons] = MappingProxyType({
    FinishReason.STOP: "stop",
    FinishReason.LENGTH: "length",
    FinishReason.TOOL_CALLS: "function_calls",
    FinishReason.CONTENT_FILTER: "content_filter",
    FinishReason.REFUSAL: "content_filter",
    FinishReason.PAUSE: "unknown",
    FinishReason.ERROR: "unknown",
    FinishReason.INTERRUPTED: "unknown",
    FinishReason.UNKNOWN: "unknown",
})

_NO_EXTRA_ARGS: Mapping[str, Any] = MappingProxyType({})

AutogenToolChoice = AutogenTool | Literal["auto", "required", "none"]


# ================================================================= tools


def _tool_choice(choice: AutogenToolChoice, tools: Sequence[Tool]) -> str:
    """autogen's tool choice in streamkit's words: a tool to force is named by
    its name, and must be one of the tools sent (as autogen's clients check).
    A word (``auto``...) without tools says nothing and is not sent."""
    if isinstance(choice, str):
        return choice
    if choice.name not in {tool.name for tool in tools}:
        raise ValueError(f"tool_choice names the tool {choice.name!r}, which is not among the "
                         f"tools given ({', '.join(t.name for t in tools) or 'none'})")
    return choice.name


# ================================================================= answers


def finish_reason(response: ChatResponse) -> FinishReasons:
    """autogen's finish reason: ``function_calls`` whenever calls are to be run
    (Gemini and some OpenAI-compatible servers say ``stop`` there), otherwise
    :data:`FINISH_REASONS`."""
    reason = response.finished_reason or FinishReason.UNKNOWN
    if _calls_to_run(response) and reason in (FinishReason.STOP, FinishReason.UNKNOWN):
        return "function_calls"
    return FINISH_REASONS[reason]


def request_usage(usage: ChatUsage | None) -> RequestUsage:
    """autogen's two counts. ``prompt_tokens`` is the whole prompt, as OpenAI and
    autogen's OpenAI client count it: an Anthropic response's cache reads and
    writes are added back (see :mod:`streamkit.adapters._usage`). A count the
    provider never gave is ``0``, autogen's only way to say so."""
    if usage is None:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)
    return RequestUsage(prompt_tokens=inclusive_input(usage) or 0,
                        completion_tokens=usage.output_tokens or 0)


def to_create_result(response: ChatResponse) -> CreateResult:
    """autogen's ``CreateResult`` of a response (``cached`` is always false:
    streamkit has no cache)."""
    calls = _calls_to_run(response)
    content: str | list[FunctionCall]
    if calls:
        content = [FunctionCall(id=call.id, name=call.name, arguments=call.input or "{}")
                   for call in calls]
        thought = "\n\n".join(part for part in (response.thinking, response.text) if part)
    else:
        content = response.text or response.refusal or ""
        thought = response.thinking
    return CreateResult(finish_reason=finish_reason(response), content=content,
                        usage=request_usage(response.usage), cached=False,
                        thought=thought or None)


def _calls_to_run(response: ChatResponse) -> list[ToolCallBlock]:
    """The calls the caller must run: not those the provider ran itself."""
    return [call for call in response.tool_calls if not call.server_side]


# ================================================================= memory


def _view_key(content: str | Sequence[FunctionCall], thought: str | None) -> Hashable:
    """What autogen keeps of an answer, as a key: the text or each call's id,
    name and arguments, and the thought."""
    if isinstance(content, str):
        return ("text", content, thought)
    return ("calls", tuple((call.id, call.name, call.arguments) for call in content), thought)


class ResponseMemory:
    """The responses behind the results a client returned, found again by what
    autogen keeps of them (see the module docstring), at most ``size`` of them,
    the least recently used forgotten first.

    Two answers autogen cannot tell apart (the same text and thought, or the
    same call ids) share an entry: the later one is sent for both, which holds
    the same text, reasoning and calls."""

    def __init__(self, size: int = DEFAULT_REMEMBERED) -> None:
        if size < 0:
            raise ValueError(f"remember must be 0 or more, not {size}")
        self.size = size
        self._responses: OrderedDict[Hashable, ChatResponse] = OrderedDict()

    def __len__(self) -> int:
        return len(self._responses)

    def remember(self, result: CreateResult, response: ChatResponse) -> None:
        """Keep ``response`` as the turn behind ``result``."""
        if self.size == 0:
            return
        key = _view_key(result.content, result.thought)
        self._responses[key] = response
        self._responses.move_to_end(key)
        while len(self._responses) > self.size:
            self._responses.popitem(last=False)

    def recall(self, message: AutogenAssistantMessage, *, touch: bool = True,
               ) -> ChatResponse | None:
        """The response ``message`` was made from, if it is still held
        (``touch``: count this as a use, keeping it longer)."""
        key = _view_key(message.content, message.thought)
        response = self._responses.get(key)
        if response is not None and touch:
            self._responses.move_to_end(key)
        return response


# ================================================================= messages


def to_streamkit_message(message: LLMMessage, memory: ResponseMemory | None = None) -> Message:
    """One autogen message as streamkit's; an assistant turn ``memory`` still
    holds is the :class:`~streamkit.ChatResponse` itself (not a copy)."""
    if isinstance(message, AutogenSystemMessage):
        return SystemMessage(message.content)
    if isinstance(message, AutogenUserMessage):
        return UserMessage(_user_content(message.content))
    if isinstance(message, AutogenAssistantMessage):
        remembered = memory.recall(message) if memory is not None else None
        return remembered if remembered is not None else _lossy_assistant(message)
    if isinstance(message, AutogenResultMessage):
        return FunctionExecutionResultMessage([
            FunctionExecutionResult(call_id=result.call_id,
                                    content=result_content_of_text(result.content),
                                    is_error=bool(result.is_error), name=result.name)
            for result in message.content])
    raise TypeError(f"not an autogen message: {type(message).__name__}")


def _user_content(content: str | list[str | Image]) -> str | list[UserContent]:
    if isinstance(content, str):
        return content
    return [TextBlock(part) if isinstance(part, str) else image_block(part) for part in content]


def _lossy_assistant(message: AutogenAssistantMessage) -> AssistantMessage:
    """An assistant turn from autogen's fields alone: the text, or the thought as
    text before the calls (it cannot say which part was reasoning, and reasoning
    without its signature would be refused)."""
    if isinstance(message.content, str):
        return AssistantMessage(message.content)
    blocks: list[ContentBlock] = [TextBlock(message.thought)] if message.thought else []
    blocks += [ToolCallBlock(call.id, call.name, call.arguments) for call in message.content]
    return AssistantMessage(blocks)


# ================================================================= model info


def autogen_model_info(info: StreamkitModelInfo,
                       overrides: Mapping[str, Any] | None = None) -> ModelInfo:
    """autogen's ``ModelInfo`` from what the registry knows, then ``overrides``.

    A capability nobody stated is taken as absent (``False``), as autogen's own
    clients do for a model they do not know: an agent then refuses tools, an
    image or a schema up front rather than sending them to a model that may not
    take them. Say what your model can do with ``model_info=`` (a dict of
    autogen's ``ModelInfo`` entries), e.g. ``{"function_calling": True,
    "vision": True}``. The family is the registry's (``claude``, ``gpt``...),
    else autogen's ``unknown``.
    """
    def stated(value: bool | None) -> bool:
        return False if value is None else value

    base: dict[str, Any] = {
        "vision": stated(info.vision),
        "function_calling": stated(info.function_calling),
        "json_output": stated(info.json_output),
        "structured_output": stated(info.structured_output),
        "family": info.family or ModelFamily.UNKNOWN,
    }
    merged = cast(ModelInfo, {**base, **(overrides or {})})
    validate_model_info(merged)
    return merged


def _check_capabilities(info: ModelInfo, messages: Sequence[LLMMessage],
                        tools: Sequence[AutogenTool | ToolSchema],
                        json_output: bool | type[BaseModel] | None) -> None:
    """Refuse what ``model_info`` says the model cannot do, as autogen's own
    clients do, before anything is sent."""
    if info["vision"] is False and any(
            isinstance(m, AutogenUserMessage) and not isinstance(m.content, str)
            and any(isinstance(part, Image) for part in m.content) for m in messages):
        raise ValueError("model_info says the model has no vision, and an image was given")
    if info["function_calling"] is False and tools:
        raise ValueError("model_info says the model cannot call functions, and tools were given")
    if json_output is True and info["json_output"] is False:
        raise ValueError("model_info says the model has no JSON mode")
    if isinstance(json_output, type) and info.get("structured_output") is False:
        raise ValueError("model_info says the model has no structured output")


# ================================================================= token estimate


def estimate_tokens(messages: Sequence[LLMMessage], tools: Sequence[AutogenTool | ToolSchema] = (),
                    memory: ResponseMemory | None = None) -> int:
    """A best-effort count of the prompt these messages and tools make (see the
    module docstring for the rule). A remembered assistant turn counts as the
    response that will be sent, its reasoning included."""
    characters = sum(len(json.dumps(schema_of(tool))) for tool in tools)
    tokens = 0
    for message in messages:
        tokens += TOKENS_PER_MESSAGE
        if isinstance(message, AutogenAssistantMessage):
            remembered = memory.recall(message, touch=False) if memory is not None else None
            characters += (_response_characters(remembered) if remembered is not None
                           else _assistant_characters(message))
            continue
        for part in _counted_parts(message):
            if isinstance(part, str):
                characters += len(part)
            else:
                tokens += _image_tokens(part)
    return tokens + math.ceil(characters / CHARS_PER_TOKEN)


def _counted_parts(message: AutogenSystemMessage | AutogenUserMessage | AutogenResultMessage,
                   ) -> list[str | Image]:
    """The texts and pictures of a message as they will be sent: an image in a
    tool result's text (the agent's ``[Image: ...]``) counts as the picture."""
    if isinstance(message, AutogenSystemMessage):
        return [message.content]
    if isinstance(message, AutogenUserMessage):
        return [message.content] if isinstance(message.content, str) else list(message.content)
    parts: list[str | Image] = []
    for result in message.content:
        content = result_content_of_text(result.content)
        parts += [content] if isinstance(content, str) else [
            block.text if isinstance(block, TextBlock) else picture_of(block)
            for block in content]
    return parts


def _image_tokens(image: Image) -> int:
    width, height = image.image.size
    return min(math.ceil(width * height / _PIXELS_PER_TOKEN), MAX_IMAGE_TOKENS)


def _assistant_characters(message: AutogenAssistantMessage) -> int:
    if isinstance(message.content, str):
        return len(message.content)
    return len(message.thought or "") + sum(len(call.name) + len(call.arguments)
                                            for call in message.content)


def _response_characters(response: ChatResponse) -> int:
    count = 0
    for block in response.content:
        if isinstance(block, TextBlock):
            count += len(block.text)
        elif isinstance(block, ThinkingBlock):
            count += len(block.thinking)
        elif isinstance(block, ToolCallBlock):
            count += len(block.name) + len(block.input)
    return count


# ================================================================= cancellation


async def _next_text(texts: AsyncIterator[str]) -> str | None:
    """The next text delta, ``None`` at the end (an ended iterator's
    ``StopAsyncIteration`` must not travel through a future)."""
    try:
        return await anext(texts)
    except StopAsyncIteration:
        return None


# ================================================================= the client


class StreamkitClientConfig(BaseModel):
    """What ``dump_component()`` writes and ``load_component()`` reads. No key:
    a loaded client reads it from the provider's environment variable, so a
    saved agent never carries a secret."""

    model: str
    """``"provider:model"``, as :class:`streamkit.Client` takes it."""
    base_url: str | None = None
    model_info: dict[str, Any] | None = None
    context_window: int | None = None
    remember: int = DEFAULT_REMEMBERED
    options: dict[str, Any] = Field(default_factory=dict)
    """Request options sent with every call (``max_tokens``, ``thinking_budget``...)."""


class StreamkitChatCompletionClient(ChatCompletionClient, Component[StreamkitClientConfig]):
    """autogen's ``ChatCompletionClient`` over a :class:`streamkit.Client`.

    ``client`` is a :class:`streamkit.Client`, or a ``"provider:model"`` string
    for one made here with ``api_key`` and ``base_url``; :meth:`close` closes
    only a client made here. ``options`` are request options sent with every
    call (``thinking_budget=3000``, ``max_tokens=...``); a call's
    ``extra_create_args`` add to them. ``model_info`` overrides entries of
    autogen's ``ModelInfo`` (see :func:`autogen_model_info`);
    ``context_window`` (or ``model_info["context_window"]``) is what
    :meth:`remaining_tokens` counts down from. ``remember`` bounds the
    :class:`ResponseMemory` that sends each of this client's turns back whole.
    """

    component_type = "model"
    component_config_schema = StreamkitClientConfig
    component_provider_override = "streamkit.adapters.autogen.StreamkitChatCompletionClient"

    def __init__(self, client: Client | str, *, api_key: str | None = None,
                 base_url: str | None = None, model_info: Mapping[str, Any] | None = None,
                 context_window: int | None = None, remember: int = DEFAULT_REMEMBERED,
                 **options: Any) -> None:
        if isinstance(client, Client):
            if api_key is not None or base_url is not None:
                raise ValueError("api_key and base_url are for a model string; this Client "
                                 "already has its own")
            self._client, self._owns_client = client, False
        else:
            self._client, self._owns_client = Client(client, api_key, base_url), True
        self._overrides = dict(model_info or {})
        self._model_info = autogen_model_info(self._client.model_info, self._overrides)
        window = context_window if context_window is not None \
            else self._overrides.get("context_window")
        self._context_window: int | None = window
        self._options = options
        self.memory = ResponseMemory(remember)
        self._last_tools: list[Tool] = []

    def __repr__(self) -> str:
        return f"StreamkitChatCompletionClient({self._client!r})"

    @property
    def client(self) -> Client:
        """The streamkit client every call goes through."""
        return self._client

    # ------------------------------------------------------------ calls

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[AutogenTool | ToolSchema] = (),
        tool_choice: AutogenToolChoice = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = _NO_EXTRA_ARGS,
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        """One answer (not streamed), as a ``CreateResult``; the response behind
        it is remembered, to be sent back whole."""
        request = self._request(messages, tools, tool_choice, json_output, extra_create_args)
        response = await cancellable(self._client.create(request.messages, **request.arguments),
                                      cancellation_token)
        return self._result(response)

    async def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[AutogenTool | ToolSchema] = (),
        tool_choice: AutogenToolChoice = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = _NO_EXTRA_ARGS,
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        """The answer's text as it streams (each delta a ``str``; reasoning and
        tool arguments are not text), then the ``CreateResult``. The token
        cancels the read under way and closes the connection at once (each
        read is a future linked to it, as in autogen's own clients); a caller
        that stops early closes it with ``aclose()`` (Python does not close an
        async generator on ``break``)."""
        request = self._request(messages, tools, tool_choice, json_output, extra_create_args)
        async with self._client.stream(request.messages, **request.arguments) as events:
            texts = events.text_stream.__aiter__()
            while (text := await cancellable(_next_text(texts), cancellation_token)) is not None:
                yield text
            response = await events.final()
        yield self._result(response)

    def _request(self, messages: Sequence[LLMMessage],
                 tools: Sequence[AutogenTool | ToolSchema], tool_choice: AutogenToolChoice,
                 json_output: bool | type[BaseModel] | None,
                 extra_create_args: Mapping[str, Any]) -> _Request:
        """What one call sends, in streamkit's terms."""
        _check_capabilities(self._model_info, messages, tools, json_output)
        converted = [to_streamkit_message(message, self.memory) for message in messages]
        arguments: dict[str, Any] = {**self._options, **extra_create_args}
        sent = [to_streamkit_tool(tool) for tool in tools]
        choice = _tool_choice(tool_choice, sent)
        if sent:
            self._last_tools = sent
            arguments.update(tools=sent, tool_choice=choice)
        elif self._needs_declared_tools(converted):
            arguments.update(tools=self._last_tools, tool_choice="none")
        if json_output is not None:
            arguments["json_output"] = json_output
        return _Request(converted, arguments)

    def _needs_declared_tools(self, messages: Sequence[Message]) -> bool:
        """Whether a call without tools must declare the last ones anyway: the
        Anthropic API refuses a conversation holding tool calls or results
        without ``tools`` ("Requests which include tool_use or tool_result
        blocks must define tools"), and autogen's ``AssistantAgent`` reflects on
        tool results with no tools given. They go with ``tool_choice="none"``,
        so the reflection answers in text, as the agent expects."""
        if not self._last_tools \
                or not wire_format(self._client.provider.wire).tools_with_tool_history:
            return False
        return any(isinstance(m, FunctionExecutionResultMessage)
                   or (isinstance(m, ChatResponse) and m.tool_calls)
                   or (isinstance(m, AssistantMessage)
                       and any(isinstance(b, ToolCallBlock) for b in m.blocks))
                   for m in messages)

    def _result(self, response: ChatResponse) -> CreateResult:
        result = to_create_result(response)
        self.memory.remember(result, response)
        return result

    # ------------------------------------------------------------ usage and tokens

    def total_usage(self) -> RequestUsage:
        """The usage of every answer handed back whole, summed
        (:attr:`streamkit.Client.total_usage`)."""
        return request_usage(self._client.total_usage)

    def actual_usage(self) -> RequestUsage:
        """:meth:`total_usage` plus what calls that broke or were cancelled spent
        (:attr:`streamkit.Client.actual_usage`)."""
        return request_usage(self._client.actual_usage)

    def count_tokens(self, messages: Sequence[LLMMessage], *,
                     tools: Sequence[AutogenTool | ToolSchema] = ()) -> int:
        """A best-effort estimate of the prompt's tokens (:func:`estimate_tokens`)."""
        return estimate_tokens(messages, tools, self.memory)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *,
                         tools: Sequence[AutogenTool | ToolSchema] = ()) -> int:
        """The context window less :meth:`count_tokens` (a best effort too)."""
        if self._context_window is None:
            raise ValueError(f"the context window of {self._client.model!r} is not known: pass "
                             f"context_window= to StreamkitChatCompletionClient")
        return self._context_window - self.count_tokens(messages, tools=tools)

    # ------------------------------------------------------------ model info

    @property
    def model_info(self) -> ModelInfo:
        """autogen's ``ModelInfo`` (:func:`autogen_model_info`)."""
        return self._model_info

    @property
    def capabilities(self) -> ModelCapabilities:
        """Deprecated by autogen for :attr:`model_info`, which holds these fields."""
        warnings.warn("capabilities is deprecated, use model_info instead", DeprecationWarning,
                      stacklevel=2)
        return cast(ModelCapabilities, self._model_info)

    # ------------------------------------------------------------ lifetime and config

    async def close(self) -> None:
        """Close the streamkit client if it was made here."""
        if self._owns_client:
            await self._client.close()

    def _to_config(self) -> StreamkitClientConfig:
        return StreamkitClientConfig(
            model=f"{self._client.provider.name}:{self._client.model}",
            base_url=self._client.base_url, model_info=dict(self._model_info),
            context_window=self._context_window, remember=self.memory.size,
            options=dict(self._options))

    @classmethod
    def _from_config(cls, config: StreamkitClientConfig) -> Self:
        return cls(config.model, base_url=config.base_url, model_info=config.model_info,
                   context_window=config.context_window, remember=config.remember,
                   **config.options)


@dataclass(frozen=True)
class _Request:
    """One call's messages and the keyword arguments for :class:`streamkit.Client`."""

    messages: list[Message]
    arguments: dict[str, Any]
