"""The browser app (broadcast page, hall view, arbiter console): static files, no Python logic.

The page talks MQTT over WebSocket straight to the broker; ``bughouse-bridge web`` only serves
these files (see ``drivers/web_server.py``) and tells the page where the broker is.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).parent / "static"
