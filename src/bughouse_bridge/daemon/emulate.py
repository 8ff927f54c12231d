"""The ``emulate`` subcommand: play a BPGN game on two emulated DGT boards, each behind a pty.

Prints the two device paths (and the symlinks made in ``--link-dir``), waits for a host to talk
to both boards (or starts after ``--wait-host`` seconds), then plays the game at human pace
(``--speed N``: think times N times shorter). At the end it exits, keeps the final position
(``--hold``) or sets the pieces up again and replays (``--loop``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import BpgnError, parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.dgt.messages import ClockType
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.emulator.board import BoardConfig, EmulatedBoard
from bughouse_bridge.emulator.clock import ClockConfig
from bughouse_bridge.emulator.game import Pace, game_scenario

if TYPE_CHECKING:
    import argparse

    import chess

    from bughouse_bridge.bughouse.bpgn import BpgnGame
    from bughouse_bridge.emulator.game import GamePlan

CLOCK_KINDS: dict[str, ClockType | None] = {
    "3000": ClockType.DGT3000,
    "xl": ClockType.XL,
    "none": None,
}
HANDSHAKE_GRACE = 1.5  # after the host's first bytes, let it finish its handshake


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=Path, metavar="GAME.bpgn", help="the game to play")
    parser.add_argument("--speed", type=float, default=1.0, help="think times N times shorter")
    parser.add_argument("--link-dir", type=Path, help="make board-a / board-b symlinks here")
    parser.add_argument("--clock", choices=sorted(CLOCK_KINDS), default="3000")
    parser.add_argument("--loop", action="store_true", help="set up again and replay forever")
    parser.add_argument("--hold", action="store_true", help="keep the final position until ^C")
    parser.add_argument("--seed", type=int, default=0, help="seed of the handling noise")
    parser.add_argument("--rules", default="fics", help="rule preset used to read the moves")
    parser.add_argument("--game-index", type=int, default=0, help="which game of the file")
    parser.add_argument(
        "--wait-host", type=float, default=10.0, help="seconds to wait for a host (then start)"
    )


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        print("emulate: --speed must be positive", file=sys.stderr)
        return 2
    try:
        get_preset(args.rules)
    except ValueError as error:
        print(f"emulate: {error}", file=sys.stderr)
        return 2
    game = _chosen_game(args)
    if isinstance(game, str):
        print(f"emulate: {game}", file=sys.stderr)
        return 1
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(_emulate(game, args))
    return 0


def _chosen_game(args: argparse.Namespace) -> BpgnGame | str:
    """The game to play, or why there is none."""
    try:
        games = [game for game in parse_bpgn(args.game.read_text(encoding="utf-8")) if game.moves]
    except (OSError, BpgnError, UnicodeDecodeError) as error:
        return f"cannot read {args.game}: {error}"
    if not 0 <= args.game_index < len(games):
        return f"{args.game} has {len(games)} game(s) with moves"
    game: BpgnGame = games[args.game_index]
    if forced := [move for move in game.moves if move.forced or move.is_null]:
        move = forced[0]
        return (
            f"{args.game} holds an illegal drop that stood ({move.label} {move.san}, "
            "docs/bpgn.md); the emulator plays legal moves only"
        )
    return game


def board_configs(clock: str) -> dict[str, BoardConfig]:
    kind = CLOCK_KINDS[clock]
    return {
        "A": BoardConfig(clock=ClockConfig(kind=kind)),
        "B": BoardConfig(serial="12346", long_serial="3000123457", clock=ClockConfig(kind=kind)),
    }


async def _emulate(game: BpgnGame, args: argparse.Namespace) -> int:
    configs = board_configs(args.clock)
    if args.link_dir is not None:
        args.link_dir.mkdir(parents=True, exist_ok=True)
    runners = {
        link: PtyEmulator(
            EmulatedBoard(config, random.Random(f"{args.seed}:{link}")),  # noqa: S311
            link=link,
            symlink=args.link_dir / f"board-{link.lower()}" if args.link_dir else None,
        )
        for link, config in configs.items()
    }
    try:
        for link, runner in runners.items():
            shown = f" -> {runner.symlink}" if runner.symlink else ""
            print(f"board {link}: {runner.path}{shown}", flush=True)
        await wait_for_hosts(runners, args.wait_host)
        set_up: dict[str, chess.BaseBoard] | None = None
        seed = args.seed
        while True:
            plan = game_scenario(
                game,
                rules=get_preset(args.rules),
                configs=configs,
                seed=seed,
                pace=Pace(speed=args.speed),
                with_host=False,
                set_up_from=set_up,
            )
            await play_plan(plan, runners)
            if not args.loop:
                break
            set_up, seed = plan.final, seed + 1
        print("game over", flush=True)
        if args.hold:
            await asyncio.Event().wait()
    finally:
        for runner in runners.values():
            runner.close()
    return 0


async def wait_for_hosts(runners: dict[str, PtyEmulator], patience: float) -> None:
    waits = [runner.host_seen.wait() for runner in runners.values()]
    try:
        async with asyncio.timeout(patience):
            await asyncio.gather(*waits)
        await asyncio.sleep(HANDSHAKE_GRACE)
    except TimeoutError:
        print("no host on every board yet: starting anyway", flush=True)


async def play_plan(
    plan: GamePlan, runners: dict[str, PtyEmulator], *, announce: bool = True
) -> None:
    loop = asyncio.get_running_loop()
    any_runner = next(iter(runners.values()))
    offset = any_runner.now()
    actions = plan.scenario.sorted_actions()
    for runner in runners.values():
        runner.play(actions, offset=offset)
    origin = loop.time() - offset
    for planned in plan.moves if announce else ():
        text = f"{planned.label} {planned.san}"
        loop.call_at(origin + offset + planned.pressed, functools.partial(print, text, flush=True))
    for runner in runners.values():
        await runner.finished()
    await asyncio.sleep(max(0.0, origin + offset + plan.end - loop.time()))
