"""Reading an article file into lines: the reader is chosen by the file's suffix.

``.md``/``.markdown`` Markdown, ``.tex`` LaTeX source, ``.html``/``.htm`` HTML, ``.ipynb``
Jupyter notebooks, anything else (``.txt``) plain text. Only regular files are read, at most
``symattn.spec.load.MAX_FILE_BYTES`` of UTF-8 without NUL bytes (a byte-order mark is
dropped); every problem is one :class:`~symattn.errors.SpecError` or
:class:`~symattn.errors.LimitError` naming the file (and the line when there is one).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SymattnError
from ..numbers import shown
from ..spec.load import MAX_FILE_BYTES, decode, read_regular
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


def read_bytes(path: str, name: str) -> bytes:
    """At most MAX_FILE_BYTES + 1 bytes of a regular file (a FIFO or a device is refused
    before it could block or stream forever); errors cite the file as ``name``."""
    try:
        return read_regular(path, MAX_FILE_BYTES, "an article file")
    except SymattnError as e:
        if e.where == path:                          # the escaped name, on one line
            e.where = name
            e.args = (str(e),)
        raise


def read_text(path: str, name: str | None = None) -> str:
    """The UTF-8 text of an article file (a byte-order mark dropped)."""
    name = name or shown(path, 200)
    return decode(read_bytes(path, name).removeprefix(b"\xef\xbb\xbf"), name)


def read_article(path: str) -> list[Line]:
    """The lines of the article at ``path``, each at its place in the file (control
    characters of the path are escaped in messages)."""
    from .. import deadline
    path = str(path)
    if path == "-":                                  # standard input, read as plain text
        from ..spec.files import read_stdin
        return reader_for("-").read(read_stdin("an article"), "<stdin>")
    name = shown(path, 200)
    deadline.check(f"{name}:1")          # the file a deadline or a MemoryError then names
    return reader_for(path).read(read_text(path, name), name)
