"""The checkout under test is the one its subprocesses import.

CLI tests run ``python -m symattn`` in temporary folders; with the checkout's root first on
PYTHONPATH they run this checkout's code, installed (``pip install -e .``) or not, and never
another copy that happens to be installed."""

import os
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
