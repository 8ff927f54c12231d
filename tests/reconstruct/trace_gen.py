"""Test helper: BPGN games → noisy emulated DGT traces → replay through the reconstructor.

Traces come from the emulator (``emulator/game.py`` + ``run_scenario``): bytes on the wire, which
are decoded per link exactly as the bridge does, and fed with the trace time. Timers are fired at
their deadlines between records, as the replay CLI does.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import BpgnGame, BpgnMove, parse_bpgn
from bughouse_bridge.bughouse.events import MovePlayed, ResultDecided, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game, bundled_game_names
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import LeverSide
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.clock import ClockConfig
from bughouse_bridge.emulator.game import GamePlan, Pace, game_scenario
from bughouse_bridge.emulator.handling import Handling, Noise
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.reconstruct import MatchReconstructor, Outcome, ReconstructorConfig

if TYPE_CHECKING:
    from bughouse_bridge.trace import TraceRecord


def real_games() -> dict[str, BpgnGame]:
    """The real games bundled with the package (the shared data's copies, ``test_bpgn``)."""
    return {name: parse_bpgn(bundled_game(name))[0] for name in bundled_game_names()}


def expected_moves(game: BpgnGame, preset: str = "fics") -> list[tuple[str, str]]:
    """(board, uci) of every half-move, replayed on a fresh match."""
    match = Match(get_preset(preset))
    moves = []
    for bpgn_move in game.moves:
        move = match.parse_san(bpgn_move.board, bpgn_move.san)
        match.play(move, t=0.0)
        moves.append((str(move.board), move.uci))
    return moves


NOISY = Noise(knock_over=0.03, misread=0.05, garbage=0.05, forgotten_press=0.03)
RESTLESS = Handling(slide_probability=0.5, hover_probability=0.4)
# How bughouse players really handle pieces in a hurry: drops set next to their square and slid
# in, captures set down next to the victim and slid in, victims lifted first and held, pieces
# adjusted before the move, and presses that come before the last piece is down.
MESSY = Handling(
    slide_probability=0.3,
    capture_weights=(0.5, 0.1, 0.4),
    slid_drop_probability=0.4,
    slid_capture_probability=0.4,
    held_victim_probability=0.5,
    adjust_probability=0.1,
    early_press_probability=0.4,
)
KNOCKED = Noise(knock_over=0.08)


def random_game(seed: int, plies: int = 60) -> BpgnGame:
    """A random legal bughouse game (fics rules) as BPGN half-moves, the boards interleaved at
    random. Captures and drops are preferred, so pockets fill and drops come often."""
    rng = random.Random(seed)
    match = Match(get_preset("fics"))
    moves: list[BpgnMove] = []
    for _ in range(plies):
        board = rng.choice(list(BoardId))
        legal = match.legal_moves(board)
        if not legal or match.result is not None:
            break
        position = match.position(board)
        lively = [m for m in legal if m.is_drop or position.is_capture(m.move)]
        move = rng.choice(lively if lively and rng.random() < 0.6 else legal)
        number = position.fullmove_number
        moves.append(BpgnMove(board, position.turn, number, match.san(move)))
        match.play(move, t=0.0)
    return BpgnGame(tags={"Event": f"random {seed}"}, moves=tuple(moves))


@dataclass(frozen=True, slots=True)
class Table:
    """The physical set-up: board orientations and the side White's clock is on."""

    rotated: dict[str, bool] = field(default_factory=lambda: {"A": False, "B": False})
    white_side: dict[str, LeverSide] = field(
        default_factory=lambda: {"A": LeverSide.LEFT, "B": LeverSide.LEFT}
    )

    def configs(self) -> dict[str, BoardConfig]:
        return {
            link: BoardConfig(
                serial=f"1234{index}",
                long_serial=f"300012345{index}",
                rotated=self.rotated[link],
                clock=ClockConfig(white_side=self.white_side[link]),
            )
            for index, link in enumerate(("A", "B"))
        }


def game_trace(  # noqa: PLR0913 - test knobs
    game: BpgnGame,
    seed: int,
    *,
    noise: Noise | None = None,
    handling: Handling | None = None,
    table: Table | None = None,
    speed: float = 1.0,
    pace: Pace | None = None,
) -> tuple[GamePlan, list[TraceRecord]]:
    plan = game_scenario(
        game,
        configs=(table or Table()).configs(),
        seed=seed,
        pace=pace or Pace(speed=speed),
        handling=handling,
        noise=noise,
    )
    return plan, list(run_scenario(plan.scenario, until=plan.end).records)


@functools.cache
def _played(moves: tuple[BpgnMove, ...]) -> tuple[tuple[tuple[str, str], ...], bool]:
    """Each move of a game as (board, uci), and whether the game ends in a decision. The same
    for every seed and style, so it is played once per game (played twice per seed, it cost
    about a sixth of a game test's time)."""
    match = Match(get_preset("fics"))
    played = []
    for bpgn_move in moves:
        move = match.parse_san(bpgn_move.board, bpgn_move.san)
        match.play(move, t=0.0)
        played.append((str(move.board), move.uci))
    return tuple(played), match.result is not None


def expected_per_board(game: BpgnGame, plan: GamePlan) -> dict[str, list[str]]:
    """Each board's moves (uci). The emulator times each board on its own, so moves pressed after
    the decisive move (on the other board) physically come after the end and do not count."""
    pressed = {planned.index: planned.pressed for planned in plan.moves}
    played, decided = _played(game.moves)
    end = pressed[len(game.moves) - 1] if decided else float("inf")
    return {
        board: [
            uci for index, (on, uci) in enumerate(played) if on == board and pressed[index] <= end
        ]
        for board in ("A", "B")
    }


def all_per_board(game: BpgnGame) -> dict[str, list[str]]:
    """Each board's moves (uci), all of them: those made after the decisive move included."""
    return per_board(list(_played(game.moves)[0]))


def per_board(moves: list[tuple[str, str]]) -> dict[str, list[str]]:
    return {board: [uci for on, uci in moves if on == board] for board in ("A", "B")}


@dataclass(slots=True)
class Replay:
    reconstructor: MatchReconstructor
    outcomes: list[Outcome] = field(default_factory=list)
    messages: int = 0

    def moves(self, *, until_result: bool = False) -> list[tuple[str, str]]:
        """The effective move list: takebacks remove the board's last move. The boards are
        still read after a result; ``until_result`` stops at it."""
        moves: list[tuple[str, str]] = []
        for outcome in self.outcomes:
            if until_result and isinstance(outcome, ResultDecided):
                break
            if isinstance(outcome, MovePlayed):
                moves.append((str(outcome.board), outcome.move.uci))
            elif isinstance(outcome, Takeback):
                last = max(i for i, (board, _) in enumerate(moves) if board == outcome.board)
                del moves[last]
        return moves

    def of_type(self, kind: type) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if isinstance(outcome, kind)]


def replay(
    records: list[TraceRecord],
    *,
    preset: str = "fics",
    config: ReconstructorConfig | None = None,
    tail: float = 10.0,
) -> Replay:
    rec = MatchReconstructor(Match(get_preset(preset)), config or ReconstructorConfig())
    result = Replay(rec)
    decoders = {board: DgtDecoder() for board in BoardId}
    for record in records:
        if record.direction != "rx":
            continue
        run_timers(result, record.t)
        board = BoardId(record.link)
        for message in decoders[board].feed(record.data):
            result.messages += 1
            result.outcomes += rec.on_message(board, message, record.t)
    end = (records[-1].t if records else 0.0) + tail
    run_timers(result, end)
    return result


def run_timers(result: Replay, until: float) -> None:
    rec = result.reconstructor
    while (deadline := rec.deadline()) is not None and deadline <= until:
        result.outcomes += rec.on_timer(deadline)
