"""``bughouse-bridge demo``: the whole product on one machine, offline, without configuration.

Two emulated DGT boards with clocks sit behind ptys and play a bundled real game at human pace;
the daemon reads them through the real serial path (pyserial), publishes on an embedded MQTT broker,
and a subscriber prints the live event stream until the result. The web page (broadcast, hall,
arbiter console) is served alongside and talks to the broker's WebSocket listener; after the
result page and broker stay up until interrupted (``--exit-at-end`` for scripts).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sys
import tempfile
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.rules import PRESETS, get_preset
from bughouse_bridge.config import ConfigError, load_settings
from bughouse_bridge.daemon.app import STOP_REPORT_AFTER, Daemon
from bughouse_bridge.daemon.emulate import board_configs, play_plan, wait_for_hosts
from bughouse_bridge.daemon.logging import setup_logging
from bughouse_bridge.daemon.stop_report import SlowStopReport
from bughouse_bridge.data import bundled_game, bundled_game_names
from bughouse_bridge.drivers.cancellation import raise_if_cancelled
from bughouse_bridge.drivers.mqtt_session import session
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.drivers.web_server import WebServer, WebServerError, page_config
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.game import Pace, game_scenario

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from bughouse_bridge.bughouse.bpgn import BpgnGame
    from bughouse_bridge.config import Settings

HOST_PATIENCE = 20.0  # seconds the boards wait for the daemon's handshake
AFTER_GAME = 5.0  # seconds to keep listening after the last move, for the result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--speed", type=float, default=1.0, help="play N times faster (default 1)")
    parser.add_argument(
        "--game", choices=bundled_game_names(), default=None, help="which bundled game to play"
    )
    parser.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        default="fics",
        help="rule preset the bridge referees with (default fics: the game was played on FICS)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the handling noise")
    parser.add_argument("--raw", action="store_true", help="print the JSON events as they come")
    parser.add_argument(
        "--web-port",
        type=int,
        default=8080,
        help="port of the web page (default 8080; a free one when taken; 0: any free port)",
    )
    parser.add_argument(
        "--exit-at-end",
        action="store_true",
        help="stop after the result instead of keeping the page and broker up (for scripts)",
    )
    parser.add_argument(
        "--open", action="store_true", help="open the page in a browser when a display is there"
    )


def run(args: argparse.Namespace) -> int:
    if args.speed <= 0:
        print("demo: --speed must be positive", file=sys.stderr)
        return 2
    setup_logging("warning")
    reader_gone = False
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C before the boards are set up
            return asyncio.run(_demo(args))
    except* BrokenPipeError:
        reader_gone = True
    if reader_gone:
        # Whoever read the output went away (``| head``): stop quietly, as ``yes | head`` does;
        # the output goes nowhere from now on, so that the exit's flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left
    return 0


async def _demo(args: argparse.Namespace) -> int:
    game = parse_bpgn(bundled_game(args.game))[0]
    with tempfile.TemporaryDirectory(prefix="bughouse-demo-") as tmp:
        workdir = Path(tmp)
        configs = board_configs("3000")
        runners = {
            link: PtyEmulator(
                EmulatedBoard(config, random.Random(f"{args.seed}:{link}")),  # noqa: S311
                link=link,
                symlink=workdir / f"board-{link.lower()}",
            )
            for link, config in configs.items()
        }
        try:
            settings = _demo_settings(game, args.rules, runners, workdir)
        except ConfigError as error:
            print(f"demo: {error}", file=sys.stderr)
            return 2
        _print_intro(game, settings, runners)
        try:
            web = _start_web(settings, args.web_port)
        except WebServerError as error:
            print(f"demo: {error}", file=sys.stderr)
            return 1
        page = f"{web.url}#/match/{settings.match_id}"
        print(f"  watch it live: {page}")
        print(f"  hall view: {web.url}   arbiter console: {web.url}#/console (any user name)")
        print(flush=True)
        if args.open:
            _open_browser(page)
        try:
            return await _run_demo(game, args, settings, runners)
        finally:
            web.close()
            for runner in runners.values():
                runner.close()


async def _run_demo(
    game: BpgnGame, args: argparse.Namespace, settings: Settings, runners: dict[str, PtyEmulator]
) -> int:
    """Play the game through the daemon until the end (``--exit-at-end``) or Ctrl-C / SIGTERM,
    then stop in order: the show, the viewer, the daemon (its MQTT drains, the broker closes)."""
    interrupted = _stop_on_signals()
    listening = asyncio.Event()
    result_seen = asyncio.Event()
    stopping = asyncio.Event()
    daemon = Daemon(settings)
    report = SlowStopReport(asyncio.get_running_loop(), after=STOP_REPORT_AFTER)
    with report:
        async with asyncio.TaskGroup() as tasks:
            daemon_task = tasks.create_task(daemon.run(), name="demo-daemon")
            viewer = tasks.create_task(
                _view(settings, listening, result_seen, stopping, raw=args.raw), name="demo-viewer"
            )
            show = tasks.create_task(
                _show(game, args, runners, listening, result_seen), name="demo-show"
            )
            stop = tasks.create_task(interrupted.wait(), name="demo-interrupted")
            await asyncio.wait([show, stop, daemon_task], return_when=asyncio.FIRST_COMPLETED)
            if interrupted.is_set():
                print("interrupted: stopping the daemon and the broker.", flush=True)
            report.start()
            stopping.set()
            for task in (show, stop, viewer):
                task.cancel()
            daemon.stop()
            await daemon_task
    print("demo finished.")
    return 0


async def _show(
    game: BpgnGame,
    args: argparse.Namespace,
    runners: dict[str, PtyEmulator],
    listening: asyncio.Event,
    result_seen: asyncio.Event,
) -> None:
    """The boards play the game once the viewer listens; after the result the page and the
    broker stay up (returns at once with ``--exit-at-end``)."""
    async with asyncio.timeout(30):
        await listening.wait()
    await wait_for_hosts(runners, HOST_PATIENCE)
    plan = game_scenario(
        game,
        rules=get_preset("fics"),
        configs=board_configs("3000"),
        seed=args.seed,
        # Faster than real time, hand-handling does not shrink: keep the boards in step.
        pace=Pace.fast(args.speed),  # keeps the game's order across the two boards
        with_host=False,
    )
    await play_plan(plan, runners, announce=False)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(AFTER_GAME):
            await result_seen.wait()
    if not args.exit_at_end:
        print("game over: the page and the broker stay up; Ctrl-C to stop.", flush=True)
        await asyncio.Event().wait()  # until interrupted


def _stop_on_signals() -> asyncio.Event:
    """Ctrl-C or SIGTERM set the returned event, and the demo stops in order (status 0).

    Not asyncio's default Ctrl-C, which cancels every task at once wherever it stands: the
    embedded broker's shutdown then raced the cancelled clients and once hung past the 30 s a
    test gave it. A second Ctrl-C ends the process at once, as a user who presses it twice
    means."""
    loop = asyncio.get_running_loop()
    interrupted = asyncio.Event()

    def request_stop() -> None:
        if interrupted.is_set():
            print("demo: interrupted twice, quitting at once.", file=sys.stderr, flush=True)
            os._exit(130)
        interrupted.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, request_stop)
    return interrupted


def _demo_settings(
    game: BpgnGame, rules: str, runners: dict[str, PtyEmulator], workdir: Path
) -> Settings:
    players = {seat: name for seat, name in _players(game).items() if name}
    first = {k: v for k, v in players.items() if k in {"black_a", "white_b"}}
    second = {k: v for k, v in players.items() if k in {"white_a", "black_b"}}
    return load_settings(
        None,
        overrides={
            "bridge_id": "demo",
            "match_id": "demo-game",
            "rules.preset": rules,
            "links": [
                {"name": link, "port": str(runner.symlink or runner.path)}
                for link, runner in runners.items()
            ],
            "mqtt.embedded": True,
            "mqtt.embedded_port": _free_port(),
            "mqtt.embedded_ws_port": _free_port(),
            "state_dir": str(workdir / "state"),
            "teams.first.id": "team-black-a",
            "teams.first.name": " & ".join(first.values()) or "Team 1",
            "teams.first.players": first,
            "teams.second.id": "team-white-a",
            "teams.second.name": " & ".join(second.values()) or "Team 2",
            "teams.second.players": second,
        },
    )


def _start_web(settings: Settings, port: int) -> WebServer:
    """The page's server; a free port when the asked one is taken (a second demo, say)."""
    mqtt = settings.mqtt
    assert mqtt.embedded_ws_port is not None
    config = page_config(broker_ws=None, ws_port=mqtt.embedded_ws_port, root=mqtt.root)
    server = WebServer(port=port, config=config)
    try:
        server.start()
    except WebServerError:
        if port == 0:
            raise
        server = WebServer(port=0, config=config)
        server.start()
    return server


