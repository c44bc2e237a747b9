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


def test_the_wheel_installs_and_checks_the_bundled_corpus(tmp_path):
    """`python -m build` (here without an isolated build environment, so with no network)
    gives a wheel and an sdist that twine accepts; the wheel, installed alone into a folder
    (its dependencies are this interpreter's), runs `symattn check` on the bundled corpus.
    .ci/run does the same in a fresh virtual environment (.ci/package.sh)."""
    import os
    import subprocess
    import sys
    import pytest
    pytest.importorskip("build")
    pytest.importorskip("twine")
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
                            str(ROOT)], capture_output=True, text=True, timeout=600)
    if built.returncode and "setuptools" in built.stdout + built.stderr and "require" in built.stdout + built.stderr:
        pytest.skip("this interpreter's setuptools is older than the build needs")
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel, = dist.glob("*.whl")
    sdist, = dist.glob("*.tar.gz")
    twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                           capture_output=True, text=True, timeout=300)
    assert twine.returncode == 0, twine.stdout + twine.stderr
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(site), str(wheel)], check=True, timeout=300)
    env = dict(os.environ, PYTHONPATH=str(site))
    where = subprocess.run([sys.executable, "-c", "import symattn; print(symattn.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True)
    assert where.stdout.startswith(str(site)), where.stdout + where.stderr
    done = subprocess.run([sys.executable, "-m", "symattn", "check"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == "15 examples, 976 printed numbers: 962 correct, 11 carried, 3 wrong"
    version = subprocess.run([sys.executable, "-m", "symattn", "--version"], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version.stdout.strip() == f"symattn {meta}"
