"""The ``demo``subcommand (placeholder until its issue lands)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def run(args: argparse.Namespace) -> int:
    del args
    print("bughouse-bridge demo: not available yet", file=sys.stderr)
    return 1
