"""The ``bughouse-bridge`` command line: one subcommand per job, each in its own module.

Exit codes: 0 success, 1 runtime failure (unreadable file, lost device that never came back…),
2 bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, Protocol

from bughouse_bridge import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence


class Subcommand(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# name -> (module, one-line help). Modules are imported lazily so that `replay` never loads MQTT.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("bughouse_bridge.daemon.run", "run the bridge daemon (boards -> MQTT)"),
    "demo": ("bughouse_bridge.daemon.demo", "emulated boards + embedded broker + live view"),
    "replay": ("bughouse_bridge.daemon.replay", "replay a trace file and print its events"),
    "emulate": ("bughouse_bridge.daemon.emulate", "play a BPGN game on two emulated boards (ptys)"),
    "hall": (
        "bughouse_bridge.daemon.hall",
        "many tables on one broker: init, round, results, status",
    ),
    "web": ("bughouse_bridge.daemon.web", "serve the broadcast page and arbiter console"),
}


def _load(module_name: str) -> Subcommand:
    return importlib.import_module(module_name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bughouse-bridge",
        description="Referee and broadcast bridge for bughouse on DGT e-boards.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        _load(module_name).add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    module_name, _ = SUBCOMMANDS[args.command]
    return _load(module_name).run(args)
