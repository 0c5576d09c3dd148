"""How long each phase of a call may take: :class:`Timeouts`, and what an
attempt is given of them (httpx's timeouts, none past the call's total)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["UNSET", "Timeouts", "timeouts_of"]

#: ``timeout=`` not given: the httpx client's own timeouts, or ``Timeouts()``
#: for an httpx client the streamkit client makes.
UNSET: Any = object()


@dataclass(frozen=True)
class Timeouts:
    """How long each phase of a call may take, in seconds (``None``: no limit).

    ``connect``, ``read`` (between two pieces of the response), ``write`` and
    ``pool`` (waiting for a free connection) are httpx's; ``total`` bounds a
    whole call in every phase: each attempt's connect, request and headers (past
    it: :class:`~streamkit.model.errors.NoResponseError`), an error body (read as far
    as it came), each wait, and the whole body (past it:
    :class:`~streamkit.model.errors.IncompleteStreamError` with the partial response),
    however slowly the bytes trickle in. The sync client keeps to it in every
    socket operation of the httpx client it makes itself
    (:mod:`streamkit.client.sync_deadline`); with an ``http_client`` of the caller's own
    it checks it once the headers came and between reads."""

    connect: float | None = 10.0
    read: float | None = 600.0
    """A reasoning model may be silent for minutes before its first token."""
    write: float | None = 60.0
    pool: float | None = 10.0
    total: float | None = None

    def for_attempt(self, remaining: float | None) -> httpx.Timeout:
        """httpx's timeouts for one attempt, none longer than ``remaining``."""
        def bounded(value: float | None) -> float | None:
            if remaining is None:
                return value
            return remaining if value is None else min(value, remaining)

        return httpx.Timeout(connect=bounded(self.connect), read=bounded(self.read),
                             write=bounded(self.write), pool=bounded(self.pool))


def timeouts_of(timeout: float | Timeouts | None) -> Timeouts | None:
    """What a client's ``timeout=`` means: ``None`` when not given (:data:`UNSET`:
    the httpx client's own), else every phase's limit (a number for each of
    httpx's, ``None`` for none)."""
    if timeout is UNSET:
        return None
    if timeout is None:
        return Timeouts(connect=None, read=None, write=None, pool=None)
    if isinstance(timeout, Timeouts):
        return timeout
    return Timeouts(connect=timeout, read=timeout, write=timeout, pool=timeout)
