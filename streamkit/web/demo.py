"""The demo page: ``python -m streamkit web`` (or ``make web``).

A small Starlette app. ``POST /api/chat`` answers any message with the bundled
recorded conversation (Claude thinks and answers, Claude calls a tool, GPT
speaks), each recording paced like a live stream and parsed by
:func:`streamkit.stream`, the three responses being the three steps of one
assistant message, encoded by :func:`~streamkit.web.ui_message_stream`. ``/``
serves the page, which reads the stream with the AI SDK's own ``Chat``
(``web/src/app.js``, bundled into ``static/app.js`` by ``make web``).

Needs the ``web`` extra (``pip install 'streamkit[web]'``): starlette, uvicorn.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from ..response import ChatResponse
from ..stream import Stream, stream
from ..testing import load_recording
from .stream import UI_MESSAGE_STREAM_HEADERS, ui_message_stream

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

#: The recorded turns of the demo, in order: (file in streamkit/demo_data, provider).
DEMO_RECORDINGS = (
    ("thinking-signature.sse", "anthropic"),
    ("tool-use.sse", "anthropic"),
    ("openai-chat-audio.sse", "openai"),
)

STATIC = Path(__file__).parent / "static"
BUNDLE = STATIC / "app.js"


def demo_bodies() -> list[tuple[bytes, str]]:
    """The recorded bodies of the demo conversation, with their provider."""
    data = resources.files("streamkit") / "demo_data"
    return [(load_recording(Path(str(data / name)))[0], provider)
            for name, provider in DEMO_RECORDINGS]


def demo_finals() -> list[ChatResponse]:
    """The final responses the demo's streams end with (what the page must show)."""
    from ..pipeline import replay

    return [replay(raw, provider).response for raw, provider in demo_bodies()]


async def _paced(raw: bytes, delay: float) -> AsyncIterator[bytes]:
    """A recording as a live response sends it: one SSE event per network
    chunk, ``delay`` seconds apart (so a page shows it growing)."""
    for event in re.split(rb"(?<=\n\n)", raw):
        if event:
            yield event
            await anyio.sleep(delay)


def demo_streams(*, delay: float = 0.04) -> list[Stream]:
    """One streamkit stream per recorded turn, paced like a live one."""
    out = []
    for raw, provider in demo_bodies():
        events = stream(_paced(raw, delay), provider)
        assert isinstance(events, Stream)
        out.append(events)
    return out


def create_app(*, delay: float = 0.04) -> Starlette:
    """The demo ASGI app; ``delay`` is the time between two recorded events."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, PlainTextResponse, StreamingResponse
    from starlette.routing import Route

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def bundle(request: Request) -> Response:
        if not BUNDLE.exists():  # built by npm, never committed
            return PlainTextResponse("the page script is not built: run `make web`", 503)
        return FileResponse(BUNDLE, media_type="text/javascript")

    async def chat(request: Request) -> Response:
        await request.body()  # the AI SDK sends the conversation; the demo replays anyway
        frames = ui_message_stream(*demo_streams(delay=delay), stream_audio=True)
        return StreamingResponse(frames, headers=dict(UI_MESSAGE_STREAM_HEADERS))

    return Starlette(routes=[
        Route("/", page),
        Route("/app.js", bundle),
        Route("/api/chat", chat, methods=["POST"]),
    ])


def serve(host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Run the demo with uvicorn until interrupted."""
    import uvicorn

    if not BUNDLE.exists():
        print("warning: the page script is not built; run `make web` (npm) first")
    print(f"streamkit web demo on http://{host}:{port}/")
    uvicorn.run(create_app(**options), host=host, port=port, log_level="warning")
