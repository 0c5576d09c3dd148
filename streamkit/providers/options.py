"""Writing :class:`~streamkit.conversation.request.Request` options into a wire body, the
steps every wire format's request builder takes the same way.

Each wire package keeps its own tables (which uniform option is which field,
which ones it has no form for, which ones need nothing); this module holds the
loops over those tables, so that "given as ``None`` is not given", "a field
written twice with different values is an error" and "the built body shares
no object with the request" mean the same on every wire.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from streamkit.model.json_values import copy_json

from ..conversation.request import UNIFORM_OPTIONS, ForeignThinking, Request
from ..model.errors import UnsupportedFeatureError, warn_lossy
from ..model.extras import Extras, origin_of
from .turns import foreign_thinking_policy
from .wire_format import WIRE_NAMES, wire_format

_UNIFORM = frozenset(UNIFORM_OPTIONS)

EMPTY: Mapping[str, str] = MappingProxyType({})

#: How a field is set on a body or a nested wire object.
FieldWriter = Callable[[dict[str, Any], str, Any], None]


def given_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``options`` without the uniform options given as ``None``: a
    keyword's default means "not given", not "send null". Another wire's
    options stay marked as its (see :func:`own_options`)."""
    given = {name: value for name, value in options.items()
             if value is not None or name not in _UNIFORM}
    origin = origin_of(options)
    return given if origin is None else Extras(origin, given)


def own_options(options: Mapping[str, Any], wire: str) -> dict[str, Any]:
    """The options a builder of ``wire`` may write: all of them when they were
    given by hand or read from a body of ``wire``; only the uniform ones when
    another wire's reader kept them (its other fields are that wire's words,
    which this wire would refuse or misread: dropped with a
    :class:`~streamkit.LossyTranslationWarning` naming them). The options of
    another wire stay marked as its (an :class:`~streamkit.model.extras.Extras`), so
    that the builder drops a uniform option it has no form for instead of
    refusing it (see :func:`refuse_or_drop`)."""
    origin = origin_of(options)
    if origin in (None, wire):
        return dict(options)
    records = wire_format(origin).option_records if origin in WIRE_NAMES else frozenset()
    _refuse_references(options, origin, wire)
    theirs = sorted(name for name in options if name not in _UNIFORM and name not in records)
    if theirs:
        warn_lossy(wire, f"{origin}'s option(s) {', '.join(theirs)}",
                   f"they are {origin}'s own fields")
    return Extras(origin, {name: value for name, value in options.items() if name in _UNIFORM})


def _refuse_references(options: Mapping[str, Any], origin: str | None, wire: str) -> None:
    """Refuse another wire's option that names prompt content its provider
    keeps (:attr:`~streamkit.providers.wire_format.WireFormat.prompt_references`):
    dropped, it would leave the request without part of its prompt."""
    references = wire_format(origin).prompt_references if origin in WIRE_NAMES else {}
    for name in options:
        if name in references:
            raise UnsupportedFeatureError(wire, f"{origin}'s {name}={options[name]!r}",
                                          references[name])


def is_foreign(options: Mapping[str, Any], wire: str) -> bool:
    """Whether ``options`` were read from another wire's body (not given by hand)."""
    return origin_of(options) not in (None, wire)


def refuse_or_drop(options: dict[str, Any], name: str, wire: str, reason: str,
                   feature: str | None = None) -> None:
    """``wire`` has no form for the option ``name``: refused
    (:class:`~streamkit.model.errors.UnsupportedFeatureError`) when the caller gave
    it, since the API would refuse it or ignore what was asked; dropped with a
    :class:`~streamkit.LossyTranslationWarning` when another wire's reader read
    it, since a conversation moving between providers must still arrive."""
    value = options.pop(name)
    feature = feature or f"{name}={value!r}"
    if is_foreign(options, wire):
        warn_lossy(wire, f"the option {feature} read from {origin_of(options)}", reason)
        return
    raise UnsupportedFeatureError(wire, feature, reason)


def prepared_options(request: Request, wire: str, unsupported: Mapping[str, str] = EMPTY,
                     implied: Iterable[str] = (), *, nulls: bool = False,
                     versioned: bool = False) -> tuple[dict[str, Any], ForeignThinking]:
    """The first steps of every builder: the options of the request ``wire``
    may write (:func:`own_options`) and actually given (``nulls``: a uniform
    option given as ``None`` too, for the wires whose bodies carry a null a
    request was read with, as a recorded Mistral body sends ``stop: null``),
    the ``foreign_thinking`` policy taken out of them, a refusal for a model
    name no API takes (:func:`check_model`) and for an option
    the wire has no form for, the options it needs nothing for removed.
    ``api_version`` (the API version the request is for) is bookkeeping for
    the wires whose API has versions (``versioned``: the builder reads it);
    on the others it says nothing and is removed."""
    check_model(request.model, wire)
    options = own_options(request.options, wire)
    options = options if nulls else given_options(options)
    if not versioned:
        options.pop("api_version", None)
    foreign_thinking = foreign_thinking_policy(options.pop("foreign_thinking", "text"))
    reject_unsupported(options, unsupported, wire)
    drop_implied(options, implied)
    return options, foreign_thinking


