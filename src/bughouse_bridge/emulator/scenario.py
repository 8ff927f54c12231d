"""Scenarios that read like a game: hands move pieces, press clocks and pull cables over time.

A :class:`Scenario` has a time cursor (``wait``) and one :class:`Hands` per board (link). Hand
actions are recorded as timed :class:`Action` values; :func:`run_scenario` plays them against
:class:`~bughouse_bridge.emulator.board.EmulatedBoard` instances in-process and returns the wire
traffic as :class:`TraceRecord` values (the contract §1 trace format). The pty runner in
``drivers/pty_emulator.py`` plays the same actions in real time.

Primitive actions (``lift``, ``place``…) take no time; composite ones (``play_move``, ``slide``,
``capture``…) advance the cursor by human handling times drawn from a seeded ``random.Random``
and the :class:`Handling` knobs.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.dgt.commands import clock_version
from bughouse_bridge.dgt.constants import ClockButton, PieceCode
from bughouse_bridge.dgt.squares import code_to_piece, piece_to_code, square_to_field
from bughouse_bridge.emulator.board import BoardConfig, EmulatedBoard
from bughouse_bridge.trace import TraceRecord, format_record

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from bughouse_bridge.dgt.messages import LeverSide
    from bughouse_bridge.emulator.clock import ClockSetting

CLOCK_VERSION = clock_version()
CLOCK_ACK_WAIT = 0.6
PieceLike = chess.Piece | int


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


# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetField:
    field: int
    code: int


@dataclass(frozen=True, slots=True)
class PressClock:
    side: LeverSide | None = None


@dataclass(frozen=True, slots=True)
class PressButton:
    button: ClockButton


@dataclass(frozen=True, slots=True)
class SetClock:
    setting: ClockSetting


@dataclass(frozen=True, slots=True)
class StartClock:
    side: LeverSide


@dataclass(frozen=True, slots=True)
class HostWrite:
    data: bytes


@dataclass(frozen=True, slots=True)
class Inject:
    data: bytes


@dataclass(frozen=True, slots=True)
class Silence:
    duration: float


@dataclass(frozen=True, slots=True)
class Unplug:
    pass


@dataclass(frozen=True, slots=True)
class Replug:
    pass


Action = SetField | PressClock | PressButton | SetClock | StartClock | HostWrite | Inject | Silence
LinkAction = Unplug | Replug


@dataclass(frozen=True, slots=True)
class TimedAction:
    t: float
    seq: int
    link: str
    action: Action | LinkAction


def apply_action(board: EmulatedBoard, action: Action | LinkAction, t: float) -> None:  # noqa: C901
    """Apply one physical or host action to a board at ``t`` (shared with the pty runner)."""
    match action:
        case SetField(field=index, code=code):
            board.set_field(index, code, t)
        case PressClock(side=side):
            board.press_clock(t, side)
        case PressButton(button=button):
            board.press_button(button, t)
        case SetClock(setting=setting):
            board.set_clock(setting, t)
        case StartClock(side=side):
            board.start_clock(side, t)
        case HostWrite(data=data):
            board.receive(data, t)
        case Inject(data=data):
            board.inject(data, t)
        case Silence(duration=duration):
            board.silence(t + duration, t)
        case Unplug():
            board.unplug(t)
        case Replug():
            board.replug(t)


# --- trace ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkEvent:
    t: float
    link: str
    connected: bool


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    records: tuple[TraceRecord, ...]
    link_events: tuple[LinkEvent, ...]
    boards: Mapping[str, EmulatedBoard]

    def rx(self, link: str) -> list[TraceRecord]:
        return [r for r in self.records if r.link == link and r.direction == "rx"]


# --- the scenario ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Table:
    configs: dict[str, BoardConfig]
    placements: dict[str, tuple[int, ...]]


class Scenario:
    """Timed actions on one board or a table of boards, with a shared time cursor."""

    def __init__(  # noqa: PLR0913 - all knobs are keyword-only
        self,
        configs: Mapping[str, BoardConfig] | None = None,
        *,
        seed: int = 0,
        handling: Handling | None = None,
        noise: Noise | None = None,
        placements: Mapping[str, chess.BaseBoard] | None = None,
        start: float = 0.0,
    ) -> None:
        configs = dict(configs) if configs is not None else {"A": BoardConfig()}
        boards = {link: (placements or {}).get(link, chess.BaseBoard()) for link in configs}
        self.seed = seed
        self.rng = random.Random(seed)  # noqa: S311 - a seeded simulation
        self.handling = handling or Handling()
        self.noise = noise or Noise()
        self.t = start
        self.start = start
        self.actions: list[TimedAction] = []
        self._table = _Table(
            dict(configs),
            {link: _fields(board, configs[link].rotated) for link, board in boards.items()},
        )
        self._hands = {
            link: Hands(self, link, board.copy(), rotated=configs[link].rotated)
            for link, board in boards.items()
        }

    @property
    def links(self) -> list[str]:
        return list(self._hands)

    @property
    def configs(self) -> dict[str, BoardConfig]:
        return dict(self._table.configs)

    @property
    def placements(self) -> dict[str, tuple[int, ...]]:
        """Each board's physical placement at power-up, in DGT field order."""
        return dict(self._table.placements)

    def hands(self, link: str | None = None) -> Hands:
        return self._hands[link if link is not None else self.links[0]]

    def wait(self, seconds: float) -> Scenario:
        self.t += max(seconds, 0.0)
        return self

    def at(self, t: float) -> Scenario:
        self.t = max(t, self.t)
        return self

    def draw(self, span: Span) -> float:
        low, high = span
        return self.rng.uniform(low, high)

    def record(self, link: str, action: Action | LinkAction, t: float | None = None) -> None:
        when = self.t if t is None else t
        self.actions.append(TimedAction(when, len(self.actions), link, action))

    def host(self, data: bytes, link: str | None = None) -> Scenario:
        """The host writes ``data`` to a board at the cursor."""
        self.record(link or self.links[0], HostWrite(data))
        return self

    def host_startup(self, link: str | None = None, *, gap: float = 0.1) -> Scenario:
        """A host handshake (dgt-protocol.md §4.7): reset, version, serial, dump, UPDATE_NICE,
        clock version (then a pause for its ack), clock times."""
        for command in (b"\x40", b"\x4d", b"\x55", b"\x42", b"\x4b", CLOCK_VERSION, b"\x41"):
            if command == b"\x41":
                self.wait(CLOCK_ACK_WAIT)
            self.host(command, link)
            self.wait(gap)
        return self

    def sorted_actions(self) -> list[TimedAction]:
        return sorted(self.actions, key=lambda action: (action.t, action.seq))

    def build_boards(self) -> dict[str, EmulatedBoard]:
        """Fresh emulated boards in power-up state, seeded from the scenario seed."""
        return {
            link: EmulatedBoard(
                config,
                random.Random(f"{self.seed}:{link}"),  # noqa: S311
                placement=self._table.placements[link],
                now=self.start,
            )
            for link, config in self._table.configs.items()
        }


