"""trace (pure)."""
