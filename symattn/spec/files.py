"""Reading a spec's (or an article's) bytes: a regular file of bounded size, UTF-8."""

from __future__ import annotations

from ..errors import SpecError, LimitError

MAX_FILE_BYTES = 4_000_000


def read_text(path: str) -> str:
    return decode(read_regular(path, MAX_FILE_BYTES, "a spec file"), path)


def read_regular(path: str, limit: int, what: str = "a file") -> bytes:
    """At most ``limit`` + 1 bytes of the regular file ``path``; a FIFO, a socket or a
    device is refused in one line before anything is read, so no read can block or stream
    forever (the file is opened without blocking, then checked with fstat)."""
    import os
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise SpecError("no such file", where=path) from None
    except IsADirectoryError:
        raise SpecError(f"is a folder, not {what}", where=path) from None
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SpecError(f"is a folder, not {what}", where=path)
        if not stat.S_ISREG(mode):
            raise SpecError("is not a regular file (a pipe, a socket or a device)", where=f"{path}:1",
                            hint="save it to a file first")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}", where=path) from None
    finally:
        os.close(fd)


def decode(data: bytes, path: str) -> str:
    """The text of a spec file's bytes: at most MAX_FILE_BYTES of UTF-8, without a byte-order
    mark or NUL bytes (errors name ``path`` and the line)."""
    if len(data) > MAX_FILE_BYTES:
        line = data.count(b"\n", 0, MAX_FILE_BYTES) + 1
        raise LimitError(f"the file is longer than {MAX_FILE_BYTES} bytes (line {line} passes it)",
                         where=f"{path}:{line}",
                         hint="split it or raise symattn.spec.load.MAX_FILE_BYTES on purpose")
    if data.startswith(b"\xef\xbb\xbf"):
        raise SpecError("the file starts with a byte-order mark", where=f"{path}:1",
                        hint="save it as UTF-8 without BOM")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise SpecError("the file contains a NUL byte", where=f"{path}:{line}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise SpecError(f"invalid UTF-8 at byte {e.start}", where=f"{path}:{line}",
                        hint="save the file as UTF-8") from None


def read_stdin(what: str) -> str:
    """Standard input as text (``-`` for a file name), at most the size a file may have."""
    import sys
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise SpecError(f"no standard input to read {what} from", where="<stdin>")
    data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise LimitError(f"{what} on standard input is larger than {MAX_FILE_BYTES:,} bytes",
                         where="<stdin>")
    return decode(data.removeprefix(b"\xef\xbb\xbf"), "<stdin>")
