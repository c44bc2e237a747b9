"""Reading an article file into lines: the reader is chosen by the file's suffix.

``.md``/``.markdown`` Markdown, ``.tex`` LaTeX source, ``.html``/``.htm`` HTML, ``.ipynb``
Jupyter notebooks, anything else (``.txt``) plain text. Only regular files are read, at most
``symattn.spec.load.MAX_FILE_BYTES`` of UTF-8 without NUL bytes (a byte-order mark is
dropped); every problem is one :class:`~symattn.errors.SpecError` or
:class:`~symattn.errors.LimitError` naming the file (and the line when there is one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import SpecError
from ..spec.load import MAX_FILE_BYTES, decode
from .source import Line

READERS = {
    ".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".html": "html",
    ".htm": "html", ".ipynb": "notebook", ".txt": "text",
}


def reader_for(path: str):
    """The reader module for ``path``'s suffix (plain text when the suffix is unknown)."""
    import importlib
    name = READERS.get(Path(path).suffix.lower(), "text")
    return importlib.import_module(f"symattn.article.{name}")


def read_bytes(path: str) -> bytes:
    """At most MAX_FILE_BYTES + 1 bytes of a regular file (a FIFO or a device is refused
    before it could block or stream forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SpecError("no such file", where=path) from None
    except IsADirectoryError:
        raise SpecError("is a folder, not an article file", where=path) from None
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SpecError("is a folder, not an article file", where=path)
        if not stat.S_ISREG(mode):
            raise SpecError("is not a regular file (a pipe or a device?)", where=path,
                            hint="save the article to a file first")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    finally:
        os.close(fd)


def read_text(path: str) -> str:
    """The UTF-8 text of an article file (a byte-order mark dropped)."""
    return decode(read_bytes(path).removeprefix(b"\xef\xbb\xbf"), path)


def read_article(path: str) -> list[Line]:
    """The lines of the article at ``path``, each at its place in the file."""
    path = str(path)
    return reader_for(path).read(read_text(path), path)
