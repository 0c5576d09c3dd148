"""The client: a provider from the registry, over httpx, with retries and fallbacks.

- :mod:`.client`: :class:`Client` and :class:`SyncClient`, thin shells that send,
  read and wait; :mod:`.shell`, what both share above the core; :mod:`.bodies`,
  a response's body as they read it (within the deadline, the key taken out);
- :mod:`.orchestration`: a whole call across the client's models, without I/O:
  the fallback chain, the attempts, telemetry, usage and costs, as a generator
  of the steps of :mod:`.steps` (send, read, wait, open, hand over);
- :mod:`.core`: one model's call without I/O: what it sends, its attempts,
  its answer; :mod:`.answers`, what a body stands for (an answer, a partial,
  an error); :mod:`.attempts`, how an attempt is told; :mod:`.totals`, usage
  summed;
- :mod:`.fallbacks`: the chain of models a call falls back along;
- :mod:`.counting`: a conversation's input tokens, by the provider's count
  endpoint or estimated; :mod:`.forwarding`, a caller's headers a gateway
  passes on to a model of the caller's wire;
- :mod:`.retry`: when to try again and how long to wait;
- :mod:`.timeouts`: how long each phase may take;
- :mod:`.endpoint`: which provider a model string names, and its base URL;
- :mod:`.keys` and :mod:`.auth`: an API key that never shows itself, and how
  it goes on the wire;
- :mod:`.sync_deadline`: the sync client's total timeout, kept by each socket
  operation.
"""

from .answers import ERROR_HEADERS
from .attempts import RETRYABLE_TRANSPORT_ERRORS, Attempt
from .client import Client, SyncClient
from .fallbacks import Fallback
from .forwarding import ForwardedHeaders
from .timeouts import Timeouts

__all__ = ["ERROR_HEADERS", "RETRYABLE_TRANSPORT_ERRORS", "Attempt", "Client", "Fallback",
           "ForwardedHeaders", "SyncClient", "Timeouts"]