def _fields(board: chess.BaseBoard, rotated: bool) -> tuple[int, ...]:  # noqa: FBT001
    codes = [int(PieceCode.EMPTY)] * 64
    for square, piece in board.piece_map().items():
        codes[square_to_field(square, rotated=rotated)] = piece_to_code(piece)
    return tuple(codes)


def _code(piece: PieceLike | None) -> int:
    if piece is None:
        return PieceCode.EMPTY
    return piece if isinstance(piece, int) else piece_to_code(piece)


class Hands:
    """The hands over one board: what is on each square, and what is in the hand."""

    def __init__(
        self, scenario: Scenario, link: str, board: chess.BaseBoard, *, rotated: bool
    ) -> None:
        self._scenario = scenario
        self.link = link
        self._rotated = rotated
        self._codes: dict[chess.Square, int] = {
            square: piece_to_code(piece) for square, piece in board.piece_map().items()
        }
        self.held: int = PieceCode.EMPTY

    # -- reading

    def code_at(self, square: chess.Square) -> int:
        return self._codes.get(square, PieceCode.EMPTY)

    @property
    def t(self) -> float:
        return self._scenario.t

    def placement(self) -> chess.BaseBoard:
        """What stands on the board now (magic pieces and wrong codes left out)."""
        board = chess.BaseBoard.empty()
        for square, code in self._codes.items():
            piece = code_to_piece(code)
            if piece is not None:
                board.set_piece_at(square, piece)
        return board

    def arrange(self, target: chess.BaseBoard, duration: float) -> None:
        """Set the board up as ``target`` square by square (an arbiter resetting the pieces)."""
        wrong = [
            sq for sq in chess.SQUARES if self.code_at(sq) != piece_to_code(target.piece_at(sq))
        ]
        step = duration / max(len(wrong), 1)
        for square in wrong:
            self.set(square, target.piece_at(square))
            self._scenario.wait(step)

    # -- primitives (no time passes)

    def set(self, square: chess.Square, piece: PieceLike | None, t: float | None = None) -> None:
        """The sensor under ``square`` sees ``piece`` from the cursor (or ``t``) on."""
        code = _code(piece)
        if code == PieceCode.EMPTY:
            self._codes.pop(square, None)
        else:
            self._codes[square] = code
        field_index = square_to_field(square, rotated=self._rotated)
        self._scenario.record(self.link, SetField(field_index, code), t)

    def lift(self, square: chess.Square) -> int:
        """Pick up the piece on ``square``; it is now in the hand."""
        self.held = self.code_at(square)
        self.set(square, None)
        return self.held

    def place(self, square: chess.Square, piece: PieceLike | None = None) -> None:
        """Put ``piece`` (default: the piece in the hand) on ``square``."""
        code = _code(piece) if piece is not None else self.held
        self.set(square, code)
        if piece is None:
            self.held = PieceCode.EMPTY

    def press_clock(self, side: LeverSide | None = None, *, t: float | None = None) -> None:
        """Hit the lever at the cursor (or at ``t``: an early press, the hand still on a piece)."""
        self._scenario.record(self.link, PressClock(side), t)

    def press_button(self, button: ClockButton) -> None:
        self._scenario.record(self.link, PressButton(button))

    def set_clock(self, setting: ClockSetting) -> None:
        self._scenario.record(self.link, SetClock(setting))

    def start_clock(self, side: LeverSide) -> None:
        self._scenario.record(self.link, StartClock(side))

    def magic_piece(self, square: chess.Square, code: int = PieceCode.MAGIC_DRAW) -> None:
        """A result-signalling magic piece (0x0D draw, 0x0E white wins, 0x0F black wins)."""
        self.set(square, code)

    def garbage(self, data: bytes) -> None:
        self._scenario.record(self.link, Inject(data))

    def silence(self, duration: float) -> None:
        self._scenario.record(self.link, Silence(duration))

    def unplug(self) -> None:
        self._scenario.record(self.link, Unplug())

    def replug(self) -> None:
        self._scenario.record(self.link, Replug())

    def host(self, data: bytes) -> None:
        self._scenario.record(self.link, HostWrite(data))

    # -- artefacts with a duration (the cursor advances)

    def hover(
        self, square: chess.Square, piece: PieceLike | None = None, duration: float = 0.3
    ) -> None:
        """Hold a carried piece just over ``square``: the sensor sees it (a ghost), then not."""
        before = self.code_at(square)
        self.set(square, piece if piece is not None else self.held)
        self._scenario.wait(duration)
        self.set(square, before)

    def misread(self, square: chess.Square, code: int, duration: float) -> None:
        """The sensor of ``square`` reads ``code`` for ``duration``, then the truth again."""
        truth = self.code_at(square)
        self.set(square, code)
        self._scenario.wait(duration)
        self.set(square, truth)

    def knock_over(self, square: chess.Square, code: int | None = None) -> int:
        """A piece falls over: its square reads empty or a wrong code. Returns what it reads."""
        truth = self.code_at(square)
        if code is None:
            wrong = [c for c in range(1, 13) if c != truth]
            code = self._scenario.rng.choice([PieceCode.EMPTY, *wrong])
        self._scenario.record(
            self.link, SetField(square_to_field(square, rotated=self._rotated), code)
        )
        return code

    def set_upright(self, square: chess.Square) -> None:
        """Undo ``knock_over``: the square reads its piece again."""
        self.set(square, self.code_at(square))

    def slide(self, piece: PieceLike | None, path: Sequence[chess.Square]) -> None:
        """Slide ``piece`` (None: whatever stands on ``path[0]``) along ``path``, origin first,
        resting on each square for at least one scan so every square is reported."""
        code = _code(piece) if piece is not None else self.code_at(path[0])
        for previous, square in itertools.pairwise(path):
            self._scenario.wait(self._scenario.draw(self._scenario.handling.slide_step))
            self.set(previous, None)
            self.set(square, code)

    def capture(
        self,
        from_square: chess.Square,
        to_square: chess.Square,
        order: CaptureOrder | str = CaptureOrder.REPLACE,
        *,
        piece: PieceLike | None = None,
        victim_square: chess.Square | None = None,
    ) -> None:
        """Capture on ``to_square`` (``victim_square`` for en passant); ``piece`` for promotions."""
        order = CaptureOrder(order)
        victim = to_square if victim_square is None else victim_square
        mover = _code(piece) if piece is not None else self.code_at(from_square)
        sc = self._scenario
        if order is CaptureOrder.VICTIM_FIRST:
            self.lift(victim)
            sc.wait(sc.draw(sc.handling.reach))
            if self.chance(sc.handling.held_victim_probability):
                sc.wait(sc.draw(sc.handling.held))  # the victim in the hand, the capturer waits
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            self.place(to_square, mover)
        elif order is CaptureOrder.VICTIM_LAST or victim != to_square:
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            if victim == to_square:
                self.lift(victim)
                sc.wait(sc.draw(sc.handling.reach))
                self.place(to_square, mover)
            else:
                self.place(to_square, mover)
                sc.wait(sc.draw(sc.handling.reach))
                self.lift(victim)
        else:
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            self.set(to_square, mover)  # the victim is swept off as the capturer lands
        self.held = PieceCode.EMPTY

    def drop(self, square: chess.Square, piece: PieceLike, *, hover: bool = False) -> None:
        """A piece from the pocket is put on ``square``."""
        sc = self._scenario
        code = _code(piece)
        if hover:
            near = _neighbour(square, sc.rng)
            if near is not None and self.code_at(near) == PieceCode.EMPTY:
                self.hover(near, code, sc.draw(sc.handling.hover))
        sc.wait(sc.draw(sc.handling.reach))
        self.place(square, code)

    def move_piece(
        self,
        from_square: chess.Square,
        to_square: chess.Square,
        piece: PieceLike | None = None,
        *,
        hover_over: chess.Square | None = None,
    ) -> None:
        """Lift, carry (optionally hovering over a square), place."""
        sc = self._scenario
        code = _code(piece) if piece is not None else self.code_at(from_square)
        self.lift(from_square)
        travel = sc.draw(sc.handling.travel)
        if hover_over is not None and self.code_at(hover_over) == PieceCode.EMPTY:
            sc.wait(travel / 2)
            self.hover(hover_over, self.held, sc.draw(sc.handling.hover))
            sc.wait(travel / 2)
        else:
            sc.wait(travel)
        self.place(to_square, code)

    # -- whole moves

    def play_move(
        self, board_before: chess.Board, move: chess.Move, style: MoveStyle | None = None
    ) -> None:
        """Make ``move`` physically, handling it like a human would (seeded choices)."""
        style = self._resolve(board_before, move, style or MoveStyle())
        mover = board_before.piece_at(move.from_square) if move.drop is None else None
        if self.chance(self._scenario.handling.adjust_probability):
            self._adjust(board_before)
        if move.drop is not None:
            piece = chess.Piece(move.drop, board_before.turn)
            if self.chance(self._scenario.handling.slid_drop_probability):
                self._slid_drop(move.to_square, piece)
            else:
                self.drop(move.to_square, piece, hover=bool(style.hover))
            return
        assert mover is not None
        placed = chess.Piece(move.promotion, mover.color) if move.promotion else mover
        if board_before.is_castling(move):
            self._castle(board_before, move, style.castling or CastlingOrder.KING_FIRST)
        elif board_before.is_en_passant(move):
            victim = move.to_square - 8 if mover.color == chess.WHITE else move.to_square + 8
            self.capture(
                move.from_square,
                move.to_square,
                style.capture or CaptureOrder.VICTIM_LAST,
                victim_square=victim,
            )
        elif board_before.is_capture(move):
            if self.chance(self._scenario.handling.slid_capture_probability):
                self._slid_capture(move, placed, style.capture or CaptureOrder.REPLACE)
            elif style.slide:
                path = _path(move.from_square, move.to_square)
                self.slide(placed, path[:-1])
                self.capture(path[-2], move.to_square, style.capture or CaptureOrder.REPLACE)
            else:
                self.capture(
                    move.from_square,
                    move.to_square,
                    style.capture or CaptureOrder.REPLACE,
                    piece=placed,
                )
        elif style.slide:
            self.slide(placed, _path(move.from_square, move.to_square))
        else:
            hover_over = _between_square(move, self._scenario.rng) if style.hover else None
            self.move_piece(move.from_square, move.to_square, placed, hover_over=hover_over)

    def chance(self, probability: float) -> bool:
        """A seeded coin; none is thrown for a style that is off (existing seeds stay put)."""
        return probability > 0 and self._scenario.rng.random() < probability

    def _free_neighbour(self, square: chess.Square, *, avoid: chess.Square) -> chess.Square | None:
        near = [
            sq
            for sq in chess.SQUARES
            if chess.square_distance(sq, square) == 1
            and sq != avoid
            and self.code_at(sq) == PieceCode.EMPTY
        ]
        return self._scenario.rng.choice(near) if near else None

    def _slid_drop(self, square: chess.Square, piece: chess.Piece) -> None:
        """The dropped piece lands on a free neighbouring square and is slid onto its own."""
        sc = self._scenario
        near = self._free_neighbour(square, avoid=square)
        if near is not None and piece.piece_type == chess.PAWN and near in _BACK_RANKS:
            near = None  # nobody sets a pawn down on the first or last rank first
        sc.wait(sc.draw(sc.handling.reach))
        if near is None:
            self.place(square, piece)
            return
        self.place(near, piece)
        self.slide(piece, [near, square])

    def _slid_capture(self, move: chess.Move, placed: chess.Piece, order: CaptureOrder) -> None:
        """The capturer is set down next to its target, then slid in (the victim swept off, or
        lifted first)."""
        sc = self._scenario
        near = self._free_neighbour(move.to_square, avoid=move.from_square)
        if near is None:
            self.capture(move.from_square, move.to_square, order, piece=placed)
            return
        self.move_piece(move.from_square, near, placed)
        sc.wait(sc.draw(sc.handling.slide_step))
        self.capture(near, move.to_square, order)

    def _adjust(self, board: chess.Board) -> None:
        """J'adoube: one of the mover's pieces is lifted and set back on its square."""
        sc = self._scenario
        own = list(chess.SquareSet(board.occupied_co[board.turn]))
        if not own:
            return
        square = sc.rng.choice(own)
        self.lift(square)
        sc.wait(sc.draw(sc.handling.reach))
        self.place(square)
        sc.wait(sc.draw(sc.handling.reach))

    def _castle(self, board: chess.Board, move: chess.Move, order: CastlingOrder) -> None:
        king_to = move.to_square
        rook_from = move.to_square
        if board.is_kingside_castling(move):
            king_to = chess.square(6, chess.square_rank(move.from_square))
            rook_to = chess.square(5, chess.square_rank(move.from_square))
            rook_from = chess.square(7, chess.square_rank(move.from_square))
        else:
            king_to = chess.square(2, chess.square_rank(move.from_square))
            rook_to = chess.square(3, chess.square_rank(move.from_square))
            rook_from = chess.square(0, chess.square_rank(move.from_square))
        king = (move.from_square, king_to)
        rook = (rook_from, rook_to)
        first, second = (king, rook) if order is CastlingOrder.KING_FIRST else (rook, king)
        sc = self._scenario
        self.move_piece(*first)
        sc.wait(sc.draw(sc.handling.reach))
        self.move_piece(*second)

    def _resolve(self, board: chess.Board, move: chess.Move, style: MoveStyle) -> MoveStyle:
        rng = self._scenario.rng
        handling = self._scenario.handling
        capture = style.capture
        if capture is None:
            if board.is_en_passant(move):
                last = rng.random() < handling.ep_victim_last_probability
                capture = CaptureOrder.VICTIM_LAST if last else CaptureOrder.VICTIM_FIRST
            else:
                capture = rng.choices(list(CaptureOrder), weights=handling.capture_weights)[0]
        castling = style.castling
        if castling is None:
            king_first = rng.random() < handling.king_first_probability
            castling = CastlingOrder.KING_FIRST if king_first else CastlingOrder.ROOK_FIRST
        slide = style.slide
        if slide is None:
            slide = _slidable(board, move) and rng.random() < handling.slide_probability
        hover = style.hover
        if hover is None:
            hover = rng.random() < handling.hover_probability
        return MoveStyle(capture, castling, slide and _slidable(board, move), hover)


