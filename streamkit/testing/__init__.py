"""Testing an app that talks to an LLM, over real sockets on 127.0.0.1: ``streamkit.testing``.

- :mod:`.server`: :class:`ReplayServer`, a real HTTP/1.1 server replaying recorded
  streams (reply sequences, computed replies, requests kept), and
  :class:`ThreadedReplayServer`, the same for synchronous code; what a test gives
  it and reads back is :mod:`.replies` (:class:`Reply`, :class:`RecordedRequest`),
  and :mod:`.connection` serves one connection with h11;
- :mod:`.recordings`: :func:`load_recording`, a recorded body with the content type
  its file's suffix says;
- :mod:`.fakes`: :class:`FakeProvider`, scripted answers written in every wire at
  once, paced like a real stream.
"""

from .fakes import CHARS_PER_TOKEN, Answer, FakeProvider, FakeRequest, Pacing, Script
from .recordings import load_recording
from .replies import SECRET_HEADERS, RecordedRequest, Reply, Responder
from .server import ReplayServer, ThreadedReplayServer

__all__ = [
    "CHARS_PER_TOKEN",
    "SECRET_HEADERS",
    "Answer",
    "FakeProvider",
    "FakeRequest",
    "Pacing",
    "RecordedRequest",
    "ReplayServer",
    "Reply",
    "Responder",
    "Script",
    "ThreadedReplayServer",
    "load_recording",
]
