"""The pure core's configuration (built from the settings by ``daemon/wiring.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bughouse_bridge.topics import DEFAULT_ROOT, Teams

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.rules import RuleSet
    from bughouse_bridge.bughouse.types import BoardId
    from bughouse_bridge.reconstruct import ReconstructorConfig


@dataclass(frozen=True, slots=True)
class BridgeConfig:
    bridge_id: str
    match_id: str  # the first game's (a hall box: ``r0-t<n>`` until a pairing comes)
    rules: RuleSet
    reconstructor: ReconstructorConfig
    links: Mapping[str, BoardId]  # link name -> the board it carries
    root: str = DEFAULT_ROOT
    teams: Teams = field(default_factory=Teams)  # until a hall pairing names others
    # BPGN tags the configuration sets ([event], [game]): Event, Site, Round, Table, TimeControl;
    # unset ones default per game (docs/bpgn.md, "Tags").
    record_tags: Mapping[str, str] = field(default_factory=dict)
    boot_id: str = "replay"
    clock_origin_epoch: float = 0.0  # wall-clock epoch of t = 0, only used for ``ts``
    first_seq: int = 1
    start_fens: Mapping[BoardId, str] | None = None  # every game's start position
    table: int | None = None  # a box in a hall: pairings from the round topic, automatic new game
