"""DGT decoder throughput on a realistic board stream, fed in small chunks.

Run: .venv/bin/python bench/bench_decoder.py

The stream imitates one board in UPDATE mode during a game: one BWTIME a second, a move every few
seconds (2-6 field updates, sliding and capture artefacts included), a board dump after most moves
(the reconstructor asks for one when the board settles), a little line noise. The figures are
reported as a multiple of the 960 bytes/s a board can send at 9600 baud, and written into the
"Decoder throughput" section of bench/README.md.
"""

from __future__ import annotations

import platform
import random
import subprocess
import sys
import time
from pathlib import Path

import chess

from bughouse_bridge.dgt.constants import WIRE_BYTES_PER_SECOND
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, FieldUpdate, Message
from bughouse_bridge.dgt.squares import board_to_dump
from readme_section import write_section

GAME_SECONDS = 1800
CHUNK_SIZES = (1, 8, 32)
REPEATS = 5
HEADING = "## Decoder throughput"


def _clock(second: int) -> ClockTimes:
    left = max(0, 900 - second // 2)
    right = max(0, 900 - (second + 1) // 2)

    def face(total: int) -> ClockFace:
        return ClockFace(total // 3600, total // 60 % 60, total % 60, time_per_move=True)

    return ClockTimes(right=face(right), left=face(left), status=0x09 if second % 2 else 0x13)


def _move_updates(rng: random.Random) -> list[Message]:
    fields = rng.sample(range(64), 6)
    count = rng.choice((2, 2, 2, 3, 4, 6))
    return [FieldUpdate(field, rng.randrange(13)) for field in fields[:count]]


def build_stream(seed: int = 1) -> tuple[bytes, int]:
    rng = random.Random(seed)
    dump = encode_message(board_to_dump(chess.BaseBoard()))
    parts: list[bytes] = []
    messages = 0
    for second in range(GAME_SECONDS):
        parts.append(encode_message(_clock(second)))
        messages += 1
        if rng.random() < 0.4:
            updates = _move_updates(rng)
            parts.extend(encode_message(update) for update in updates)
            messages += len(updates)
            if rng.random() < 0.7:
                parts.append(dump)
                messages += 1
        if rng.random() < 0.01:
            parts.append(bytes(rng.randrange(0x80) for _ in range(rng.randrange(1, 5))))
    return b"".join(parts), messages


def measure(stream: bytes, chunk_size: int) -> tuple[float, int]:
    """Best wall time of REPEATS decodes of ``stream`` in ``chunk_size`` pieces."""
    chunks = [stream[i : i + chunk_size] for i in range(0, len(stream), chunk_size)]
    best = float("inf")
    decoded = 0
    for _ in range(REPEATS):
        decoder = DgtDecoder()
        start = time.perf_counter()
        decoded = sum(len(decoder.feed(chunk)) for chunk in chunks)
        best = min(best, time.perf_counter() - start)
    return best, decoded


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def nproc() -> str:
    return subprocess.run(["nproc"], capture_output=True, text=True, check=False).stdout.strip()  # noqa: S607 - coreutils on PATH


def report(stream: bytes, messages: int) -> str:
    lines = [
        HEADING,
        "",
        "Run: `.venv/bin/python bench/bench_decoder.py` (rewrites this section).",
        "",
        (
            f"Stream: a simulated {GAME_SECONDS} s game on one board, {len(stream)} bytes, "
            f"{messages} messages (BWTIME 1/s, field updates, dumps after moves, line noise); "
            f"best of {REPEATS} runs. 1x = {WIRE_BYTES_PER_SECOND:.0f} bytes/s, one board at "
            "9600 baud."
        ),
        "",
        "| chunk (bytes) | bytes/s | messages/s | x one board |",
        "|---:|---:|---:|---:|",
    ]
    for chunk_size in CHUNK_SIZES:
        seconds, decoded = measure(stream, chunk_size)
        rate = len(stream) / seconds
        row = (
            f"| {chunk_size} | {rate:,.0f} | {decoded / seconds:,.0f} | "
            f"{rate / WIRE_BYTES_PER_SECOND:,.0f}x |"
        )
        lines.append(row)
        print(row)
    lines += [
        "",
        f"Machine: {nproc()} CPUs, {cpu_model()}, Python {sys.version.split()[0]}.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    stream, messages = build_stream()
    print(f"{len(stream)} bytes, {messages} messages")
    write_section(HEADING, report(stream, messages))


if __name__ == "__main__":
    main()
