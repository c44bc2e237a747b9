"""The `symattn` command: a dispatcher that imports a subcommand only when it runs.

Every subcommand runs under one deadline (``--timeout S``, default
:data:`symattn.deadline.DEFAULT_SECONDS`; ``--timeout none``: no limit). Every
SymattnError, the deadline, MemoryError, a number past the interpreter's limit on
integer-string conversion and a failed write to stdout become one line on stderr
(:func:`symattn.cli.output.say`) and exit code 2; nothing prints a traceback.

What a command prints is all or nothing: its standard output is held until it has finished
and written only then, so a command stopped by the deadline or an error prints no part of
an answer (``symattn prove`` that runs out of time prints no proof).
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys

COMMANDS = {
    "check": ("symattn.cli.check", "verdict for every printed number of specs (default: the bundled corpus)"),
    "new": ("symattn.cli.new", "start a spec from a template"),
    "scan": ("symattn.cli.scan", "write the claims found in an article into a spec, to review and keep"),
    "latex": ("symattn.cli.latex", "every step of a spec as LaTeX with the numbers substituted"),
    "import": ("symattn.cli.import_latex", "read the matrices of a LaTeX fragment into spec inputs"),
    "prove": ("symattn.cli.prove", "derive the identities the articles state (proofs/)"),
    "grad": ("symattn.cli.grad", "exact gradient of a loss of a spec with respect to an input"),
    "report": ("symattn.cli.report", "one self-contained HTML report: numbers marked, errors by cause, heatmaps"),
    "sweep": ("symattn.cli.sweep", "the exact curve of entries of a step as one input moves"),
    "compare": ("symattn.cli.compare", "a float implementation's values of a step (.npy, .pt) against certified ones"),
}


class _Parser(argparse.ArgumentParser):
    """One error line with a suggestion for a mistyped subcommand or option; no
    abbreviations (``--prob`` is not ``--problems``: a name means one thing, always)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.chosen = None                  # the subcommand's parser, once configured

    def error(self, message):
        from .output import one_line
        hint = self._suggestion(message)
        self.exit(2, one_line(f"{self.prog}: {message}{hint} (see {self.prog} --help)") + "\n")

    def _suggestion(self, message: str) -> str:
        import re
        from ..suggest import did_you_mean
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            s = did_you_mean(m.group(1), re.findall(r"'([^']*)'", m.group(2)) or COMMANDS)
            return f"; {s}" if s else ""
        m = re.search(r"unrecognized arguments: (.*)", message)
        if m:
            options = [o for p in (self, self.chosen) if p is not None for o in p._option_string_actions]
            for word in m.group(1).split():
                if word.startswith("-"):
                    s = did_you_mean(word.split("=")[0], options)
                    if s:
                        return f"; {s}"
        return ""


def _build(only: str | None = None, every: bool = False) -> argparse.ArgumentParser:
    """The parser; the options of subcommand ``only`` (or, with ``every``, of all: for
    shell completion) are configured, the others' modules are not even imported."""
    p = _Parser(prog="symattn", description="Exact-arithmetic verifier for hand-computed "
                "Transformer worked examples.")
    from ..about import version
    p.add_argument("--version", action="version", version=f"symattn {version()}")
    p.add_argument("--print-completion", choices=("bash", "zsh", "tcsh"), metavar="SHELL",
                   help="print the shell completion script for SHELL (bash, zsh, tcsh) and exit, "
                        'e.g. eval "$(symattn --print-completion bash)"')
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        _add_timeout(sp)
        if name == only or every:
            mod = importlib.import_module(module)
            mod.configure(sp)
            sp.set_defaults(_run=mod.run)
            p.chosen = sp
    return p


def _add_timeout(sp) -> None:
    from .. import deadline
    sp.add_argument("--timeout", type=deadline.parse_seconds, default=deadline.DEFAULT_SECONDS,
                    metavar="S", help="stop after S seconds with one line and exit code 2 "
                    f"(default {deadline.DEFAULT_SECONDS:g}; none: no limit)")


def main(argv: list[str] | None = None) -> int:
    from .. import deadline
    from .output import say
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)
    if sys.stdout is None:                 # started with stdout closed (>&-)
        sys.stdout = _ClosedStdout()
    try:
        parser = _build(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if getattr(args, "print_completion", None):
            import shtab
            sys.stdout.write(shtab.complete(_build(every=True), args.print_completion))
            return 0
        if not getattr(args, "_run", None):
            parser.print_help()
            return 0 if not argv or "-h" in argv or "--help" in argv else 2
        from ..numbers import conversion_limit
        with deadline.limit(args.timeout, args.command), conversion_limit():
            held = _held_output(args._run, args)
            sys.stdout.write(held.text)
            sys.stdout.flush()             # a full disk shows here, not at exit
        return held.code
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except deadline.Exceeded as e:
        say(str(e))
        return 2
    except BrokenPipeError:                # the reader went away: the conventional silence
        _silence_stdout()
        return 141
    except Exception as e:  # noqa: BLE001 - the one place errors become one line
        e.__traceback__ = None             # its frames may hold the memory that ran out
        return _one_line(e, deadline.place())


class _Held:
    def __init__(self, code: int, text: str):
        self.code, self.text = code, text


def _held_output(run, args) -> _Held:
    """Run the command with its standard output held in memory: all of it, or none."""
    real, held = sys.stdout, io.StringIO()
    sys.stdout = held
    try:
        code = int(run(args) or 0)
    finally:
        sys.stdout = real
    return _Held(code, held.getvalue())


def _one_line(e: Exception, where: str | None) -> int:
    """The message and exit code for an error that ends the command."""
    from ..errors import SymattnError
    from .output import say
    if isinstance(e, SymattnError):
        say(str(e) if e.where or not where else f"{where}: {e}")
        return 2
    at = f"{where}: " if where else ""
    from ..numbers import too_many_digits
    if too_many_digits(e):
        say(f"{at}{too_many_digits(e)}")
        return 2
    if isinstance(e, (RecursionError, MemoryError)):
        say(f"{at}input too large or too deeply nested ({type(e).__name__}); "
            "split it, or run with more memory")
        return 2
    if isinstance(e, OSError) and e.errno is not None:      # stdout: full disk, I/O error
        _silence_stdout()
        if e.filename:
            say(f"{e.filename}: cannot read or write: {e.strerror or e}")
        else:
            say(f"cannot write the output (stdout): {e.strerror or e}")
        return 2
    say(f"{at}internal error, please report: {type(e).__name__}: {e}")
    return 3


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush cannot fail again."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


class _ClosedStdout:
    """stdout when the process has none: writing to it is the error a closed file gives."""

    def write(self, text: str) -> int:
        import errno
        raise OSError(errno.EBADF, "stdout is closed")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
