"""Shared by every test folder: this file puts ``tests/`` on the import path (pytest's default
import mode), so helpers such as ``private_mosquitto`` are importable from any folder."""
