"""Configuration: one TOML file, BUGHOUSE_ environment variables, CLI flags (pydantic-settings)."""
