"""The terminal: colour for `check`'s report, progress bars on stderr (rich).

Colour only on a terminal, as rich decides it: ``NO_COLOR`` (any value) turns it off,
``FORCE_COLOR`` turns it on when piped, ``TERM=dumb`` has none. A progress bar
appears on standard error after one second, only when standard error is a terminal, and
is erased when done; standard output never holds one (rich draws it).
"""

from __future__ import annotations

import os
import re
import sys
import threading
from contextlib import contextmanager

DELAY = 1.0          # seconds of work before a progress bar appears

STYLES = {"✗": "bold red", "≈": "yellow", "~": "cyan", "✓": "green", "↳": "red", "?": "magenta"}
_MARK = re.compile(r"^(\s*)([✗≈~✓↳?])(\s)")
_VERDICT = re.compile(r"\s(wrong|carried|consistent)\b")
_SUMMARY = re.compile(r"(\d+ wrong)|(\d+ carried)|(\d+ correct)")


def _console(stream):
    from rich.console import Console
    return Console(file=stream, soft_wrap=True, highlight=False, markup=False, emoji=False)


def coloured(stream=None) -> bool:
    """Would ``stream`` (stdout) get colour? (rich's rule: NO_COLOR, FORCE_COLOR, a tty)."""
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    if not os.environ.get("FORCE_COLOR") and not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    return _console(stream).color_system is not None


def write_report(text: str, stream=None) -> None:
    """``check``'s report: as it is when piped, the marks and the summary coloured on a terminal."""
    stream = stream or sys.stdout
    if not coloured(stream):
        stream.write(text)
        return
    from rich.text import Text
    console = _console(stream)
    for line in text.rstrip("\n").split("\n"):
        t = Text(line)
        m = _MARK.match(line)
        if m:
            t.stylize(STYLES[m.group(2)], m.start(2), m.end(2))
            v = _VERDICT.search(line, max(line.find(" exact "), 0))
            if v and m.group(2) in "✗≈":
                t.stylize(STYLES[m.group(2)], v.start(1), v.end(1))
        elif _SUMMARY.search(line) and line[:1].isdigit():
            for s in _SUMMARY.finditer(line):
                style = "bold red" if s.group(1) and not s.group(1).startswith("0 ") else \
                    "yellow" if s.group(2) and not s.group(2).startswith("0 ") else \
                    "green" if s.group(3) else None
                if style:
                    t.stylize(style, s.start(), s.end())
        console.print(t)


class _Task:
    def __init__(self, progress=None, task=None):
        self.progress, self.task = progress, task

    def advance(self, k: int = 1) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, k)


@contextmanager
def working(what: str, total: int | None = None):
    """A progress bar (``total`` steps, ``.advance()`` each) or a spinner on stderr, shown
    when the work lasts more than a second and stderr is a terminal, erased at the end."""
    err = sys.stderr
    if err is None or not (hasattr(err, "isatty") and err.isatty()) or os.environ.get("TERM") == "dumb":
        yield _Task()
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                               TextColumn, TimeElapsedColumn)
    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total:
        columns += [BarColumn(), MofNCompleteColumn()]
    progress = Progress(*columns, TimeElapsedColumn(), console=Console(file=err), transient=True,
                        redirect_stdout=False, redirect_stderr=False)
    task = progress.add_task(what, total=total)
    timer = threading.Timer(DELAY, progress.start)
    timer.daemon = True
    timer.start()
    try:
        yield _Task(progress, task)
    finally:
        timer.cancel()
        timer.join()
        progress.stop()