_BACK_RANKS = chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8)


def _slidable(board: chess.Board, move: chess.Move) -> bool:
    if move.drop is not None or board.is_castling(move) or board.is_en_passant(move):
        return False
    piece = board.piece_at(move.from_square)
    if piece is None or piece.piece_type not in {chess.ROOK, chess.BISHOP, chess.QUEEN}:
        return False
    return chess.square_distance(move.from_square, move.to_square) >= 3


def _path(from_square: chess.Square, to_square: chess.Square) -> list[chess.Square]:
    """The squares a sliding piece passes, origin and target included."""
    between = list(chess.SquareSet(chess.between(from_square, to_square)))
    between.sort(key=lambda sq: chess.square_distance(sq, from_square))
    return [from_square, *between, to_square]


def _between_square(move: chess.Move, rng: random.Random) -> chess.Square | None:
    between = list(chess.SquareSet(chess.between(move.from_square, move.to_square)))
    return rng.choice(between) if between else _neighbour(move.to_square, rng)


def _neighbour(square: chess.Square, rng: random.Random) -> chess.Square | None:
    near = [sq for sq in chess.SQUARES if chess.square_distance(sq, square) == 1]
    return rng.choice(near) if near else None


# --- running in-process ---------------------------------------------------------------------


def run_scenario(
    scenario: Scenario,
    *,
    until: float | None = None,
    boards: Mapping[str, EmulatedBoard] | None = None,
) -> ScenarioResult:
    """Play every action against fresh boards and collect the wire traffic in time order."""
    emulated = dict(boards) if boards is not None else scenario.build_boards()
    records: list[TraceRecord] = []
    link_events: list[LinkEvent] = []

    def drain(t: float) -> None:
        for link, board in emulated.items():
            records.extend(TraceRecord(when, link, "rx", data) for when, data in board.poll(t))

    for timed in scenario.sorted_actions():
        drain(timed.t)
        board = emulated[timed.link]
        if isinstance(timed.action, HostWrite):
            records.append(TraceRecord(timed.t, timed.link, "tx", timed.action.data))
        if isinstance(timed.action, Unplug | Replug):
            link_events.append(LinkEvent(timed.t, timed.link, isinstance(timed.action, Replug)))
        apply_action(board, timed.action, timed.t)
    end = until if until is not None else scenario.t + 1.0
    drain(end)
    records.sort(key=lambda record: record.t)
    return ScenarioResult(tuple(records), tuple(link_events), emulated)


def trace_lines(records: Iterable[TraceRecord]) -> list[str]:
    """The contract §1 JSON lines (without newlines) of ``records``."""
    return [format_record(record) for record in records]


__all__ = [
    "CaptureOrder",
    "CastlingOrder",
    "Handling",
    "Hands",
    "MoveStyle",
    "Noise",
    "Scenario",
    "ScenarioResult",
    "TraceRecord",
    "apply_action",
    "run_scenario",
]
