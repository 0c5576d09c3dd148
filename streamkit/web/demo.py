"""The demo page: ``python -m streamkit web`` (or ``make web``).

A small Starlette app around an agent loop. ``POST /api/chat`` takes the
conversation the page's AI SDK ``Chat`` sends, and answers the last message
with real model calls (:class:`streamkit.Client`) to a scripted upstream: a
:class:`ScriptedUpstream` standing in for the APIs, which answers each
request with the next recorded stream of its script. The first step goes to
Claude; when it calls ``get_weather`` the tool runs here, its result goes to
the page (``tool-output-available``) and back to the model, and the next
step goes to GPT, which speaks; a second message gets Claude thinking, then
answering. Every step is one step of one assistant message, encoded by
:class:`~streamkit.web.UIMessageStreamEncoder`; the page sums their usage.

The upstream is the seam: anything with the :class:`ScriptedUpstream`
methods (``url``, ``requests``, ``close``) can take its place, and the page
and loop stay as they are. ``/`` serves the page, which reads the stream with
the AI SDK's own ``Chat`` (``web/src/app.js``, bundled into ``static/app.js``
by ``make web``).

Needs the ``web`` extra (``pip install 'streamkit-llm[web]'``): starlette, uvicorn.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..conversation.messages import (
    AssistantMessage,
    FunctionExecutionResultMessage,
    Message,
    UserMessage,
)
from ..conversation.tools import Tool
from ..model.errors import StreamError
from ..model.response import ChatResponse
from ..testing.recordings import load_recording
from ..testing.replies import RecordedRequest, Reply
from ..testing.server import ReplayServer
from .encoder import UIMessageStreamEncoder
from .stream import UI_MESSAGE_STREAM_HEADERS

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from ..client.client import Client

#: The recordings of the demo (in streamkit/demo_data) and the provider of each.
DEMO_RECORDINGS = {
    "tool-use.sse": "anthropic",
    "openai-chat-audio.sse": "openai",
    "thinking-signature.sse": "anthropic",
}

#: What each user message gets: the model of each step (the last one repeats),
#: and the recording the upstream answers each step with.
DEMO_SCRIPT: tuple[tuple[tuple[str, str], ...], ...] = (
    (("anthropic:claude-sonnet-4-5", "tool-use.sse"),
     ("openai:gpt-4o-audio-preview", "openai-chat-audio.sse")),
    (("anthropic:claude-sonnet-4-5", "thinking-signature.sse"),),
)

#: How many times the script can be played before the upstream says it is used up.
SCRIPT_ROUNDS = 100

STATIC = Path(__file__).parent / "static"
BUNDLE = STATIC / "app.js"


def get_weather(location: str) -> str:
    """The current weather in a city.

    Args:
        location: The city, e.g. "Paris".
    """
    return f"Sunny, 21 °C in {location}"


def demo_recording(name: str) -> bytes:
    """A recorded body of the demo."""
    return load_recording(Path(str(resources.files("streamkit") / "demo_data" / name)))[0]


def demo_finals() -> list[list[ChatResponse]]:
    """The final responses of each scripted message's steps (what the page must show)."""
    from ..reading.pipeline import replay

    return [[replay(demo_recording(name), DEMO_RECORDINGS[name]).response
             for _, name in steps] for steps in DEMO_SCRIPT]


