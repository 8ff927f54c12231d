"""The shell's thin I/O adapters: serial links, MQTT, outbox, trace recording, pty emulation."""
