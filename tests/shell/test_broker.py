"""The embedded amqtt broker: loopback only, MQTT 3.1.1, works with MqttLink."""

from __future__ import annotations

import asyncio
import json
import socket

import aiomqtt
import pytest

from bughouse_bridge.drivers.broker import EmbeddedBroker, EmbeddedBrokerError, broker_config
from bughouse_bridge.drivers.mqtt import Backoff, ConnectionState, MqttLink
from bughouse_bridge.drivers.outbox import Outbox
from private_mosquitto import free_port


def test_config_is_quiet_anonymous_and_bound_where_asked():
    config = broker_config("127.0.0.1", 18999)
    assert config["listeners"]["default"]["bind"] == "127.0.0.1:18999"
    assert list(config["plugins"]) == ["amqtt.plugins.authentication.AnonymousAuthPlugin"]


def test_refuses_non_loopback_addresses():
    with pytest.raises(EmbeddedBrokerError, match="loopback"):
        EmbeddedBroker(host="0.0.0.0", port=1883)  # noqa: S104 - the point of the test


async def test_port_in_use_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(EmbeddedBrokerError, match=f"127.0.0.1:{port}"):
            async with EmbeddedBroker(host="127.0.0.1", port=port):
                pass


async def test_clients_publish_and_subscribe_through_it(tmp_path):
    port = free_port()
    async with EmbeddedBroker(host="127.0.0.1", port=port):
        outbox = Outbox(tmp_path / "outbox.db")
        connected = asyncio.Event()

        def on_state(state: ConnectionState) -> None:
            if state is ConnectionState.CONNECTED:
                connected.set()

        link = MqttLink(
            host="127.0.0.1",
            port=port,
            root="bughouse/v1",
            bridge_id="solo",
            outbox=outbox,
            boot_id="b",
            version="0",
            backoff=Backoff(0.2, 1.0),
            on_state=on_state,
        )
        task = asyncio.create_task(link.run(), name="mqtt")
        async with aiomqtt.Client("127.0.0.1", port, identifier="viewer") as viewer:
            await viewer.subscribe("bughouse/v1/#", qos=1)
            events = "bughouse/v1/match/m/events"

            class Pub:
                topic = events
                payload = b'{"seq": 1}'
                qos = 1
                retain = False

            await asyncio.wait_for(connected.wait(), 5)
            outbox.append([Pub()], seq=1)
            link.notify()
            got: dict[str, bytes] = {}
            async with asyncio.timeout(5):
                async for message in viewer.messages:
                    got[message.topic.value] = bytes(message.payload)  # type: ignore[arg-type]
                    if events in got:
                        break
        assert json.loads(got[events]) == {"seq": 1}
        link.stop()
        await asyncio.wait_for(task, 5)
        assert outbox.pending_count() == 0
        outbox.close()


async def test_websocket_listener_carries_mqtt_for_the_web_page():
    port, ws_port = free_port(), free_port()
    async with EmbeddedBroker(host="127.0.0.1", port=port, ws_port=ws_port):
        async with aiomqtt.Client("127.0.0.1", port) as publisher:
            await publisher.publish("bughouse/v1/match/m/state", b'{"ok": 1}', qos=1, retain=True)
        async with aiomqtt.Client("127.0.0.1", ws_port, transport="websockets") as viewer:
            await viewer.subscribe("bughouse/v1/match/+/state", qos=1)
            async with asyncio.timeout(10):
                message = await anext(aiter(viewer.messages))
    assert json.loads(bytes(message.payload)) == {"ok": 1}  # type: ignore[arg-type]
    assert message.retain


def test_websocket_listener_only_when_asked():
    assert "websocket" not in broker_config("127.0.0.1", 18999)["listeners"]
    ws = broker_config("127.0.0.1", 18999, 19001)["listeners"]["websocket"]
    assert ws == {"type": "ws", "bind": "127.0.0.1:19001"}
