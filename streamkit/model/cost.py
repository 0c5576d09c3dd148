"""What an answer cost, from genai-prices (the ``prices`` extra): :class:`Cost`.

``response.cost()`` prices one answer's usage with genai-prices' bundled price
database, as it was at the time the response was made (prices can change by
date, and some by the time of day: DeepSeek's off-peak rates). Nothing is
fetched: genai-prices' ``UpdatePrices`` is never started here, so the prices
are those of the installed package (or a snapshot the application installed
itself). Each token count is priced at its own rate where the database has one:
cache reads, cache writes and reasoning tokens are parts of the input and output
totals (:func:`streamkit.model.usage.token_counts`), which genai-prices prices part by part.

A response that cannot be priced gives a :class:`Cost` whose ``amount`` is
``None`` and whose ``reason`` says why: no usage, no model name, a provider
genai-prices has no price list for (each vendor's record says which list is
its own: :attr:`~streamkit.model.vendors.ProviderEntry.price_provider`), a model
it does not know, or genai-prices not installed.

:class:`CostTotals` is a client's running total (``client.total_cost``): each
call is priced when the total is read (or in batches, so memory stays bounded),
so a client whose cost is never asked for never imports the price database.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..__about__ import install_line
from .errors import ProviderConfigError
from .usage import ChatUsage, token_counts
from .vendors import provider_entry

if TYPE_CHECKING:
    from .response import ChatResponse

__all__ = ["Cost", "CostTotals", "price"]

CURRENCY = "USD"
"""genai-prices' prices are in US dollars."""

_INSTALL = f"genai-prices is not installed: {install_line('prices')}"


@dataclass(frozen=True)
class Cost:
    """An amount of money, or why there is none.

    ``amount`` is ``input + output`` in :attr:`currency`; ``None`` when the
    answer could not be priced, and then ``reason`` says why. ``model`` and
    ``price_provider`` are genai-prices' ids of what was matched; ``calls`` is
    how many answers the amount covers (one, or a client's total).
    """

    amount: Decimal | None
    currency: str = CURRENCY
    reason: str | None = None
    input: Decimal | None = None
    output: Decimal | None = None
    model: str | None = None
    price_provider: str | None = None
    calls: int = 1

    def __str__(self) -> str:
        if self.amount is None:
            return f"not priced: {self.reason}"
        return f"{self.amount:.6f} {self.currency}"

    @classmethod
    def unpriced(cls, reason: str, calls: int = 1) -> Cost:
        return cls(None, reason=reason, calls=calls)


def _timestamp(created_at: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(created_at)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _genai_usage(module: Any, usage: ChatUsage) -> Any:
    """genai-prices' ``Usage`` of ``usage``: the inclusive totals and their parts."""
    counts = token_counts(usage)
    values = {"input_tokens": counts.input, "output_tokens": counts.output,
              "cache_read_tokens": counts.cache_read, "cache_write_tokens": counts.cache_write,
              "output_reasoning_tokens": counts.reasoning}
    return module.Usage(**{key: value for key, value in values.items() if value})


#: The models genai-prices did not find, by price provider. genai-prices caches
#: the models it finds, not those it does not, and looking for one scans its whole
#: table: a gateway or a fake upstream answering under a model name no price list
#: has would pay that scan on every answer (time ``genai_prices.calc_price`` for a
#: made-up model name to see what it costs on a machine).
_UNKNOWN_MODELS: set[tuple[str, str]] = set()

#: At most this many unknown names are remembered: names come from responses.
MAX_UNKNOWN_MODELS = 1024


def _remember_unknown(model: str, price_provider: str) -> None:
    if len(_UNKNOWN_MODELS) >= MAX_UNKNOWN_MODELS:
        _UNKNOWN_MODELS.clear()
    _UNKNOWN_MODELS.add((model, price_provider))


def _price_provider(provider: str) -> str | None:
    """genai-prices' id of a registry name's price list (``None``: none, or not a
    registry name)."""
    try:
        return provider_entry(provider).price_provider
    except ProviderConfigError:
        return None


def price(usage: ChatUsage | None, model: str | None, provider: str | None,
          created_at: str | None = None) -> Cost:
    """What ``usage`` of ``model`` at ``provider`` (a registry name) cost at
    ``created_at`` (an ISO time; now when ``None``)."""
    if usage is None:
        return Cost.unpriced("the provider reported no token usage")
    if not model:
        return Cost.unpriced("the response names no model")
    if provider is None:
        return Cost.unpriced("the response names no provider")
    price_provider = _price_provider(provider)
    if price_provider is None:
        return Cost.unpriced(f"genai-prices has no prices for provider {provider!r}")
    if usage.input_tokens is None and usage.output_tokens is None:
        return Cost.unpriced("the provider reported no input or output token count")
    try:
        import genai_prices
    except ImportError:
        return Cost.unpriced(_INSTALL)
    unknown = Cost.unpriced(f"genai-prices does not know model {model!r} at "
                            f"{price_provider!r}")
    if (model, price_provider) in _UNKNOWN_MODELS:
        return unknown
    when = None if created_at is None else _timestamp(created_at)
    try:
        calculation = genai_prices.calc_price(
            _genai_usage(genai_prices, usage), model, provider_id=price_provider,
            genai_request_timestamp=when)
    except LookupError:
        _remember_unknown(model, price_provider)
        return unknown
    except ValueError as exc:  # counts genai-prices refuses (a part larger than its total)
        return Cost.unpriced(f"genai-prices cannot price these counts: {exc}")
    return Cost(calculation.total_price, input=calculation.input_price,
                output=calculation.output_price, model=calculation.model.id,
                price_provider=calculation.provider.id)


def response_cost(response: ChatResponse) -> Cost:
    """What ``response`` cost (see :func:`price`)."""
    return price(response.usage, response.model, response.provider, response.created_at)


class CostTotals:
    """The summed cost of a client's whole answers, priced when read.

    :meth:`add` keeps what pricing one answer needs (its usage, model, provider
    and time); :attr:`total` prices what is waiting and adds it up. At most
    ``batch`` answers wait: the next one prices them first.
    """

    def __init__(self, batch: int = 256) -> None:
        self._lock = threading.Lock()
        self._batch = batch
        self._waiting: list[tuple[ChatUsage | None, str | None, str | None, str]] = []
        self._amount = Decimal(0)
        self._calls = 0
        self._unpriced = 0
        self._first_reason: str | None = None

    def add(self, response: ChatResponse) -> None:
        """Count one answer handed back whole."""
        with self._lock:
            self._waiting.append((response.usage, response.model, response.provider,
                                  response.created_at))
            if len(self._waiting) >= self._batch:
                self._price_waiting()

    def _price_waiting(self) -> None:
        for usage, model, provider, created_at in self._waiting:
            cost = price(usage, model, provider, created_at)
            self._calls += 1
            if cost.amount is None:
                self._unpriced += 1
                self._first_reason = self._first_reason or cost.reason
            else:
                self._amount += cost.amount
        self._waiting.clear()

    @property
    def total(self) -> Cost:
        """Every answer's cost summed; ``amount`` is ``None`` when any answer
        could not be priced, and ``reason`` says how many and why."""
        with self._lock:
            self._price_waiting()
            if self._unpriced:
                return Cost.unpriced(f"{self._unpriced} of {self._calls} calls could not be "
                                     f"priced: {self._first_reason}", calls=self._calls)
            return Cost(self._amount, calls=self._calls)
