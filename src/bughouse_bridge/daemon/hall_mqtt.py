"""How the hall's own tools (round, results, status) reach the hall broker: credentials.toml."""

from __future__ import annotations

import ssl
import tomllib
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aiomqtt

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


class HallConnectionError(Exception):
    """The hall directory or its credentials cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class HallConnection:
    host: str
    port: int
    root: str
    ca_file: str
    username: str
    password: str

    @classmethod
    def from_hall(
        cls, hall: Path, *, role: str = "arbiter", host: str | None = None, port: int | None = None
    ) -> HallConnection:
        path = hall / "credentials.toml"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            broker, user = data["broker"], data[role]
            return cls(
                host=host or str(broker["host"]),
                port=port or int(broker["mqtt_port"]),
                root=str(broker["root"]),
                ca_file=str(broker["ca_file"]),
                username=str(user["username"]),
                password=str(user["password"]),
            )
        except (OSError, tomllib.TOMLDecodeError, KeyError, ValueError) as error:
            raise HallConnectionError(
                f"cannot read the hall's credentials {path}: {error}"
            ) from error

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> HallConnection:
        return cls.from_hall(args.hall, host=args.host, port=args.port)

    def client(self, name: str) -> aiomqtt.Client:
        return aiomqtt.Client(
            self.host,
            self.port,
            username=self.username,
            password=self.password,
            tls_context=ssl.create_default_context(cafile=self.ca_file),
            identifier=f"hall-{name}-{uuid.uuid4().hex[:8]}",
        )
