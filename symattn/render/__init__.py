"""Rendering: the terminal report, JSON, and LaTeX of the steps."""