def check_model(model: str | None, wire: str) -> None:
    """Refuse a model name no API takes (empty, or holding a lone surrogate,
    which UTF-8 cannot carry): Ollama's SDK types refuse it before sending,
    the other APIs answer 404 or 400. ``None`` is no name (given elsewhere:
    ``model=``, Gemini's URL)."""
    if model is None:
        return
    try:
        model.encode("utf-8")
    except UnicodeEncodeError:
        model = ""
    if not model:
        raise UnsupportedFeatureError(wire, "an empty model name, or one UTF-8 cannot carry",
                                      "name the model (model=...)")


def reject_unsupported(options: dict[str, Any], reasons: Mapping[str, str],
                       wire: str) -> None:
    """Each option ``wire`` has no form for (``reasons``: option -> why), by
    :func:`refuse_or_drop`: the API would refuse the unknown field, so say why
    before sending."""
    for name, reason in reasons.items():
        if options.get(name) is not None:
            refuse_or_drop(options, name, wire, reason)


def drop_implied(options: dict[str, Any], names: Iterable[str]) -> None:
    """Remove the options the wire needs nothing for (it always does what they ask)."""
    for name in names:
        options.pop(name, None)


#: The reasoning effort a thinking budget stands for, on a wire that takes
#: only an effort (OpenAI): the first row whose budget is at least the given
#: one. No API documents an equivalence; these bounds are streamkit's, said in
#: the docs' translation page: 1,024 tokens is the smallest budget Anthropic
#: takes (little reasoning), up to 8 K a moderate amount, anything larger asks
#: for deep reasoning; 0 (thinking off) is the least effort there is.
EFFORT_FOR_BUDGET: tuple[tuple[int, str], ...] = ((0, "minimal"), (1024, "low"),
                                                  (8192, "medium"))
DEEPEST_EFFORT = "high"


def budget_as_effort(options: dict[str, Any], wire: str) -> None:
    """``thinking_budget`` as ``reasoning_effort`` (by :data:`EFFORT_FOR_BUDGET`),
    for a wire that has no budget field: the budget is what the caller asked
    for in the only words the wire has. An effort given too wins (it is this
    wire's own word); a budget that is not a count has no effort to be, and a
    negative one (Gemini's -1: "as much as the model decides") leaves the
    API's default effort."""
    budget = options.get("thinking_budget")
    if budget is None:
        return
    if isinstance(budget, bool) or not isinstance(budget, int):
        refuse_or_drop(options, "thinking_budget", wire, "a thinking budget is a token count")
        return
    del options["thinking_budget"]
    if budget >= 0 and options.get("reasoning_effort") is None:
        options["reasoning_effort"] = next(
            (effort for bound, effort in EFFORT_FOR_BUDGET if budget <= bound), DEEPEST_EFFORT)


def put_field(body: dict[str, Any], key: str, value: Any) -> None:
    """Set a body field; two options writing different values to it is an error."""
    if key in body and body[key] != value:
        raise ValueError(f"{key!r} is given twice, as {body[key]!r} and as {value!r}")
    body[key] = value


def set_field(body: dict[str, Any], key: str, value: Any) -> None:
    """Set a field over any value already there: for a wire object the caller
    gave whole, whose fields the uniform options override."""
    body[key] = value


def write_renamed(body: dict[str, Any], options: dict[str, Any], renames: Mapping[str, str],
                  put: FieldWriter = put_field) -> None:
    """Move the options of ``renames`` (option -> wire field) from ``options``
    into ``body``; a ``stop`` string becomes the one-item list the wires take."""
    for name, field in renames.items():
        if name in options:
            value = options.pop(name)
            if name == "stop" and isinstance(value, str):
                value = [value]
            put(body, field, value)


def read_renamed(rest: dict[str, Any], options: dict[str, Any], renames: Mapping[str, str], *,
                 null_stays: bool = False) -> None:
    """What :func:`write_renamed` wrote, read back: each wire field of ``renames``
    (option -> wire field) taken out of a body's ``rest`` into ``options`` under
    its option's name; with ``null_stays``, a null stays under its wire name."""
    for name, field in renames.items():
        if field in rest and not (null_stays and rest[field] is None):
            options[name] = rest.pop(field)


def finished_body(body: dict[str, Any], options: Mapping[str, Any],
                  put: FieldWriter = put_field) -> dict[str, Any]:
    """``body`` with every option no table claimed, under its own name, as a
    deep copy: the body shares no object with the messages or options, so a
    caller editing one cannot change the other."""
    for key, value in options.items():
        put(body, key, value)
    return copy_json(body)
