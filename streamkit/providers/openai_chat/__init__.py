"""OpenAI Chat Completions and every OpenAI-compatible dialect: the whole wire
format, both directions side by side, exported as its record :data:`WIRE`.

The verbs every wire package has (:mod:`streamkit.providers.wire_format`):

===============  =======================================================================
``stream.py``    the stream parser (:class:`OpenAIChatParser`), one payload at a time,
                 on a :class:`~streamkit.providers.ledger.BlockLedger` per choice
``request.py``   request bodies, built from a :class:`~streamkit.Request` and read back
                 (:func:`streamkit.build_request` / :func:`streamkit.parse_request`)
``tools.py``     tool definitions and ``tool_choice``, both ways
``response.py``  a non-streamed answer, read as the one chunk that streams it
                 (:func:`streamkit.parse_response`)
``content.py``   the wire's content parts <-> blocks, and annotations -> citations
``wire.py``      the wire's words as data (its name, finish words, usage fields, what
                 ends a stream)
``http.py``      where the endpoint is under a base URL; the model is a body field
``encode.py``    answers written: the chunk stream encoder (events -> SSE), the
                 non-streamed ``chat.completion`` body and the error body
===============  =======================================================================

And this wire's own files:

=====================  =================================================================
``assistant.py``       an assistant turn, both ways
``cache.py``           ``cache_control`` markers (OpenRouter's, LiteLLM's) <-> cache points
``history.py``         who wrote a turn, seen from the dialect it goes to, and what
                       building one request carries
``dialects.py``        what each OpenAI-compatible dialect bends, reading and writing,
                       one record per dialect (the vendors speaking each are the
                       registry's)
``choice.py``          one choice of a stream: a ``choices[]`` entry -> block events
``choice_blocks.py``   a choice's blocks: which block a fragment writes to (sequential
                       kinds, Groq's channel) and what has no place; the delta readers
                       below write through it
``call_fragments.py``  streamed tool calls: ``delta.tool_calls[]`` fragments and the
                       legacy ``delta.function_call``
``reasoning.py``       OpenRouter's streamed ``reasoning_details``
``audio.py``           a spoken answer's streamed ``delta.audio``
``fast.py``            the strict decode of the per-token chunk
=====================  =================================================================
"""

from ..wire_format import WireFormat
from . import http
from .encode import OpenAIChatStreamEncoder, answer_options, encode_error, encode_response
from .request import MAX_TOKENS_FIELD, build_request, parse_request
from .response import parse_response
from .stream import OpenAIChatParser
from .wire import FINISH_REASONS, NAME, USAGE_FIELDS, map_usage

WIRE = WireFormat(
    name=NAME, title="OpenAI Chat Completions", parser=OpenAIChatParser,
    build_request=build_request, parse_request=parse_request, parse_response=parse_response,
    finish_reasons=FINISH_REASONS, usage_fields=USAGE_FIELDS,
    endpoint=http.endpoint, model_in_body=http.MODEL_IN_BODY,
    served_path=http.SERVED_PATH, served_base=http.SERVED_BASE,
    dialects=True, option_records=frozenset({MAX_TOKENS_FIELD}),
    forwarded_headers=http.FORWARDED_HEADERS,
    encode_stream=OpenAIChatStreamEncoder, encode_response=encode_response,
    encode_error=encode_error, answer_options=answer_options,
)

__all__ = ["WIRE", "OpenAIChatParser", "map_usage"]