def _paced(body: bytes, delay: float) -> Reply:
    """A recording sent in writes of about half an event, ``delay`` seconds
    apart, so a page shows it growing as a live one would."""
    events = max(body.count(b"\n\n"), 1)
    return Reply(body, chunk_size=max(len(body) // (2 * events), 16), delay=delay)


class ScriptedUpstream:
    """The model APIs of the demo: a :class:`~streamkit.testing.ReplayServer`
    on its own thread, each provider's endpoint answering with the next
    recording of :data:`DEMO_SCRIPT` (played :data:`SCRIPT_ROUNDS` times).
    ``requests`` are what the loop sent (the typed prompt among them)."""

    def __init__(self, *, delay: float = 0.04) -> None:
        self._stack = contextlib.ExitStack()
        self._server = self._stack.enter_context(ReplayServer.in_thread())
        answers: dict[str, list[Reply]] = {"anthropic": [], "openai": []}
        for steps in DEMO_SCRIPT:
            for _, name in steps:
                answers[DEMO_RECORDINGS[name]].append(_paced(demo_recording(name), delay))
        self._server.add_sequence("/anthropic/v1/messages",
                                  answers["anthropic"] * SCRIPT_ROUNDS)
        self._server.add_sequence("/openai/v1/chat/completions",
                                  answers["openai"] * SCRIPT_ROUNDS)

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def requests(self) -> list[RecordedRequest]:
        return self._server.requests

    def base_url(self, model: str) -> str:
        """Where a provider's requests go: a path of its own on the server."""
        return f"{self.url}/{model.partition(':')[0]}/v1"

    def close(self) -> None:
        self._stack.close()


def ui_to_messages(ui_messages: Sequence[dict[str, Any]]) -> list[Message]:
    """The conversation the AI SDK's ``Chat`` sends, as streamkit messages:
    each message's text parts (the demo keeps no tool history across messages)."""
    messages: list[Message] = []
    for ui in ui_messages:
        parts = ui.get("parts") or []
        text = "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")
        if ui.get("role") == "user":
            messages.append(UserMessage(text))
        elif ui.get("role") == "assistant" and text:
            messages.append(AssistantMessage(text))
    return messages


class DemoLoop:
    """The agent loop behind ``/api/chat``: one assistant message per user
    message, one step per model call, the tools run between steps."""

    def __init__(self, upstream: ScriptedUpstream, tools: Sequence[Tool]) -> None:
        self.upstream = upstream
        self.tools = list(tools)
        self.answered = 0  # user messages answered: which part of the script comes next

    def client(self, model: str) -> Client:
        from ..client.client import Client

        return Client(model, base_url=self.upstream.base_url(model), api_key="demo-key",
                      max_retries=0)

    async def frames(self, messages: list[Message]) -> AsyncIterator[bytes]:
        """The UI message stream answering ``messages``."""
        script = DEMO_SCRIPT[self.answered % len(DEMO_SCRIPT)]
        self.answered += 1
        encoder = UIMessageStreamEncoder(steps=None, stream_audio=True)
        by_name = {t.name: t for t in self.tools}
        try:
            for step in range(8):
                model = script[min(step, len(script) - 1)][0]
                async with self.client(model) as client, \
                        client.stream(messages, tools=self.tools) as events:
                    async for item in events:
                        if not isinstance(item, ChatResponse):
                            frames = encoder.encode(item)
                            if frames:
                                yield frames
                    response = events.response
                messages.append(response)
                if not response.tool_calls:
                    yield encoder.end_step(response)
                    break
                results = [await by_name[call.name].run_call(call) for call in
                           response.tool_calls if call.name in by_name]
                for result in results:
                    yield encoder.encode_tool_result(result)
                yield encoder.end_step(response)
                messages.append(FunctionExecutionResultMessage(results))
        except StreamError as error:
            yield encoder.encode_error(error)
        yield encoder.finish()


def create_app(*, delay: float = 0.04, upstream: ScriptedUpstream | None = None) -> Starlette:
    """The demo ASGI app; ``delay`` is the time between two recorded events of
    the upstream it starts on the first request (unless ``upstream`` is given;
    the app never closes one it was given)."""
    from starlette.applications import Starlette
    from starlette.responses import FileResponse, PlainTextResponse, StreamingResponse
    from starlette.routing import Route

    from ..conversation.tools import tool

    state: dict[str, DemoLoop] = {}
    lock = threading.Lock()

    def loop() -> DemoLoop:
        with lock:
            if "loop" not in state:
                state["loop"] = DemoLoop(upstream or ScriptedUpstream(delay=delay),
                                         [tool(get_weather)])
            return state["loop"]

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def bundle(request: Request) -> Response:
        if not BUNDLE.exists():  # built by npm, never committed
            return PlainTextResponse("the page script is not built: run `make web`", 503)
        return FileResponse(BUNDLE, media_type="text/javascript")

    async def chat(request: Request) -> Response:
        messages = ui_to_messages((await request.json()).get("messages") or [])
        if not messages or not isinstance(messages[-1], UserMessage):
            return PlainTextResponse("send a user message", 400)
        return StreamingResponse(loop().frames(messages),
                                 headers=dict(UI_MESSAGE_STREAM_HEADERS))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        if upstream is None and "loop" in state:
            state["loop"].upstream.close()

    return Starlette(routes=[
        Route("/", page),
        Route("/app.js", bundle),
        Route("/api/chat", chat, methods=["POST"]),
    ], lifespan=lifespan)


def serve(host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Run the demo with uvicorn until interrupted."""
    import uvicorn

    if not BUNDLE.exists():
        print("warning: the page script is not built; run `make web` (npm) first")
    print(f"streamkit web demo on http://{host}:{port}/")
    uvicorn.run(create_app(**options), host=host, port=port, log_level="warning")
