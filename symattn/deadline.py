"""One deadline for the whole command: a point of ``time.monotonic()`` after which it stops.

Every command runs inside :func:`limit` (the CLI does this for ``--timeout S``, default
:data:`DEFAULT_SECONDS`); every loop that can run long calls :func:`check`::

    from symattn import deadline

    with deadline.limit(5.0, "check"):          # None: no deadline
        for claim in claims:
            deadline.check(where)               # where: "spec.toml:12" for the message, or None
            ...

:class:`Exceeded` derives from ``BaseException``, not from :class:`~symattn.errors.SymattnError`
nor ``Exception``: no ``except SymattnError`` / ``except Exception`` handler (the diagnosis
search, SymPy, mpmath) can swallow it, so a command that runs out of time never answers
with what it found so far; it ends with one line and exit code 2 (``symattn.cli.main``).
A verdict therefore never depends on the speed of the machine: it is either the verdict,
or no verdict.

Code that cannot call :func:`check` (inside SymPy) is reached by a ``SIGALRM`` backstop
(main thread only), which fires at the deadline and again every second after it.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager

DEFAULT_SECONDS = 600.0       # every command, unless --timeout says otherwise
MAX_SECONDS = 1e6

_end: float | None = None     # time.monotonic() at the deadline; None: no deadline
_seconds: float | None = None
_what = "the command"
_where: str | None = None


class Exceeded(BaseException):
    """The deadline passed. Not an Exception: no handler for errors catches it."""

    def __init__(self, seconds: float, what: str, where: str | None):
        self.seconds, self.what, self.where = seconds, what, where
        self.message = (f"{what} took longer than {seconds:g} s (--timeout); nothing was "
                        "decided from the unfinished work")
        self.hint = "raise --timeout S, or give --timeout none for no limit"
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.message}; {self.hint}"
        return f"{self.where}: {text}" if self.where else text


def parse_seconds(text: str) -> float | None:
    """``--timeout``'s value: seconds in (0, 1e6], or ``none`` for no limit (argparse type)."""
    import argparse
    if text.strip().lower() == "none":
        return None
    try:
        s = float(text)
    except ValueError:
        s = math.nan
    if not math.isfinite(s) or not 0 < s <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text[:20]!r}: give a number of seconds above 0 and up to 1000000, or none")
    return s


def check(where: str | None = None) -> None:
    """Raise :class:`Exceeded` if the deadline has passed; ``where`` names the place being
    worked on (a file and line) for the message."""
    global _where
    if where is not None:
        _where = where
    if _end is not None and time.monotonic() > _end:
        raise Exceeded(_seconds, _what, _where)


def place() -> str | None:
    """The place (file:line) last given to :func:`check`: where an error without its own
    location happened (a MemoryError), or None."""
    return _where


def remaining() -> float | None:
    """Seconds left (None: no deadline)."""
    return None if _end is None else max(0.0, _end - time.monotonic())


@contextmanager
def limit(seconds: float | None, what: str = "the command"):
    """Run the body under a deadline of ``seconds`` (None: none). Not reentrant: a nested
    call keeps the outer, earlier deadline if there is one."""
    global _end, _seconds, _what, _where
    _where = None
    if _end is not None or seconds is None:
        yield
        return
    _end, _seconds, _what = time.monotonic() + seconds, seconds, what
    alarm = threading.current_thread() is threading.main_thread()
    if alarm:
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        _end = _seconds = None
        _what = "the command"


def _on_alarm(signum, frame):
    if _end is not None:
        raise Exceeded(_seconds, _what, _where)
