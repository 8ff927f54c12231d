"""``bughouse-bridge hall …``: set up a hall's broker, publish rounds, collect results, status.

- ``hall init DIR --tables N``: broker configuration, users, ACL, TLS, one config per box;
- ``hall round FILE``: publish a round's pairings (retained) for the boxes to take;
- ``hall results --out DIR``: results (CSV + JSON) and BPGN files per round and table;
- ``hall status``: one line per box.

The MQTT-talking verbs read the broker address and the arbiter's credentials from the hall's
``credentials.toml`` (``--hall DIR``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.hall.broker import HallPlan, Uplink

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="hall_command", metavar="VERB")
    init = verbs.add_parser("init", help="write a hall's broker, users, ACL, TLS and box configs")
    init.add_argument("directory", type=Path, metavar="DIR")
    init.add_argument("--tables", type=int, required=True, help="number of tables (boxes)")
    init.add_argument("--host", default="localhost", help="the broker's name for the boxes")
    init.add_argument("--mqtt-port", type=int, default=8883, help="TLS MQTT port (boxes)")
    init.add_argument("--ws-port", type=int, default=9001, help="WebSockets port (browsers)")
    init.add_argument("--ws-tls", action="store_true", help="WebSockets over TLS (wss://)")
    init.add_argument("--uplink", help="HOST:PORT of a broker for remote viewers")
    init.add_argument("--root", default="bughouse/v1", help="MQTT topic root")
    init.add_argument("--rounds", type=int, default=15, help="rounds the ACL allows for")
    init.add_argument("--games-per-round", type=int, default=2, help="games per round and table")
    init.add_argument("--listen", default="0.0.0.0", help="address the listeners bind")  # noqa: S104
    init.add_argument(
        "--broker-user",
        help="user mosquitto switches to when started as root, owner of the files it reads "
        "(default: you; for root, the mosquitto user)",
    )
    init.add_argument("--force", action="store_true", help="overwrite an existing hall")

    round_ = verbs.add_parser("round", help="publish a round's pairings (retained)")
    round_.add_argument("file", type=Path, metavar="FILE", help="round file (.toml or .csv)")
    _connection_arguments(round_)

    results = verbs.add_parser("results", help="write results and BPGN files per round")
    results.add_argument("--out", type=Path, required=True, help="output directory")
    results.add_argument(
        "--listen",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="collect retained state this long, then write (one-shot); 0 = run as a service",
    )
    _connection_arguments(results)

    status = verbs.add_parser("status", help="one line per box")
    status.add_argument("--wait", type=float, default=2.0, help="seconds to collect")
    _connection_arguments(status)


def _connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hall", type=Path, default=Path(), help="the hall directory")
    parser.add_argument("--host", help="broker host (default: from credentials.toml)")
    parser.add_argument("--port", type=int, help="broker TLS port (default: credentials.toml)")


def run(args: argparse.Namespace) -> int:
    match args.hall_command:
        case "init":
            return _init(args)
        case "round":
            from bughouse_bridge.daemon.hall_round import publish_round  # noqa: PLC0415

            return asyncio.run(publish_round(args))
        case "results":
            from bughouse_bridge.daemon.hall_results import collect_results  # noqa: PLC0415

            return asyncio.run(collect_results(args))
        case "status":
            from bughouse_bridge.daemon.hall_results import print_status  # noqa: PLC0415

            return asyncio.run(print_status(args))
        case _:
            print("hall: expected one of init, round, results, status", file=sys.stderr)
            return 2


def _init(args: argparse.Namespace) -> int:
    from bughouse_bridge.daemon.hall_init import HallInitError, next_steps, write_hall  # noqa: PLC0415

    try:
        plan = HallPlan(
            tables=args.tables,
            host=args.host,
            mqtt_port=args.mqtt_port,
            ws_port=args.ws_port,
            ws_tls=args.ws_tls,
            root=args.root,
            rounds=args.rounds,
            games_per_round=args.games_per_round,
            uplink=Uplink.parse(args.uplink) if args.uplink else None,
            listen=args.listen,
            broker_user=args.broker_user,
        )
    except ValueError as error:
        print(f"hall init: {error}", file=sys.stderr)
        return 2
    try:
        _, written = write_hall(args.directory, plan, force=args.force)
    except (HallInitError, OSError) as error:
        print(f"hall init: {error}", file=sys.stderr)
        return 1
    print(next_steps(args.directory, written))
    return 0
