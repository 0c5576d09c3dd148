"""Anthropic Messages: the whole wire format, both directions side by side.

The verbs every wire package has (:mod:`streamkit.providers.wire_format`):

===============  =======================================================================
``stream.py``    the stream parser: SSE payloads -> streamkit events, its lifecycle and
                 blocks kept by the shared block ledger
``request.py``   request bodies: :func:`~.request.build_request` and
                 :func:`~.request.parse_request`
``tools.py``     tool definitions and ``tool_choice``, both ways, and
                 ``json_output=True`` as a forced tool
``response.py``  a non-streamed ``Message``, read as the stream it stands for
``content.py``   user content (text, images, documents, tool results) <-> blocks, both
                 directions
``wire.py``      the wire's words as data: name, finish words, usage fields
``http.py``      where the endpoint is under a base URL; the model is a body field
``encode.py``    responses written: the SSE stream encoder, the ``Message`` body and the
                 error body
===============  =======================================================================

And this wire's own files:

===================  ======================================================================
``assistant.py``     what the model writes (``content_block`` s, assistant turns) <->
                     blocks, both directions, and the cross-provider turn policy
``cache.py``         ``cache_control`` breakpoints <-> cache points, the limit of four and
                     the TTL order
``citations.py``     Anthropic's five citation kinds <->
                     :class:`~streamkit.model.blocks.Citation`
``versions.py``      what each ``anthropic-version`` refuses, and a body fitted to it
``count_tokens.py``  the token count endpoint (``/v1/messages/count_tokens``): its body
                     and its answer, both ways
``acceptance.py``    what the Messages API answers 400 to (empty text, empty messages, a
                     prefill ending in whitespace), left out of a built body
===================  ======================================================================

:data:`WIRE` is the package's record (:class:`~streamkit.providers.wire_format.WireFormat`).
"""

from ..wire_format import WireFormat, no_answer_options
from .count_tokens import COUNTING
from .encode import AnthropicStreamEncoder, encode_error, encode_response
from .http import (
    FORWARDED_HEADERS,
    MODEL_IN_BODY,
    SERVED_BASE,
    SERVED_PATH,
    VERSION_HEADER,
    endpoint,
)
from .request import build_request, parse_request
from .response import parse_response
from .stream import AnthropicParser
from .wire import FINISH_REASONS, NAME, USAGE_FIELDS, map_stop_reason

WIRE = WireFormat(
    name=NAME, title="Anthropic Messages", parser=AnthropicParser,
    build_request=build_request, parse_request=parse_request, parse_response=parse_response,
    finish_reasons=FINISH_REASONS, usage_fields=USAGE_FIELDS,
    endpoint=endpoint, model_in_body=MODEL_IN_BODY,
    served_path=SERVED_PATH, served_base=SERVED_BASE,
    # "Requests which include tool_use or tool_result blocks must define tools"
    tools_with_tool_history=True,
    version_header=VERSION_HEADER, count_tokens=COUNTING, forwarded_headers=FORWARDED_HEADERS,
    encode_stream=AnthropicStreamEncoder, encode_response=encode_response,
    encode_error=encode_error, answer_options=no_answer_options,
)

__all__ = ["WIRE", "AnthropicParser", "map_stop_reason"]
