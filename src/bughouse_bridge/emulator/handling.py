"""The knobs of a scenario's hands: human handling times and styles, and fault rates.

Frozen values a :class:`~bughouse_bridge.emulator.scenario.Scenario` draws from with its seeded
``random.Random``: :class:`Handling` (timings as uniform ranges, style weights, messy-hand
probabilities), :class:`Noise` (faults per move) and :class:`MoveStyle` (how one move is handled,
fixed or left to the weights), so a noisy trace says exactly how noisy it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class CaptureOrder(Enum):
    """How a capture is handled (dgt-protocol.md §5.1: replacement is the common case)."""

    VICTIM_FIRST = "victim_first"
    VICTIM_LAST = "victim_last"
    REPLACE = "replace"


class CastlingOrder(Enum):
    KING_FIRST = "king_first"
    ROOK_FIRST = "rook_first"


Span = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Handling:
    """How human hands move pieces: timings (seconds, uniform ranges) and style weights."""

    reach: Span = (0.10, 0.25)  # hand to the piece / between two touches
    travel: Span = (0.25, 0.55)  # a lifted piece to its target square
    slide_step: Span = (0.25, 0.40)  # per square of a slide: at least one scan
    to_clock: Span = (0.20, 0.50)  # from the placed piece to the clock lever
    hover: Span = (0.05, 0.40)  # a carried piece held over a square
    capture_weights: tuple[float, float, float] = (0.2, 0.1, 0.7)  # victim first / last / replace
    king_first_probability: float = 0.8
    slide_probability: float = 0.15  # rook, bishop or queen moving three or more squares
    hover_probability: float = 0.1
    ep_victim_last_probability: float = 0.5
    # Messy hands, all off by default (no random draw is made for a style that is off, so the
    # traces of existing seeds stay as they were):
    slid_drop_probability: float = 0.0  # a drop set on a free neighbouring square, slid in
    slid_capture_probability: float = 0.0  # a capturer set down next to its target, slid in
    held_victim_probability: float = 0.0  # a victim lifted first is held before the capture
    held: Span = (0.3, 1.2)  # how long a held piece stays in the hand
    adjust_probability: float = 0.0  # an own piece adjusted (lifted and set back) first
    early_press_probability: float = 0.0  # the press comes before the last piece is down
    early_press: Span = (0.02, 0.2)  # by this much (the other hand on the lever)


@dataclass(frozen=True, slots=True)
class Noise:
    """Faults per move (probabilities) for noisy traces; all zero for a clean game."""

    knock_over: float = 0.0  # a neighbouring piece is knocked over and set up again
    misread: float = 0.0  # a square reads a wrong code for a moment
    garbage: float = 0.0  # a few noise bytes on the line
    forgotten_press: float = 0.0  # the mover forgets the clock (presses late)
    misread_duration: Span = (0.05, 0.6)
    knock_over_duration: Span = (0.5, 2.0)


@dataclass(frozen=True, slots=True)
class MoveStyle:
    """How one move is handled; ``None`` fields are drawn from the :class:`Handling` weights."""

    capture: CaptureOrder | None = None
    castling: CastlingOrder | None = None
    slide: bool | None = None
    hover: bool | None = None


__all__ = ["CaptureOrder", "CastlingOrder", "Handling", "MoveStyle", "Noise", "Span"]
