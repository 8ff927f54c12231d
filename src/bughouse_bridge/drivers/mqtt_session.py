"""``async with session(client)``: aiomqtt's ``async with client`` that never hides why it left.

Leaving ``async with client`` sends a DISCONNECT and waits (up to the client's timeout) for the
broker to acknowledge it. When that fails — the broker drops the connection meanwhile because it
is shutting down too, or it does not answer — aiomqtt raises an ``MqttError`` *in place of* the
exception that was leaving the block. If that exception was a cancellation (a stop, a timeout
of ``asyncio.timeout``), every caller that retries on ``MqttError`` then takes it for a lost
connection and reconnects instead of stopping: the demo once kept its viewer reconnecting for
over 20 s to a broker that had shut down, after Ctrl-C. Here a failed disconnect is logged, and
the exception that left the block goes on.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

import aiomqtt

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

logger = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def session(client: aiomqtt.Client) -> AsyncIterator[aiomqtt.Client]:
    """Connect ``client`` for the block; on the way out, disconnect without masking the reason."""
    await client.__aenter__()  # the exit below needs the reason it is left for
    try:
        yield client
    except BaseException as leaving:
        try:
            await client.__aexit__(type(leaving), leaving, leaving.__traceback__)
        except aiomqtt.MqttError as error:
            logger.info("MQTT: no clean disconnect while leaving on %r: %s", leaving, error)
        raise
    await client.__aexit__(None, None, None)
