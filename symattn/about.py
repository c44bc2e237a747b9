"""The version, written in one place: ``pyproject.toml``'s ``[project] version``, read from
the installed package's metadata (or, in a source tree that is not installed, from the
pyproject.toml beside it)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def version() -> str:
    tree = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if tree.is_file():                       # a checkout (editable or on PYTHONPATH): its own
        import tomllib
        try:
            project = tomllib.loads(tree.read_text(encoding="utf-8")).get("project", {})
            if project.get("name") == "symattn":
                return str(project["version"])
        except (OSError, ValueError, KeyError):
            pass
    from importlib.metadata import PackageNotFoundError, version as installed
    try:
        return installed("symattn")
    except PackageNotFoundError:
        return "unknown"
