"""STAND-IN FOR THE BRIDGE'S RECORD PUBLISHER (issue 20) — test use only.

The bridge does not yet publish the game record (contract §2: ``<match>/record/<n>`` per entry,
the ``<match>/record`` header) nor a box's games index (``bridge/<bridge>/games``). Until it does,
the browser tests build those payloads here, in the contract's exact shape, from a real game:
the moves are played through :class:`bughouse_bridge.bughouse.match.Match` (the bridge's own
rules core), so positions, pockets, SAN and steals are the bridge's; the clocks come from the
BPGN's clock comments. When issue 20 lands, the tests that use this module switch to the real
bridge (tests/web/test_review.py says which).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chess

from bughouse_bridge.bughouse.events import MovePlayed
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, color_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    import aiomqtt

START_MS = 300_000
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


@dataclass(frozen=True, slots=True)
class Ply:
    board: str
    san: str
    clock: float | None = None  # the mover's remaining seconds, as a BPGN {…} comment


def plies_of(game: Any) -> list[Ply]:
    return [Ply(m.board.name, m.san, m.clock) for m in game.moves]


def _ts(t: float) -> str:
    seconds = int(t)
    return f"2026-11-23T10:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{int(t * 1000) % 1000:03d}Z"


def record_entries(
    plies: Iterable[Ply], match_id: str, *, rules: str = "fics", t0: float = 10.0
) -> list[dict[str, Any]]:
    """One contract §2 entry per ply: the move, both boards, all pockets, both clocks after it."""
    match = Match(get_preset(rules))
    clocks = {
        board: {"white_ms": START_MS, "black_ms": START_MS, "running": None} for board in "AB"
    }
    entries = []
    for n, ply in enumerate(plies, start=1):
        board = BoardId(ply.board)
        move = match.parse_san(board, ply.san)
        played = next(e for e in match.play(move, t=t0 + n) if isinstance(e, MovePlayed))
        mover = color_name(played.color)
        if ply.clock is not None:
            clocks[ply.board][f"{mover}_ms"] = round(ply.clock * 1000)
        clocks[ply.board]["running"] = color_name(not played.color)
        steal = None
        if played.steal is not None:
            steal = {
                "board": str(played.steal.board),
                "square": chess.square_name(played.steal.square),
                "piece": played.steal.piece.symbol(),
            }
        entries.append(
            {
                "schema": 1,
                "match": match_id,
                "n": n,
                "t": t0 + n,
                "ts": _ts(t0 + n),
                "kind": "move",
                "board": ply.board,
                "color": mover,
                "ply": played.ply,
                "uci": played.move.uci,
                "san": played.san,
                "steal": steal,
                "forced": played.forced,
                "recovered": False,
                "order_certain": True,
                "boards": {b.value: {"fen": match.fen(b), "ply": match.ply(b)} for b in BoardId},
                "pockets": played.pockets.as_dict(),
                "clocks": json.loads(json.dumps(clocks)),
            }
        )
    return entries


def record_header(  # noqa: PLR0913 - the header's fields
    match_id: str,
    entries: int,
    *,
    teams: list[dict[str, Any]],
    result: dict[str, Any] | None = None,
    round_number: int | None = None,
    table: int | None = None,
    game: int = 1,
) -> dict[str, Any]:
    return {
        "schema": 1,
        "match": match_id,
        "entries": entries,
        "game": game,
        "round": round_number,
        "table": table,
        "teams": teams,
        "result": result,
        "start": {"A": START_FEN, "B": START_FEN},
    }


def games_index(
    bridge: str, table: int | None, current: str, games: list[dict[str, Any]]
) -> dict[str, Any]:
    """A box's games index (contract §2)."""
    return {"schema": 1, "bridge": bridge, "table": table, "current": current, "games": games}


async def publish_record(
    client: aiomqtt.Client,
    root: str,
    match_id: str,
    entries: list[dict[str, Any]],
    header: dict[str, Any],
) -> None:
    """Entries first, then the header that counts them: what the bridge does after a move."""
    base = f"{root}/match/{match_id}/record"
    for entry in entries:
        await client.publish(f"{base}/{entry['n']}", json.dumps(entry).encode(), 1, retain=True)
    await client.publish(base, json.dumps(header).encode(), 1, retain=True)


def state_after(  # noqa: PLR0913 - the snapshot's parts
    entries: list[dict[str, Any]],
    *,
    match_id: str,
    bridge: str,
    teams: list[dict[str, Any]],
    players: dict[str, str],
    result: dict[str, Any] | None = None,
    ts: str = "2026-11-23T10:00:00.000Z",
) -> dict[str, Any]:
    """A retained state (contract §4) that agrees with the last entry: what the bridge has
    published after it (the real bridge publishes this topic already; tests that can use it do)."""
    last = entries[-1] if entries else None
    boards = {}
    for board in "AB":
        fen = last["boards"][board]["fen"] if last else START_FEN
        moves = [e for e in entries if e["board"] == board and e["kind"] == "move"]
        turn = "white" if fen.split(" ")[1] == "w" else "black"
        clock = last["clocks"][board] if last else {"white_ms": START_MS, "black_ms": START_MS}
        boards[board] = {
            "fen": fen,
            "turn": turn,
            "ply": moves[-1]["ply"] if moves else 0,
            "last_move": moves[-1]["uci"] if moves else None,
            "status": "finished" if result else "playing",
            "clock": {**clock, "running": None if result else clock.get("running")},
            "link": "connected",
        }
    return {
        "schema": 1,
        "bridge": bridge,
        "match": match_id,
        "boot_id": "standin",
        "ts": ts,
        "t": last["t"] if last else 0.0,
        "type": "state",
        "rules": {"preset": "fics", "overrides": {}, "overridden_rows": []},
        "teams": teams,
        "players": players,
        "boards": boards,
        "pockets": last["pockets"] if last else {b: {"white": "", "black": ""} for b in "AB"},
        "result": result,
        "claims": [],
        "last_seq": len(entries),
    }
