"""From validated settings to the pure pipeline's configuration (the one place they meet)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.config import ConfigError, Settings, load_settings
from bughouse_bridge.pipeline.config import BridgeConfig
from bughouse_bridge.reconstruct import ReconstructorConfig
from bughouse_bridge.topics import Teams

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from bughouse_bridge.config import Team, TeamsSettings

WHITE_A_PAIR = frozenset({"white_a", "black_b"})


class ConfigurationError(Exception):
    """Settings that cannot drive the pipeline; the message names the key and its source."""


def bridge_config(
    settings: Settings,
    *,
    boot_id: str,
    clock_origin_epoch: float,
    links: Mapping[str, BoardId] | None = None,
) -> BridgeConfig:
    try:
        rules = get_preset(settings.rules.preset).with_overrides(settings.rules.overrides)
    except ValueError as error:
        raise ConfigurationError(f"rules: {error}") from error
    return BridgeConfig(
        bridge_id=settings.bridge_id,
        match_id=settings.match_id,
        rules=rules,
        reconstructor=reconstructor_config(settings),
        links=links if links is not None else configured_links(settings),
        root=settings.mqtt.root,
        teams=teams_of(settings.teams),
        boot_id=boot_id,
        clock_origin_epoch=clock_origin_epoch,
        record_tags=record_tags(settings),
        table=settings.hall.table if settings.hall is not None else None,
    )


def record_tags(settings: Settings) -> dict[str, str]:
    """The BPGN tags the configuration sets ([event], [game]); docs/bpgn.md, "Tags". Unset
    ones (Event, Site, Round) are filled in per game by the core, from its match id and box."""
    event, game = settings.event, settings.game
    configured = {
        "Event": event.name,
        "Site": event.site,
        "Round": event.round,
        "Table": event.table,
        "TimeControl": game.time_control,
    }
    return {tag: value for tag, value in configured.items() if value is not None}


def configured_links(settings: Settings) -> dict[str, BoardId]:
    if not settings.links:
        return {"A": BoardId.A, "B": BoardId.B}
    return {link.name: BoardId(link.name) for link in settings.links}


def reconstructor_config(settings: Settings) -> ReconstructorConfig:
    timings = settings.timings
    by_board = {BoardId(link.name): link for link in settings.links}
    return ReconstructorConfig(
        stability_window=timings.stability_window,
        drop_grace=timings.drop_grace,
        unexplained_limit=timings.unexplained_position_limit,
        stalling_limit=timings.stalling_limit,
        orientation={
            board: by_board[board].orientation.value if board in by_board else "auto"
            for board in BoardId
        },
        clock_white_side={
            board: by_board[board].clock_white_side.value if board in by_board else "auto"
            for board in BoardId
        },
    )


def teams_of(teams: TeamsSettings) -> Teams:
    """Order the configured teams as the core counts them: team 0 plays White on board A."""
    first_is_white_a = _plays_white_a(teams.first, default=False)
    ordered = (teams.first, teams.second) if first_is_white_a else (teams.second, teams.first)
    players: dict[str, str] = {}
    for team in ordered:
        players.update(
            {seat: name for seat, name in team.players.model_dump().items() if name is not None}
        )
    return Teams(
        ids=(ordered[0].id, ordered[1].id),
        names=(ordered[0].name, ordered[1].name),
        players=players,
    )


def _plays_white_a(team: Team, *, default: bool) -> bool:
    seats = team.players.seats()
    return seats <= WHITE_A_PAIR if seats else default


def replay_bridge_config(
    *, config_file: Path | None, rules: str | None, trace_links: Sequence[str]
) -> BridgeConfig:
    """The configuration of ``bughouse-bridge replay``: a file if given, else the defaults."""
    overrides = {} if rules is None else {"rules.preset": rules}
    try:
        settings = load_settings(config_file, overrides=overrides)
    except ConfigError as error:
        raise ConfigurationError(str(error)) from error
    links = configured_links(settings) if settings.links else links_of_trace(trace_links)
    return bridge_config(settings, boot_id="replay", clock_origin_epoch=0.0, links=links)


def links_of_trace(names: Sequence[str]) -> dict[str, BoardId]:
    """Links ``A``/``B`` carry boards A/B; otherwise the first link seen is A, the second B."""
    if set(names) <= {"A", "B"}:
        return {name: BoardId(name) for name in names} or {"A": BoardId.A}
    return dict(zip(names, BoardId, strict=False))
