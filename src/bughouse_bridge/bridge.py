"""bridge (pure)."""
