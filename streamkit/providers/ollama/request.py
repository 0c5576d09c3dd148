"""Ollama's native ``/api/chat`` request body, both ways.

:func:`build_request` writes the body Ollama's ``/api/chat`` takes (its
``docs/api.md``, "Generate a chat completion", and ``api/types.go``
``ChatRequest``); :func:`parse_request` reads one back into a
:class:`~streamkit.conversation.request.Request`, so that ``build_request(parse_request(b))
== b`` as data for every body that follows the documented API. The messages
are :mod:`.content`'s, the tools :mod:`.tools`'; this module holds the body's
other fields.

The body::

    {"model": "qwen3", "messages": [...], "tools": [...], "format": "json" | {schema},
     "options": {"temperature", "top_p", "seed", "stop", "num_predict", ...},
     "stream": true, "think": true | false | "low" | "medium" | "high" | "max",
     "keep_alive": "5m", ...}

Options. Uniform names map to Ollama's (both ways): ``temperature``,
``top_p``, ``seed``, ``stop``, ``max_tokens`` (``num_predict``) go inside
``options``; ``reasoning_effort`` is ``think`` with a level (``none`` is
``think: false``, ``minimal`` the lowest level ``low``, ``xhigh`` ``max``);
``thinking_budget`` can only switch thinking on (``> 0``) or off (``0``):
Ollama has no budget. Ollama's own model options (``top_k``, ``num_ctx``,
``repeat_penalty``, ``frequency_penalty``...) may be given at the top level
and go inside ``options``; ``parse_request`` reads them back to the top level.
Dropped, because the wire has no such switch: ``include_usage`` (Ollama always
reports its counters), ``include_thoughts`` (thinking comes back whenever the
model thinks), ``parallel_tool_calls``. ``audio`` output is refused
(:class:`~streamkit.model.errors.UnsupportedFeatureError`): no Ollama model speaks.
Anything else is passed through under its own name (``keep_alive``,
``truncate``, ``shift``, ``logprobs``, ``top_logprobs``, a ``think: true``).
``json_output=True`` is ``format: "json"``, a schema is ``format: {schema}``.
There are no dialects: ``dialect`` is ignored.

Options read from another wire's body (:class:`~streamkit.model.extras.Extras` of
that wire) bring only their uniform options: the rest are that wire's fields.
What ``parse_request`` cannot model is kept, as Ollama's extras, so the body
comes back exactly: unknown top-level fields in ``Request.options`` (itself
``Extras("ollama")``), unknown keys of ``options`` under
``options["options"]``, and what :mod:`.content` keeps of the messages.
"""

from __future__ import annotations

from typing import Any

from ...conversation.request import JsonSchemaOutput, Request
from ...model.errors import UnsupportedFeatureError
from ...model.extras import Extras
from ...model.ids import StreamIds
from ..coerce import check_uniform_options
from ..lossless import take, take_list
from ..options import finished_body, prepared_options, set_field, write_renamed
from ..turns import refuse_orphan_results
from .content import build_messages, parse_messages
from .tools import read_tools, write_tools
from .wire import NAME

__all__ = ["build_request", "parse_request"]

#: Uniform option -> its name inside Ollama's ``options`` object.
_MODEL_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "seed": "seed",
                  "stop": "stop", "max_tokens": "num_predict"}
_UNIFORM_OF = {wire: uniform for uniform, wire in _MODEL_OPTIONS.items()}
#: Ollama's own model options (api/types.go ``Options`` and ``Runner``, the
#: ollama package's ``Options``, docs/api.md "Generate request (With
#: options)"): at the top level of a Request they go inside ``options``.
_OLLAMA_OPTIONS = frozenset({
    "num_keep", "top_k", "min_p", "typical_p", "tfs_z", "repeat_last_n",
    "repeat_penalty", "presence_penalty", "frequency_penalty", "mirostat", "mirostat_tau",
    "mirostat_eta", "penalize_newline", "numa", "num_ctx", "num_batch", "num_gpu",
    "main_gpu", "low_vram", "f16_kv", "logits_all", "vocab_only", "use_mmap", "use_mlock",
    "embedding_only", "num_thread", "draft_num_predict",
})
#: reasoning_effort -> think (``ThinkValue.IsValid``: a bool or "low" / "medium" / "high" / "max").
_THINK: dict[str, bool | str] = {"none": False, "minimal": "low", "low": "low",
                                  "medium": "medium", "high": "high", "xhigh": "max",
                                  "max": "max"}
