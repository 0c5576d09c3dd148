"""The client: a provider from the registry, over httpx, with retries and fallbacks.

- :mod:`.client`: :class:`Client` and :class:`SyncClient`, thin shells that send,
  read and wait;
- :mod:`.core`: one call without I/O: what it sends, its attempts, its errors;
- :mod:`.fallbacks`: the chain of providers a call falls back along;
- :mod:`.retry`: when to try again and how long to wait;
- :mod:`.keys`: an API key that never shows itself;
- :mod:`.sync_deadline`: the sync client's total timeout, kept by each socket
  operation.
"""

from .client import ERROR_HEADERS, RETRYABLE_TRANSPORT_ERRORS, Attempt, Client, SyncClient, Timeouts
from .fallbacks import Fallback

__all__ = ["ERROR_HEADERS", "RETRYABLE_TRANSPORT_ERRORS", "Attempt", "Client", "Fallback",
           "SyncClient", "Timeouts"]
