"""The arbiter's verbs (contract §5): their arguments, and the door each one goes through.

Every verb that changes the game goes through the reconstructor's doors
(``MatchReconstructor.takeback``, ``set_pocket``, ``set_result``, …), never around them, so the
reader of the boards and the match always agree; a new game goes through the one
``start_game``. A verb raises :class:`CommandError` with a sentence for the arbiter when it
cannot be carried out; ``Bridge.command`` undoes anything a verb did before failing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bughouse_bridge.bughouse.referee import CLAIM_KINDS
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.hall.rounds import RoundFileError, round_from_dict
from bughouse_bridge.pipeline.output import Output
from bughouse_bridge.request_parsing import (
    DEFAULT_LIMITS,
    Limits,
    RequestError,
    parse_request,
    printable_verb,
    transaction_of,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import chess

    from bughouse_bridge.pipeline.lifecycle import GameLifecycle
    from bughouse_bridge.reconstruct import MatchReconstructor, Outcome


class CommandError(ValueError):
    """An arbiter request that cannot be carried out; the sentence goes back to the arbiter."""


class Table(Protocol):
    """What the verbs act on (the ``Bridge``)."""

    @property
    def reconstructor(self) -> MatchReconstructor: ...

    @property
    def games(self) -> GameLifecycle: ...

    def step(self, outcomes: Iterable[Outcome], now: float) -> Output: ...

    def start_game(self, now: float, *, next_game: bool) -> Output: ...

    def dumps(self, *boards: BoardId) -> Output: ...

    def status(self, now: float) -> dict[str, Any]: ...

    def untouched(self) -> bool: ...

    def checkpoint(self) -> object | None: ...

    def restore(self, checkpoint: object) -> None: ...


Result = tuple[dict[str, Any], Output]

# Verbs that change nothing: no checkpoint to roll back to, nothing for the journal.
READ_ONLY_VERBS = frozenset({"status"})

# A round's pairings (``hall_round``, the payload of ``<root>/hall/round``) nest deeper and hold
# more keys than any arbiter request: tables → team → players → seat, a key per table.
VERB_LIMITS = {
    "hall_round": Limits(payload_bytes=1024 * 1024, depth=6, keys=1024),
}


def limits_of(verb: str) -> Limits:
    return VERB_LIMITS.get(verb, DEFAULT_LIMITS)


def carry_out(
    table: Table, verb: str, payload: bytes, now: float
) -> tuple[dict[str, Any], Output, Exception | None]:
    """Carry out one request: the answer, what followed, and the exception of an unexpected
    failure (None: done, or refused with a sentence).

    Limits are checked first (``request_parsing``), so no payload can make this raise. A request
    that is refused or fails part-way is undone whole — everything it may change is copied
    before it runs (``Table.checkpoint``) — so a refused or failed request has changed nothing:
    the shell journals only requests answered ``ok: true``, a failed one is never replayed.
    """
    transaction: str | int | None = None
    checkpoint: object | None = None
    read_only = True
    try:
        request = parse_request(payload, limits_of(verb))
        transaction = transaction_of(request)
        handle = handler(verb)
        read_only = verb in READ_ONLY_VERBS
        checkpoint = None if read_only else table.checkpoint()
        result, output = handle(table, request, now)
    except (CommandError, RequestError) as error:
        if checkpoint is not None:
            table.restore(checkpoint)
        return {"transaction": transaction, "ok": False, "error": str(error)}, Output(), None
    except Exception as error:  # noqa: BLE001 - no request may kill the daemon
        if checkpoint is not None:
            table.restore(checkpoint)
        undone = checkpoint is not None or read_only
        sentence = (
            f"the bridge failed to carry out {printable_verb(verb)} ({type(error).__name__}); "
            + ("nothing was changed" if undone else "ask for status: it may be partly done")
        )
        return {"transaction": transaction, "ok": False, "error": sentence}, Output(), error
    return {"transaction": transaction, "ok": True, **result}, output, None


def handler(verb: str) -> Callable[[Table, Mapping[str, Any], float], Result]:
    if verb not in _VERBS:
        known = ", ".join(sorted(_VERBS))
        raise CommandError(f"unknown verb {printable_verb(verb)}; known verbs: {known}")
    return _VERBS[verb]


def _status(table: Table, request: Mapping[str, Any], now: float) -> Result:
    _expect_keys(request, ())
    return table.status(now), Output()


def _new_game(table: Table, request: Mapping[str, Any], now: float) -> Result:
    """Board dumps are requested; a game that was played gets the next number."""
    _expect_keys(request, ())
    return {}, table.start_game(now, next_game=not table.untouched())


def _set_result(table: Table, request: Mapping[str, Any], now: float) -> Result:
    _expect_keys(request, ("winner", "board", "reason"))
    winner = _team_index(table, request.get("winner"))
    board = _board_argument(request)
    reason = request.get("reason", "arbiter")
    if not isinstance(reason, str) or not reason:
        raise CommandError('\'reason\' must be a non-empty string, e.g. "resign" or "arbiter"')
    if table.reconstructor.match.result is not None:
        raise CommandError(
            "the match already has a result; revoke it (revoke_result) or start a new game"
        )
    outcomes = _door(lambda: table.reconstructor.set_result(winner, board, reason, now), "")
    return {}, table.step(outcomes, now)


def _takeback(table: Table, request: Mapping[str, Any], now: float) -> Result:
    _expect_keys(request, ("board",))
    board = _board_argument(request)
    reconstructor = table.reconstructor
    if reconstructor.match.ply(board) == 0:
        raise CommandError(f"board {board} has no move to take back")
    outcomes = _door(
        lambda: reconstructor.takeback(board, now), f"cannot take back on board {board}: "
    )
    return {"ply": reconstructor.match.ply(board)}, table.step(outcomes, now)


def _resync(table: Table, request: Mapping[str, Any], _now: float) -> Result:
    _expect_keys(request, ("board",))
    if "board" in request:
        return {}, table.dumps(_board_argument(request))
    return {}, table.dumps()


def _accept(table: Table, request: Mapping[str, Any], now: float) -> Result:
    _expect_keys(request, ("board",))
    board = _board_argument(request)
    reconstructor = table.reconstructor
    outcomes = _door(
        lambda: reconstructor.accept(board, now),
        f"cannot accept the position of board {board}: ",
    )
    match = reconstructor.match
    return {"ply": match.ply(board), "fen": match.fen(board)}, table.step(outcomes, now)


def _set_pocket(table: Table, request: Mapping[str, Any], now: float) -> Result:
    _expect_keys(request, ("board", "color", "pieces"))
    board = _board_argument(request)
    color = _color_argument(request)
    pieces = request.get("pieces")
    if not isinstance(pieces, str):
        raise CommandError('\'pieces\' must be a string of pocket letters, e.g. "PPN" or ""')
    reconstructor = table.reconstructor
    outcomes = _door(
        lambda: reconstructor.set_pocket(board, color, pieces, now), "cannot set that pocket: "
    )
    output = table.step(outcomes, now)
    return {"pockets": reconstructor.match.pockets().as_dict()}, output


def _confirm_claim(table: Table, request: Mapping[str, Any], now: float) -> Result:
    """Rows 10-13: the arbiter confirms a claim; the bridge checks it against what it saw."""
    _expect_keys(request, ("board", "color", "claim", "at"))
    board = _board_argument(request)
    color = _color_argument(request)
    claim = request.get("claim")
    if not isinstance(claim, str) or claim not in CLAIM_KINDS:
        raise CommandError(f"'claim' must be one of {', '.join(CLAIM_KINDS)}, not {claim!r}")
    at = request.get("at", now)
    if isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at <= now:
        raise CommandError(f"'at' must be a time in seconds between 0 and now ({now:.1f})")
    outcomes = _door(
        lambda: table.reconstructor.confirm_claim(board, color, claim, now, at),
        "the claim does not hold: ",
    )
    return {"claim": claim}, table.step(outcomes, now)


def _revoke_result(table: Table, request: Mapping[str, Any], now: float) -> Result:
    """The result is withdrawn; play goes on and later decisions (a mate) count."""
    _expect_keys(request, ("reason",))
    reason = request.get("reason", "")
    if not isinstance(reason, str):
        raise CommandError("'reason' must be a string")
    outcomes = _door(lambda: table.reconstructor.revoke_result(now, reason), "")
    return {}, table.step(outcomes, now)


def _hall_round(table: Table, request: Mapping[str, Any], now: float) -> Result:
    """Take this table's pairing from a published round (``<root>/hall/round``).

    An untouched game (no move, no result) begins again with the pairing at once; otherwise the
    pairing waits for the next game, which starts when both boards stand in the start position
    after the result. Rounds older than the current one, or the same pairing again, change
    nothing."""
    games = table.games
    if games.hall_table is None:
        raise CommandError("this bridge is not a hall box ([hall] table is not set)")
    try:
        pairing = round_from_dict(request).pairing(games.hall_table)
    except RoundFileError as error:
        raise CommandError(str(error)) from error
    untouched = table.untouched()
    if pairing is None or not games.take_pairing(pairing, untouched=untouched):
        return {"taken": False}, Output()
    output = table.start_game(now, next_game=False) if untouched else Output()
    return {"taken": True, "match": games.current.id.match}, output


def _choose_recovery(table: Table, request: Mapping[str, Any], now: float) -> Result:
    """A gap the bridge could not settle (alert ``gap_ambiguous``): the arbiter names the
    candidate whose moves replace it in the log."""
    _expect_keys(request, ("gap", "candidate"))
    gap, candidate = request.get("gap"), request.get("candidate")
    if type(gap) is not int or type(candidate) is not int:
        raise CommandError("'gap' and 'candidate' must be integers from the gap_ambiguous alert")
    outcomes = _door(lambda: table.reconstructor.choose_recovery(gap, candidate, now), "")
    return {"gap": gap, "candidate": candidate}, table.step(outcomes, now)


_VERBS: dict[str, Callable[[Table, Mapping[str, Any], float], Result]] = {
    "status": _status,
    "new_game": _new_game,
    "set_result": _set_result,
    "takeback": _takeback,
    "resync": _resync,
    "accept": _accept,
    "confirm_claim": _confirm_claim,
    "revoke_result": _revoke_result,
    "set_pocket": _set_pocket,
    "hall_round": _hall_round,
    "choose_recovery": _choose_recovery,
}


def _door(call: Callable[[], list[Outcome]], context: str) -> list[Outcome]:
    """A reconstructor door; its ValueError (the game does not allow it) is the arbiter's
    sentence."""
    try:
        return call()
    except ValueError as error:
        raise CommandError(f"{context}{error}") from error


def _expect_keys(request: Mapping[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(request) - {"transaction", *allowed})
    if unknown:
        expected = ", ".join(allowed) or "no arguments"
        raise CommandError(f"unknown argument(s) {', '.join(unknown)}; expected {expected}")


def _team_index(table: Table, winner: object) -> int | None:
    if winner is None:
        return None
    teams = table.games.current.id.teams
    if isinstance(winner, str) and winner in teams.ids:
        return teams.ids.index(winner)
    known = ", ".join(teams.ids)
    raise CommandError(f"'winner' must be one of {known} or null for a draw, not {winner!r}")


def _board_argument(request: Mapping[str, Any]) -> BoardId:
    board = request.get("board")
    if board not in ("A", "B"):
        raise CommandError(f'\'board\' must be "A" or "B", not {board!r}')
    return BoardId(board)


def _color_argument(request: Mapping[str, Any]) -> chess.Color:
    color = request.get("color")
    if color not in ("white", "black"):
        raise CommandError(f'\'color\' must be "white" or "black", not {color!r}')
    return bool(color == "white")  # chess.WHITE is True
