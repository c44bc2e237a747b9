"""Specs: the TOML format, its whitelist expression parser, and the builder."""
