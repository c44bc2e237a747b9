"""What the command writes: messages (:func:`say`, the one function that writes a message
to stderr) and output files, never over an existing file without ``force``, and atomically
(a temporary file in the same folder renamed into place), so a crash leaves the old file
or none, never half a file."""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import SpecError

MAX_MESSAGE = 500          # characters of one message line (quoted text inside: 60 each;
                           # `symattn prove`'s list of its 20 identities fits)
_QUOTED = re.compile(r"(?<!\w)'([^']{61,})'(?!\w)")     # not the apostrophe of "loss's"


def one_line(text: str) -> str:
    r"""``text`` as one safe line: every character that is not printable escaped (C0 and C1
    controls, U+2028/2029, the bidirectional marks U+202A–202E and U+2066–2069, ...),
    quoted text cut to 60 characters, the whole to :data:`MAX_MESSAGE`.

    >>> print(one_line("a\u202eb\nc\x1b[2J"), one_line("'" + "x" * 70 + "'")[-5:])
    a\u202eb\nc\x1b[2J xxx…'

    """
    from ..numbers import shown
    text = _QUOTED.sub(lambda m: "'" + m.group(1)[:60] + "…'", str(text))
    return shown(text, MAX_MESSAGE)


def say(text: str, prefix: str = "symattn: ") -> None:
    """Write one message line to stderr (the one place messages are written)."""
    try:
        sys.stderr.write(prefix + one_line(text) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):   # stderr closed, full or None (2>&-)
        pass


def progress(text: str) -> None:
    """A progress line on a terminal's stderr, rewritten in place (nothing when piped)."""
    if sys.stderr is not None and sys.stderr.isatty():
        sys.stderr.write("\r" + one_line(text)[:70].ljust(70) + "\r" if text else "\r" + " " * 70 + "\r")
        sys.stderr.flush()


# link() is how a file is put in place only if the name is free; a few file systems
# (FAT, some network mounts) do not have it.
_NO_LINK = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK}


def write_output(path: str, text: str, force: bool = False) -> None:
    p = Path(path)
    if p.is_dir():
        raise SpecError("is a folder; give a file name", where=str(path))
    if os.path.lexists(p) and not force:           # a dangling symbolic link is a name too
        raise SpecError("exists already; nothing was written", where=str(path),
                        hint="pass --force to replace it")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise SpecError(f"the folder {folder} does not exist", where=str(path))
    try:
        mode = stat.S_IMODE(os.stat(p).st_mode) if force and p.exists() else _default_mode()
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise SpecError(f"cannot write: {e.strerror}", where=str(path)) from None
    try:
        binary = isinstance(text, bytes)                # a PNG picture (symattn sweep)
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        _put_in_place(tmp, p, force)
        _sync_folder(folder)
    except OSError as e:
        raise SpecError(f"cannot write: {e.strerror}", where=str(path)) from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _put_in_place(tmp: str, p: Path, force: bool) -> None:
    """Rename ``tmp`` to ``p``; without ``force`` only if ``p`` does not exist at that moment."""
    if force:
        os.replace(tmp, p)
        return
    try:
        os.link(tmp, p)                              # fails if the name was taken meanwhile
    except FileExistsError:
        raise SpecError("exists already; nothing was written", where=str(p),
                        hint="pass --force to replace it") from None
    except OSError as e:
        if e.errno not in _NO_LINK:
            raise
        if os.path.lexists(p):
            raise SpecError("exists already; nothing was written", where=str(p),
                            hint="pass --force to replace it") from None
        os.replace(tmp, p)


def _default_mode() -> int:
    """0o666 less the umask, as open() would create the file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
