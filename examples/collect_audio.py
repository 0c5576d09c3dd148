"""Collect streamed audio (OpenAI Chat `delta.audio`) into a WAV file.

The bytes are appended to one bytearray as they arrive: no base64 re-encoding
per chunk. Run: .venv/bin/python examples/collect_audio.py [output.wav]
"""

import hashlib
import sys
from importlib import resources
from pathlib import Path

import streamkit

recording = resources.files("streamkit") / "demo_data" / "openai-chat-audio.sse"
data = recording.read_bytes()
chunks = [data[i:i + 4096] for i in range(0, len(data), 4096)]  # as a socket would deliver

final = streamkit.stream(iter(chunks), provider="openai").final()
(audio,) = final.data_blocks
out = Path(sys.argv[1] if len(sys.argv) > 1 else "example-audio.wav")
out.write_bytes(audio.to_wav())
print(f"{audio.media_type}: {audio.duration:.2f} s, {len(audio.data)} bytes, "
      f"sha256 {hashlib.sha256(audio.data).hexdigest()}")
print(f"transcript: {audio.transcript}")
print(f"wrote {out}")
