"""Allow ``python -m bughouse_bridge``."""

from bughouse_bridge.daemon.cli import main

raise SystemExit(main())
