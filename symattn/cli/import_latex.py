"""`symattn import FILE|-`: the matrices of a LaTeX fragment as a spec's [inputs] table."""

from __future__ import annotations

import sys

MAX_BYTES = 4_000_000


def configure(p):
    p.add_argument("source", metavar="FILE",
                   help="a LaTeX fragment (an article's text, a .tex or .md file), or - for stdin")
    p.add_argument("-o", "--output", metavar="FILE", help="write the TOML snippet to FILE")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")


def read_source(path: str) -> tuple[str, str]:
    """The text of FILE (or stdin for ``-``) and the name to cite it by."""
    from ..errors import ParseError, SpecError, LimitError
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        name = "<stdin>"
    else:
        from ..spec.load import read_regular
        data = read_regular(path, MAX_BYTES, "a LaTeX fragment")
        name = path
    if len(data) > MAX_BYTES:
        raise LimitError(f"more than {MAX_BYTES} bytes", where=f"{name}:1",
                         hint="raise symattn.cli.import_latex.MAX_BYTES on purpose")
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParseError(f"invalid UTF-8 at byte {e.start}", where=f"{name}:{line}") from None


def run(args) -> int:
    from ..spec.latex_import import import_report
    from .output import say
    from .. import deadline
    deadline.check(f"{args.source}:1")                  # the place a MemoryError names
    text, name = read_source(args.source)
    snippet, skipped = import_report(text, name)
    for line, matrix, why in skipped:          # the others are kept; say which were not
        say(f"{name}:{line}: skipped {matrix}, not all numbers ({why})")
    if args.output:
        from .output import write_output
        write_output(args.output, snippet, args.force)
        from .output import say
        say(f"wrote {args.output}", prefix="")
    else:
        sys.stdout.write(snippet)
    return 0
