"""Process lifecycle: CLI, composition root, systemd notification, logging."""
