"""The fixtures of the tests that read encoded streams with the official SDKs
(``test_encode_sdks.py``, ``test_encode_hostile_text.py``): one server in a
thread and one sync client per SDK, for a whole test module; and the event
loop of every async test under ``tests/providers``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from streamkit.testing import ReplayServer, ThreadedReplayServer


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """asyncio only: the provider packages are sans-IO, and what is async in
    their tests is an official SDK's client reading what we encode, which is
    the SDK's concern, not ours (run on trio too, it doubled the encoders'
    SDK tests, ~40 s of the suite, for no line of ours). Our own I/O runs on
    both backends in ``tests/reading`` and ``tests/testing``."""
    return "asyncio"


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadedReplayServer]:
    with ReplayServer.in_thread() as running:
        yield running
        assert not running.errors


@pytest.fixture(scope="module")
def clients(server: ThreadedReplayServer) -> Iterator[dict[str, Any]]:
    """One sync client per SDK (each case reaches its own path through
    ``with_options`` or the model name, on the same connection pool)."""
    anthropic = pytest.importorskip("anthropic")
    genai = pytest.importorskip("google.genai")
    openai = pytest.importorskip("openai")
    made = {"openai": openai.OpenAI(base_url=server.url, api_key="k", max_retries=0),
            "anthropic": anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0),
            "gemini": genai.Client(api_key="k", http_options=genai.types.HttpOptions(
                base_url=server.url, api_version="v1beta",
                retry_options=genai.types.HttpRetryOptions(attempts=1)))}
    yield made
    made["openai"].close()
    made["anthropic"].close()
    made["gemini"].close()
