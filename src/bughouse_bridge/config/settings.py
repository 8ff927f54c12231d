"""The configuration's schema: one frozen pydantic model per section, :class:`Settings` the whole.

Values come from one TOML file, ``BUGHOUSE_*`` environment variables (``BUGHOUSE_MQTT__PORT=8883``,
nested with ``__``; ``sources.py``) and command-line flags; ``loading.py`` reads and validates them
(``load_settings``, ``ConfigError``). Every model forbids unknown keys, so a typo anywhere is an
error; the checks here word what is wrong for the organiser.
"""

from __future__ import annotations

import importlib
import os
import re
import ssl
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bughouse_bridge.config.sources import (
    ENV_NESTED_DELIMITER,
    ENV_PREFIX,
    PreloadedToml,
    environment_source,
)

PASSWORD_CREDENTIAL = "mqtt_password"  # noqa: S105 - a credential *name*: LoadCredential=mqtt_password:… in the systemd unit
KNOWN_PRESETS = ("dsj", "dsb", "olite", "fics")
SERIAL_PREFIX = "serial:"

Identifier = Annotated[str, Field(pattern=r"^[a-z0-9-]+$", min_length=1, max_length=64)]
PositiveSeconds = Annotated[float, Field(gt=0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Orientation(StrEnum):
    NORMAL = "normal"  # connector on White's left, as the DGT numbering assumes
    ROTATED = "rotated"
    AUTO = "auto"  # decided from the first board dump


class ClockSide(StrEnum):
    LEFT = "left"
    RIGHT = "right"
    AUTO = "auto"


class RulesSettings(_Strict):
    preset: str = "dsj"
    overrides: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _accept_bare_preset_name(cls, value: object) -> object:
        # The contract spells it `rules = "dsj"`; a table `[rules]` is needed for overrides.
        if isinstance(value, str):
            return {"preset": value}
        return value

    @model_validator(mode="after")
    def _check_with_rules_core(self) -> Self:
        try:
            rules = importlib.import_module("bughouse_bridge.bughouse.rules")
        except ModuleNotFoundError:  # the rules core is optional for config checks
            if self.preset not in KNOWN_PRESETS:
                raise ValueError(
                    f"unknown rules preset {self.preset!r} (known: {', '.join(KNOWN_PRESETS)})"
                ) from None
            return self
        # Both raise ValueError naming the preset or the bad override key.
        rules.get_preset(self.preset).with_overrides(self.overrides)
        return self


class Players(_Strict):
    """Who sits where. A team holds one partner pair: {White A, Black B} or {Black A, White B}."""

    white_a: str | None = None
    black_a: str | None = None
    white_b: str | None = None
    black_b: str | None = None

    def seats(self) -> frozenset[str]:
        return frozenset(name for name, player in self.model_dump().items() if player is not None)


PARTNER_PAIRS: dict[frozenset[str], str] = {
    frozenset({"white_a", "black_b"}): "White A + Black B",
    frozenset({"black_a", "white_b"}): "Black A + White B",
}
FIRST_TEAM_SEATS = frozenset({"black_a", "white_b"})  # DSJ 8.2 / DSB 10.2


class Team(_Strict):
    id: Identifier
    name: str
    players: Players = Field(default_factory=Players)

    @model_validator(mode="after")
    def _players_are_partners(self) -> Self:
        seats = self.players.seats()
        if seats and not any(seats <= pair for pair in PARTNER_PAIRS):
            raise ValueError(
                f"team {self.id!r} has players on {', '.join(sorted(seats))}; a team is "
                "either White A + Black B or Black A + White B"
            )
        return self


class TeamsSettings(_Strict):
    # DSJ 8.2 / DSB 10.2: the first-named team plays Black on board A (board 1).
    check_seating: bool = True
    first: Team = Team(id="team-1", name="Team 1")
    second: Team = Team(id="team-2", name="Team 2")

    @model_validator(mode="after")
    def _teams_fit_together(self) -> Self:
        if self.first.id == self.second.id:
            raise ValueError(f"both teams have the id {self.first.id!r}")
        first, second = self.first.players.seats(), self.second.players.seats()
        if first & second:
            raise ValueError(f"both teams claim {', '.join(sorted(first & second))}")
        if self.check_seating and first and not first <= FIRST_TEAM_SEATS:
            raise ValueError(
                "the first-named team must play Black on board A and White on board B "
                "(DSJ 8.2, DSB 10.2); swap the teams or set teams.check_seating = false"
            )
        if first and second and _pair_of(first) == _pair_of(second):
            raise ValueError("the two teams must sit on different partner pairs")
        return self


def _pair_of(seats: frozenset[str]) -> frozenset[str] | None:
    return next((pair for pair in PARTNER_PAIRS if seats <= pair), None)


class LinkSettings(_Strict):
    name: Literal["A", "B"]
    port: str
    orientation: Orientation = Orientation.AUTO
    clock_white_side: ClockSide = ClockSide.AUTO

    @field_validator("port")
    @classmethod
    def _port_is_path_or_serial(cls, port: str) -> str:
        if port.startswith(SERIAL_PREFIX):
            if not re.fullmatch(r"[0-9A-Za-z.]+", port.removeprefix(SERIAL_PREFIX)):
                raise ValueError(f"{port!r}: expected serial:<board serial number>")
            return port
        if not port.startswith("/"):
            raise ValueError(
                f"{port!r}: expected an absolute device path (/dev/ttyACM0, "
                "/dev/serial/by-id/…) or serial:<board serial number>"
            )
        return port

    @property
    def serial_number(self) -> str | None:
        """The board serial number to look for, when the port is given as ``serial:<n>``."""
        if self.port.startswith(SERIAL_PREFIX):
            return self.port.removeprefix(SERIAL_PREFIX)
        return None


def _existing_file(path: Path | None) -> Path | None:
    if path is not None and not path.is_file():
        raise ValueError(f"file not found: {path}")
    return path


class MqttSettings(_Strict):
    host: str = "localhost"
    port: int = Field(1883, ge=1, le=65535)
    root: str = Field("bughouse/v1", pattern=r"^[^#+]+[^/#+]$")
    keepalive: int = Field(30, ge=5, le=3600)
    protocol: Literal["3.1.1", "5"] = "3.1.1"
    client_id: str | None = None  # default: bughouse-bridge-<bridge_id>
    tls: bool = False
    tls_ca_file: Path | None = None
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    username: str | None = None
    password_file: Path | None = None
    embedded: bool = False
    embedded_host: str = "127.0.0.1"
    embedded_port: int = Field(1883, ge=1, le=65535)
    # MQTT over WebSocket on the embedded broker, for the web page (`bughouse-bridge web`).
    embedded_ws_port: int | None = Field(None, ge=1, le=65535)

    _password: str | None = PrivateAttr(default=None)

    _check_files = field_validator("tls_ca_file", "tls_cert_file", "tls_key_file", "password_file")(
        _existing_file
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if self.embedded and self.protocol != "3.1.1":
            raise ValueError("the embedded broker (amqtt) speaks MQTT 3.1.1 only; set protocol")
        self._password = _read_password(self.password_file)
        try:
            self.ssl_context()
        except (ssl.SSLError, OSError) as error:
            raise ValueError(f"cannot load the TLS files: {error}") from error
        return self

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for the MQTT link, or None without TLS."""
        if not self.use_tls:
            return None
        cafile = str(self.tls_ca_file) if self.tls_ca_file is not None else None
        context = ssl.create_default_context(cafile=cafile)
        if self.tls_cert_file is not None:
            context.load_cert_chain(self.tls_cert_file, self.tls_key_file)
        return context

    @property
    def password(self) -> str | None:
        """The password from ``password_file`` or the systemd credential, never logged."""
        return self._password

    @property
    def use_tls(self) -> bool:
        return self.tls or self.tls_ca_file is not None or self.tls_cert_file is not None

    @property
    def connect_host(self) -> str:
        return self.embedded_host if self.embedded else self.host

    @property
    def connect_port(self) -> int:
        return self.embedded_port if self.embedded else self.port


def _read_password(password_file: Path | None) -> str | None:
    if password_file is None:
        credentials = os.environ.get("CREDENTIALS_DIRECTORY")
        if not credentials or not (Path(credentials) / PASSWORD_CREDENTIAL).is_file():
            return None
        password_file = Path(credentials) / PASSWORD_CREDENTIAL
    try:
        return password_file.read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {password_file}: {error}") from error


# A BPGN tag value: one line (the writer escapes quotes and backslashes).
TagText = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\n\r]*$")]


class EventSettings(_Strict):
    """What the game records say about the event (BPGN tags, docs/bpgn.md); all optional."""

    name: TagText | None = None  # [Event]; default "bughouse-bridge match <match_id>"
    site: TagText | None = None  # [Site]; default the bridge id
    round: TagText | None = None  # [Round]; also names the archived game files
    table: TagText | None = None  # [Table] (an extension); also names the archived game files


class GameSettings(_Strict):
    """The games played at this table."""

    # [TimeControl] as PGN writes it: base seconds, "+" increment seconds ("300+0", "180").
    time_control: Annotated[str, Field(pattern=r"^\d+(\+\d+)?$")] | None = None


class TimingSettings(_Strict):
    stability_window: PositiveSeconds = 0.25
    drop_grace: PositiveSeconds = 2.0
    unexplained_position_limit: PositiveSeconds = 4.0
    stalling_limit: PositiveSeconds = 60.0
    link_silence_timeout: PositiveSeconds = 10.0


class HallSettings(_Strict):
    """A box in a hall (``bughouse-bridge hall init`` writes this section per table)."""

    table: int = Field(ge=1, le=999)  # pairings and match ids ``r<round>-t<table>`` follow it


def _default_state_dir() -> Path:
    # systemd sets STATE_DIRECTORY (colon-separated) from StateDirectory=.
    from_systemd = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(from_systemd or "state")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTED_DELIMITER,
        extra="forbid",
        frozen=True,
        nested_model_default_partial_update=True,
    )

    bridge_id: Identifier = "bridge-1"
    match_id: Identifier = "match-1"
    rules: RulesSettings = Field(default_factory=RulesSettings)
    teams: TeamsSettings = Field(default_factory=TeamsSettings)
    links: list[LinkSettings] = Field(default_factory=list, max_length=2)
    mqtt: MqttSettings = Field(default_factory=MqttSettings)  # type: ignore[arg-type]
    timings: TimingSettings = Field(default_factory=TimingSettings)
    hall: HallSettings | None = None
    record: Path | None = None
    state_dir: Path = Field(default_factory=_default_state_dir)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    event: EventSettings = Field(default_factory=EventSettings)
    game: GameSettings = Field(default_factory=GameSettings)

    @field_validator("links")
    @classmethod
    def _unique_link_names(cls, links: list[LinkSettings]) -> list[LinkSettings]:
        names = [link.name for link in links]
        if len(set(names)) != len(names):
            raise ValueError(f"link names must be unique, got {names}")
        return links

    def link(self, name: str) -> LinkSettings | None:
        return next((link for link in self.links if link.name == name), None)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        del env_settings, dotenv_settings, file_secret_settings
        return (init_settings, environment_source(settings_cls), PreloadedToml(settings_cls))


def example_config() -> str:
    """The bundled ``example.toml``: every key, commented."""
    return resources.files("bughouse_bridge.config").joinpath("example.toml").read_text("utf-8")
