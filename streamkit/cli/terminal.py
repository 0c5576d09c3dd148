"""What the command line prints of a stream: never a control sequence a terminal acts on."""

from __future__ import annotations

__all__ = ["terminal_safe"]

# C0 controls but newline and tab, DEL, C1 controls (8-bit CSI, OSC...), and the
# bidirectional overrides that can make text read differently than it is.
_UNSAFE = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0),
           *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPES = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in _UNSAFE}


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape
    (``ESC`` -> ``\\x1b``): no cursor movement, screen clearing, window title or
    clipboard write (OSC 52) from a stream. Newlines and tabs stay."""
    return text.translate(_ESCAPES)
