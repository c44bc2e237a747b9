"""Writing output files safely: never over an existing file without ``force``, and
atomically (a temporary file in the same folder renamed into place), so a crash leaves
the old file or none, never half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import SpecError


def write_output(path: str, text: str, force: bool = False) -> None:
    p = Path(path)
    if p.is_dir():
        raise SpecError("is a folder; give a file name", where=str(path))
    if p.exists() and not force:
        raise SpecError("exists already; nothing was written", where=str(path),
                        hint="pass --force to replace it")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise SpecError(f"the folder {folder} does not exist", where=str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
