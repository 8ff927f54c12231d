"""The ``emulate`` subcommand: play a BPGN game on two emulated DGT boards, each behind a pty.

Prints the two device paths (and the symlinks made in ``--link-dir``), waits for a host to talk
to both boards (or starts after ``--wait-host`` seconds), then plays the game at human pace
(``--speed N``: think times N times shorter; at every speed a drop waits for the capture on the
other board that supplies it, as in ``demo``). ``--unplug A:30:10`` pulls board A's cable 30 s
after the clocks start and plugs it back 10 s later (the pieces keep moving meanwhile). At the end
it exits, keeps the final position (``--hold``) or sets the pieces up again and replays
(``--loop``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import BpgnError, parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.dgt.messages import ClockType
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.emulator.actions import Replug, TimedAction, Unplug
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.clock import ClockConfig
from bughouse_bridge.emulator.game import Pace, game_scenario

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import chess

    from bughouse_bridge.bughouse.bpgn import BpgnGame
    from bughouse_bridge.bughouse.rules import RuleSet
    from bughouse_bridge.emulator.game import GamePlan

CLOCK_KINDS: dict[str, ClockType | None] = {
    "3000": ClockType.DGT3000,
    "xl": ClockType.XL,
    "none": None,
}
HANDSHAKE_GRACE = 1.5  # after the host's first bytes, let it finish its handshake


LINKS = ("A", "B")
# Link actions sort after every scenario action at the same instant.
_LINK_ACTION_SEQ = 1_000_000_000


@dataclass(frozen=True, slots=True)
class UnplugSpec:
    """``--unplug LINK:AT:FOR``: pull ``link`` ``at`` s after the clocks start, for ``for_`` s."""

    link: str
    at: float
    for_: float


def parse_unplug(text: str) -> UnplugSpec:
    """``"A:30:10"`` → ``UnplugSpec("A", 30.0, 10.0)``; ValueError with the reason otherwise."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"{text!r} is not LINK:AT:FOR (e.g. A:30:10)")
    link, at_text, for_text = parts
    link = link.upper()
    if link not in LINKS:
        raise ValueError(f"{text!r}: the link must be A or B")
    try:
        at, for_ = float(at_text), float(for_text)
    except ValueError as error:
        raise ValueError(f"{text!r}: AT and FOR are seconds, e.g. A:30:10") from error
    if not (at >= 0 and for_ > 0) or not (math.isfinite(at) and math.isfinite(for_)):
        raise ValueError(f"{text!r}: AT must be >= 0 and FOR > 0 seconds")
    return UnplugSpec(link, at, for_)


def unplug_actions(specs: Iterable[UnplugSpec], start: float) -> list[TimedAction]:
    """The pty actions of ``--unplug``: times on the plan's clock (``start`` = clocks start)."""
    actions: list[TimedAction] = []
    for index, spec in enumerate(specs):
        seq = _LINK_ACTION_SEQ + 2 * index
        pulled = start + spec.at
        actions.append(TimedAction(pulled, seq, spec.link, Unplug()))
        actions.append(TimedAction(pulled + spec.for_, seq + 1, spec.link, Replug()))
    return actions


def emulation_plan(  # noqa: PLR0913 - plain keywords
    game: BpgnGame,
    *,
    rules: RuleSet,
    configs: Mapping[str, BoardConfig],
    seed: int,
    speed: float,
    set_up: Mapping[str, chess.BaseBoard] | None = None,
    with_host: bool = False,
) -> GamePlan:
    """The plan ``emulate`` plays: the demo's pace, which keeps the cross-board order (a drop
    waits for the capture that supplies it) at every speed. ``with_host`` adds a scripted host
    (tests replay the plan without a real one)."""
    return game_scenario(
        game,
        rules=rules,
        configs=configs,
        seed=seed,
        pace=Pace.fast(speed),
        with_host=with_host,
        set_up_from=set_up,
    )


def _unplug_argument(text: str) -> UnplugSpec:
    try:
        return parse_unplug(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


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
    parser.add_argument(
        "--unplug",
        type=_unplug_argument,
        action="append",
        default=[],
        metavar="LINK:AT:FOR",
        help="pull board LINK's cable AT seconds after the clocks start, for FOR seconds "
        "(repeatable; e.g. A:30:10)",
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
            plan = emulation_plan(
                game,
                rules=get_preset(args.rules),
                configs=configs,
                seed=seed,
                speed=args.speed,
                set_up=set_up,
            )
            await play_plan(plan, runners, extra=unplug_actions(args.unplug, plan.start))
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
    plan: GamePlan,
    runners: dict[str, PtyEmulator],
    *,
    announce: bool = True,
    extra: Iterable[TimedAction] = (),
) -> None:
    """Play ``plan`` on the ptys from now on; ``extra`` adds link actions (``--unplug``)."""
    loop = asyncio.get_running_loop()
    any_runner = next(iter(runners.values()))
    offset = any_runner.now()
    extra = list(extra)
    actions = sorted([*plan.scenario.sorted_actions(), *extra], key=lambda a: (a.t, a.seq))
    for runner in runners.values():
        runner.play(actions, offset=offset)
    origin = loop.time() - offset
    for planned in plan.moves if announce else ():
        text = f"{planned.label} {planned.san}"
        loop.call_at(origin + offset + planned.pressed, functools.partial(print, text, flush=True))
    for action in extra if announce else ():
        what = "unplugged" if isinstance(action.action, Unplug) else "plugged back in"
        text = f"board {action.link} {what}"
        loop.call_at(origin + offset + action.t, functools.partial(print, text, flush=True))
    for runner in runners.values():
        await runner.finished()
    await asyncio.sleep(max(0.0, origin + offset + plan.end - loop.time()))
