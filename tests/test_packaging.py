"""The installed package is the source tree: every folder of symattn/ with an __init__.py is
listed in pyproject.toml, so `pip install .` (not only an editable install) ships it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "symattn").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