def _open_browser(url: str) -> None:
    # Without a display, webbrowser may pick a text browser that takes over this terminal.
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("  (no display: open the address above in a browser)")
        return
    with contextlib.suppress(webbrowser.Error):
        webbrowser.open(url)


def _players(game: BpgnGame) -> dict[str, str]:
    tags = game.tags
    return {
        "white_a": tags.get("WhiteA", ""),
        "black_a": tags.get("BlackA", ""),
        "white_b": tags.get("WhiteB", ""),
        "black_b": tags.get("BlackB", ""),
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _print_intro(game: BpgnGame, settings: Settings, runners: dict[str, PtyEmulator]) -> None:
    tags = game.tags
    print(f"bughouse-bridge demo — {tags.get('Event', 'a bughouse game')}, {tags.get('Date', '')}")
    print(f"  board A: {tags.get('WhiteA')} (White) vs {tags.get('BlackA')} (Black)")
    print(f"  board B: {tags.get('WhiteB')} (White) vs {tags.get('BlackB')} (Black)")
    for link, runner in runners.items():
        print(f"  emulated board {link} on {runner.path}")
    mqtt = settings.mqtt
    root = f"{mqtt.root}/match/{settings.match_id}"
    print(f"  embedded MQTT broker on {mqtt.connect_host}:{mqtt.connect_port}, topics {root}/#")
    print(f"  rules: {settings.rules.preset}")
    print()


async def _view(
    settings: Settings,
    listening: asyncio.Event,
    result_seen: asyncio.Event,
    stopping: asyncio.Event,
    *,
    raw: bool,
) -> None:
    """Print the events as they come, reconnecting while the demo runs (the embedded broker
    may take a moment to accept connections); never once the demo stops, whatever the broker
    does meanwhile (it shuts down too)."""
    mqtt = settings.mqtt
    events_topic = f"{mqtt.root}/match/{settings.match_id}/events"
    while not stopping.is_set():
        raise_if_cancelled()
        try:
            async with session(aiomqtt.Client(mqtt.connect_host, mqtt.connect_port)) as client:
                await client.subscribe(events_topic, qos=1)
                listening.set()
                seen: set[tuple[str, int]] = set()
                async for message in client.messages:
                    raise_if_cancelled()
                    event = json.loads(bytes(message.payload))
                    key = (event.get("boot_id", ""), event.get("seq", -1))
                    if key in seen:  # QoS 1 is at-least-once: a consumer drops repeats
                        continue
                    seen.add(key)
                    print(json.dumps(event) if raw else describe(event), flush=True)
                    if event.get("type") == "result":
                        result_seen.set()
        except aiomqtt.MqttError:
            await asyncio.sleep(0.2)


def describe(event: dict[str, Any]) -> str:
    """One readable line for an event of the contract (the demo's live view)."""
    prefix = f"[{event.get('t', 0):7.1f}s] #{event.get('seq', '?'):<4}"
    kind = event.get("type")
    board = event.get("board") or "-"
    describer = _DESCRIBERS.get(str(kind))
    body = describer(event) if describer else json.dumps(event)
    after = "  (after the result)" if event.get("after_result") else ""
    return f"{prefix} {board}  {body}{after}"


def _describe_move(event: dict[str, Any]) -> str:
    ply = int(event["ply"])
    number = (ply + 1) // 2
    label = f"{number}." if event["color"] == "white" else f"{number}..."
    clock = event.get("clock_ms")
    clock_text = "" if clock is None else f"  ({clock // 60000}:{clock // 1000 % 60:02d} left)"
    steal = event.get("steal")
    steal_text = (
        "" if steal is None else f"  stole {steal['piece']} from {steal['board']}{steal['square']}"
    )
    pockets = event["pockets"]
    pocket_text = "  ".join(
        f"{b} w:{pockets[b]['white'] or '-'} b:{pockets[b]['black'] or '-'}" for b in ("A", "B")
    )
    return f"{label:<6}{event['san']:<9}{clock_text}{steal_text}   pockets {pocket_text}"


def _describe_alert(event: dict[str, Any]) -> str:
    rule = f" [{event['rule']}]" if event.get("rule") else ""
    return f"!! {event['severity'].upper()} {event['code']}{rule}: {event['message']}"


_DESCRIBERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "move": _describe_move,
    "alert": _describe_alert,
    "check": lambda e: f"   {e['color']} is in check",
    "mate": lambda e: f"## MATE ({e['status']}) against {e['color']}: {e['reason']}",
    "stalemate": lambda e: f"## stalemate ({e['status']}) for {e['color']}",
    "flag": lambda e: f"## {e['color']}'s flag fell",
    "clocks": lambda e: f"## clocks {e['status'].replace('_', ' ')}",
    "result": lambda e: (
        f"== RESULT {e['bpgn_result']} on board {e['board']} by {e['reason']}; "
        f"winner: {e['winner'] or 'draw'}"
    ),
    "link": lambda e: f"   link {e['link']} {e['status']}",
    "takeback": lambda e: f"   takeback, board now at ply {e['ply']}",
    "result_revoked": lambda e: f"== result revoked ({e['reason'] or 'no reason given'})",
}
