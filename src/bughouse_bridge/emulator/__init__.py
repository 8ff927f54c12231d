"""A faithful DGT board + clock emulator. This package is pure; the pty runner is in drivers."""
