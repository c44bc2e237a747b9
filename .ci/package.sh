#!/usr/bin/env bash
# Ready to publish: `python -m build` gives an sdist and a wheel, `twine check` accepts them,
# and each installs into a fresh virtual environment where `symattn check` runs the
# bundled corpus (exit 1: the corpus has wrong numbers, the finding; 2 or more: a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python -m pip install -q build twine
python -m build --outdir "$work/dist" . > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; exit 1; }
python -m twine check --strict "$work"/dist/*
python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/dist/*.whl
for artefact in "$work"/dist/*.whl "$work"/dist/*.tar.gz; do
    "$work/venv/bin/python" -m pip install -q --no-deps --force-reinstall "$artefact"
    (cd "$work" && set +e; "$work/venv/bin/symattn" check > "$work/check.out"; echo $? > "$work/status")
    status=$(cat "$work/status")
    echo "$(basename "$artefact"): symattn check: $(tail -n 1 "$work/check.out") (status $status)"
    if [ "$status" -ge 2 ]; then echo "the installed package does not run"; exit 1; fi
done
"$work/venv/bin/symattn" --version
