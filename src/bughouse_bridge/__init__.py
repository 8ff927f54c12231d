"""bughouse-bridge: referee and broadcast bridge for over-the-board bughouse on DGT e-boards."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bughouse-bridge")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