_THINK_LEVELS = frozenset({"low", "medium", "high", "max"})
#: Uniform options with no Ollama switch (see the module docstring).
_NO_SUCH_SWITCH = frozenset({"include_usage", "include_thoughts", "parallel_tool_calls",
                             "prompt_cache_key", "prompt_cache_retention"})
#: Uniform options Ollama has no form for (see the module docstring).
_UNSUPPORTED = {"audio": "no Ollama model speaks: audio output has no Ollama form"}


# ================================================================ build

def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The ``/api/chat`` body for ``request`` (see the module docstring)."""
    refuse_orphan_results(request.messages, NAME)
    options, foreign_thinking = prepared_options(request, NAME, _UNSUPPORTED, _NO_SUCH_SWITCH,
                                                 nulls=True)
    body: dict[str, Any] = {}
    if request.model is not None:
        body["model"] = request.model
    body["messages"] = build_messages(request.messages, foreign_thinking=foreign_thinking)
    write_tools(body, request)
    if request.json_output is not None and request.json_output is not False:
        body["format"] = (request.json_output.schema
                          if isinstance(request.json_output, JsonSchemaOutput) else "json")
    model_options = _model_options(options)
    if model_options is not None:
        body["options"] = model_options
    if request.stream is not None:
        body["stream"] = request.stream
    think = _think(options)
    if think is not None:
        body["think"] = think
    return finished_body(body, options, put=set_field)  # everything else, under its own name


def _model_options(options: dict[str, Any]) -> Any:
    """The ``options`` object: the body's own, the uniform options under
    Ollama's names, Ollama's model options given at the top level. Consumes
    them from ``options``; ``None`` when there are none."""
    given = options.pop("options", None)
    if given is not None and not isinstance(given, dict):
        return given  # not an object: the caller's, verbatim
    out: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
    write_renamed(out, options, _MODEL_OPTIONS, put=set_field)
    for key in [key for key in options if key in _OLLAMA_OPTIONS]:
        out[key] = options.pop(key)
    return out if out or given is not None else None


def _think(options: dict[str, Any]) -> bool | str | None:
    """``think`` from ``reasoning_effort`` or ``thinking_budget`` (consumed);
    a ``think`` given under its own name stays in ``options`` and wins."""
    effort = options.pop("reasoning_effort", None)
    budget = options.pop("thinking_budget", None)
    if effort is not None:
        if effort not in _THINK:
            raise UnsupportedFeatureError(NAME, f"reasoning_effort {effort!r}",
                                          f"its think levels are {', '.join(_THINK)}")
        return _THINK[effort]
    if budget is not None:
        return bool(budget)
    return None


# ================================================================ parse

def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`~streamkit.conversation.request.Request` an ``/api/chat`` body stands for."""
    ids = StreamIds.of_body(body)  # the ids the body does not give, derived from it
    rest = dict(body)
    request = Request(messages=[], model=take(rest, "model", str, NAME))
    request.messages = parse_messages(take_list(rest, "messages", NAME), ids)
    read_tools(rest, request)
    if "format" in rest:
        fmt = rest["format"]
        if fmt == "json":
            request.json_output = True
            del rest["format"]
        elif isinstance(fmt, dict):
            title = fmt.get("title")
            request.json_output = JsonSchemaOutput(
                name=title if isinstance(title, str) else "output", schema=fmt,
                metadata=Extras(NAME))
            del rest["format"]
    request.stream = take(rest, "stream", bool, NAME)
    options = Extras(NAME)
    if isinstance(rest.get("options"), dict):
        options.update(_parse_model_options(rest.pop("options")))
    think = rest.get("think")
    if isinstance(think, str) and think in _THINK_LEVELS:
        options["reasoning_effort"] = rest.pop("think")
    options.update(rest)
    check_uniform_options(options, NAME, {
        uniform: f"options.{field}" for uniform, field in _MODEL_OPTIONS.items()})
    request.options = options
    return request


def _parse_model_options(given: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    unknown: dict[str, Any] = {}
    for key, value in given.items():
        if key in _UNIFORM_OF:
            out[_UNIFORM_OF[key]] = value
        elif key in _OLLAMA_OPTIONS:
            out[key] = value
        else:
            unknown[key] = value
    if unknown or not given:
        out["options"] = unknown  # kept in place (an empty object too)
    return out
