"""The installed package is the source tree: every folder of symattn/ with an __init__.py is
listed in pyproject.toml, so `pip install .` (not only an editable install) ships it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "symattn").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_every_data_file_is_shipped():
    """Files of a package folder that are not Python (the report's templates) match a
    package-data pattern, so a wheel has them."""
    import fnmatch
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    found = [p for p in (ROOT / "symattn").rglob("*") if p.is_file()
             and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert any(p.suffix == ".j2" for p in found)
    for p in found:
        pkg = ".".join(p.parent.relative_to(ROOT).parts)
        while pkg and pkg not in data:
            pkg, _, _ = pkg.rpartition(".")
        rel = p.relative_to(ROOT.joinpath(*pkg.split("."))).as_posix() if pkg else p.name
        assert pkg and any(fnmatch.fnmatch(rel, pat) for pat in data[pkg]), p
