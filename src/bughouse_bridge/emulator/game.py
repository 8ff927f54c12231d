"""A BPGN game → the timed physical actions on two emulated boards (A and B).

The half-moves of a BPGN game are interleaved in real order and carry the mover's remaining clock
(``{118.585}``). Each board has its own timeline: a move's think time is the drop of the mover's
clock since their previous move (plus the increment), clamped and divided by ``speed``; the hands
then make the move (captures, drops from the pocket, promotions, steals), reach for the clock and
press it. Clocks are set from the ``TimeControl`` tag and started at ``start`` (Black presses,
White's time runs). Handling styles and faults come from a seeded ``random.Random`` and the explicit
:class:`~bughouse_bridge.emulator.handling.Handling` / :class:`Noise` knobs, so another engineer
can generate noisy traces for the reconstructor and say exactly how noisy they are.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.clock import ClockSetting
from bughouse_bridge.emulator.moves import play_move
from bughouse_bridge.emulator.scenario import Scenario

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.bpgn import BpgnGame, BpgnMove
    from bughouse_bridge.bughouse.rules import RuleSet
    from bughouse_bridge.bughouse.types import BughouseMove
    from bughouse_bridge.emulator.handling import Handling, Noise
    from bughouse_bridge.emulator.hands import Hands

DEFAULT_TIME_CONTROL = (300, 0)
LINKS: dict[BoardId, str] = {BoardId.A: "A", BoardId.B: "B"}


@dataclass(frozen=True, slots=True)
class Pace:
    """How fast the game is replayed."""

    speed: float = 1.0  # think times are divided by this
    min_think: float = 0.4  # seconds at speed 1, before dividing
    max_think: float = 120.0
    setup: float = 2.0  # from power-up/handshake to the first clock start
    # Hand-handling time does not shrink with ``speed``, so at high speeds one board's timeline
    # can run ahead of the other's and a drop would land before the capture that supplies it.
    # ``partner_order``: a drop or steal waits until every earlier half-move of the game on the
    # other board has been pressed, plus ``partner_margin``.
    partner_order: bool = False
    partner_margin: float = 0.6
    # Seconds (not scaled) from the opponent's press to the mover's hand reaching for a piece, so
    # that the scanner (one sweep ≈ 0.225 s) reports each move before the next one begins.
    min_reply: float = 0.0

    @classmethod
    def fast(cls, speed: float) -> Pace:
        """Faster than real time yet faithful: cross-board order kept, every move seen settled.

        The game still takes at least its handling time (about 1.7 s per half-move and board).
        """
        return cls(speed=speed, partner_order=True, min_reply=0.6)


@dataclass(frozen=True, slots=True)
class PlannedMove:
    """Where a half-move ended up in the scenario."""

    index: int
    board: BoardId
    label: str  # as BPGN numbers it: "12A." / "12a."
    san: str
    started: float  # the hand reaches for the first piece
    pressed: float  # the clock lever is hit


@dataclass(frozen=True, slots=True)
class GamePlan:
    scenario: Scenario
    moves: tuple[PlannedMove, ...]
    start: float  # when both clocks start
    end: float  # the last press plus a short tail
    final: dict[str, chess.BaseBoard]  # what stands on each board at the end


def game_scenario(  # noqa: PLR0913 - every knob is keyword-only and explicit
    game: BpgnGame,
    *,
    rules: RuleSet | None = None,
    configs: Mapping[str, BoardConfig] | None = None,
    seed: int = 0,
    pace: Pace | None = None,
    handling: Handling | None = None,
    noise: Noise | None = None,
    with_host: bool = True,
    set_up_from: Mapping[str, chess.BaseBoard] | None = None,
    fens: Mapping[BoardId, str] | None = None,
) -> GamePlan:
    """Plan ``game`` on a table of two boards ("A", "B"); ``with_host`` adds a host handshake.

    ``set_up_from`` is what physically stands on the boards before (e.g. the previous game's final
    position): the pieces are then set up during ``pace.setup`` before the clocks start.
    ``fens`` start the game from set-up positions (crazyhouse FENs, as ``Match`` takes them).
    """
    pace = pace or Pace()
    match = Match(rules or get_preset("fics"), fens=fens)
    initial = {link: chess.BaseBoard(match.board_fen(board)) for board, link in LINKS.items()}
    scenario = Scenario(
        configs or {"A": BoardConfig(), "B": BoardConfig(long_serial="3000123457", serial="12346")},
        seed=seed,
        handling=handling,
        noise=noise,
        placements=set_up_from if set_up_from is not None else initial,
    )
    ready = 0.0
    for link in LINKS.values():
        scenario.t = 0.0
        if set_up_from is not None:
            scenario.hands(link).arrange(initial[link], pace.setup / 2)
        if with_host:
            scenario.host_startup(link)
        ready = max(ready, scenario.t)
    start = ready + pace.setup
    base, increment = game.time_control or DEFAULT_TIME_CONTROL
    for link in LINKS.values():
        hands = scenario.hands(link)
        scenario.t = start - pace.setup / 2
        hands.set_clock(ClockSetting(base * 1000, base * 1000, None, increment * 1000))
        scenario.t = start
        hands.start_clock(scenario.configs[link].clock.white_side)
    planner = _Planner(scenario, match, pace, start, (float(base), float(increment)))
    planned = [planner.play(index, move) for index, move in enumerate(game.moves)]
    end = max([start, *(move.pressed for move in planned)]) + 2.0
    scenario.t = end
    final = {link: scenario.hands(link).placement() for link in LINKS.values()}
    return GamePlan(scenario, tuple(planned), start, end, final)


class _Planner:
    def __init__(
        self,
        scenario: Scenario,
        match: Match,
        pace: Pace,
        start: float,
        time_control: tuple[float, float],
    ) -> None:
        base, increment = time_control
        self.scenario = scenario
        self.match = match
        self.pace = pace
        self.increment = increment
        self.turn_started = dict.fromkeys(BoardId, start)
        self.last_pressed = dict.fromkeys(BoardId, start)
        self.hands_free = dict.fromkeys(BoardId, start)
        handling = scenario.handling
        self._handling = sum(sum(span) / 2 for span in (handling.reach, handling.travel))
        self._handling += sum(handling.to_clock) / 2
        self._least = min(handling.reach)
        self.remaining = {(board, color): base for board in BoardId for color in chess.COLORS}

    def play(self, index: int, bpgn_move: BpgnMove) -> PlannedMove:
        board_id = bpgn_move.board
        sc = self.scenario
        hands = sc.hands(LINKS[board_id])
        before = self.match.position(board_id)
        move = self.match.parse_san(board_id, bpgn_move.san)
        if bpgn_move.steal is not None:
            move = replace(move, steal_square=bpgn_move.steal[1])
        think = self._think(bpgn_move.board, bpgn_move.color, bpgn_move.clock)
        # The clock keeps running while the hands work: start early so the press lands on time.
        gap = max(think - self._handling, self._least, self.pace.min_reply)
        # After an early press, the reply starts once the last piece is down (as fast as ever).
        fastest = max(self._least, self.pace.min_reply)
        sc.t = max(self.turn_started[board_id] + gap, self.hands_free[board_id] + fastest)
        if self.pace.partner_order and (move.is_drop or move.is_steal):
            sc.t = max(sc.t, self.last_pressed[board_id.other] + self.pace.partner_margin)
        started = sc.t
        self._noise_before(hands, before)
        if move.is_steal and move.steal_square is not None:
            self._steal(move, before)
        else:
            play_move(hands, before, move.move)
        if hands.chance(sc.handling.early_press_probability):
            # The other hand hits the lever while the last piece is still on its way down.
            pressed = max(started, sc.t - sc.draw(sc.handling.early_press))
            hands.press_clock(t=pressed)
        else:
            sc.wait(sc.draw(sc.handling.to_clock))
            if sc.rng.random() < sc.noise.forgotten_press:
                sc.wait(sc.rng.uniform(1.0, 4.0))
            hands.press_clock()
            pressed = sc.t
        self.hands_free[board_id] = sc.t
        self.turn_started[board_id] = pressed
        self.last_pressed[board_id] = max(self.last_pressed[board_id], pressed)
        self.match.play(move, t=pressed)
        return PlannedMove(index, board_id, bpgn_move.label, bpgn_move.san, started, pressed)

    def _think(self, board: BoardId, color: chess.Color, clock: float | None) -> float:
        previous = self.remaining[board, color]
        if clock is None:
            spent = self.pace.min_think * 4
        else:
            spent = previous + self.increment - clock
            self.remaining[board, color] = clock
        clamped = min(max(spent, self.pace.min_think), self.pace.max_think)
        return clamped / self.pace.speed

    def _steal(self, move: BughouseMove, before: chess.Board) -> None:
        """Steal-promotion: the pawn leaves, the piece is taken from the partner's board."""
        assert move.steal_square is not None
        sc = self.scenario
        hands = sc.hands(LINKS[move.board])
        other = sc.hands(LINKS[move.board.other])
        # The stolen piece has the promoter's colour: it comes from the promoter's opponent's
        # partner, who plays the promoter's colour on the other board.
        other.lift(move.steal_square)
        sc.wait(sc.draw(sc.handling.travel))
        mover = before.piece_at(move.move.from_square)
        color = mover.color if mover is not None else before.turn
        promoted = chess.Piece(move.move.promotion or chess.QUEEN, color)
        plain = chess.Move(move.move.from_square, move.move.to_square)
        if before.is_capture(plain):
            hands.capture(move.move.from_square, move.move.to_square, piece=promoted)
        else:
            hands.move_piece(move.move.from_square, move.move.to_square, promoted)

    def _noise_before(self, hands: Hands, before: chess.Board) -> None:
        sc = self.scenario
        noise = sc.noise
        occupied = list(before.piece_map())
        if occupied and sc.rng.random() < noise.knock_over:
            square = sc.rng.choice(occupied)
            hands.knock_over(square)
            sc.wait(sc.draw(noise.knock_over_duration))
            hands.set_upright(square)
        if occupied and sc.rng.random() < noise.misread:
            square = sc.rng.choice(occupied)
            hands.misread(square, sc.rng.randint(1, 12), sc.draw(noise.misread_duration))
        if sc.rng.random() < noise.garbage:
            size = sc.rng.randint(1, 6)
            hands.garbage(bytes(sc.rng.randrange(256) for _ in range(size)))
