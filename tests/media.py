"""Real pictures and sounds for tests, built by hand (no imaging or audio library needed)."""

from __future__ import annotations

import io
import struct
import wave
import zlib


def png(width: int = 2, height: int = 2) -> bytes:
    """A real, decodable PNG, solid red."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def wav(frames: int = 800) -> bytes:
    """A real WAV of ``frames`` frames of 8 kHz 16-bit silence (800: a tenth of a second)."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\x00\x00" * frames)
    return out.getvalue()
