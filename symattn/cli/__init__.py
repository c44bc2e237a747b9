"""The `symattn` command: a dispatcher that imports a subcommand only when it runs.

Every SymattnError becomes one line on stderr and exit code 2; nothing prints a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "check": ("symattn.cli.check", "verdict for every printed number of specs (default: the bundled corpus)"),
    "new": ("symattn.cli.new", "start a spec from a template"),
    "latex": ("symattn.cli.latex", "every step of a spec as LaTeX with the numbers substituted"),
    "import": ("symattn.cli.import_latex", "read the matrices of a LaTeX fragment into spec inputs"),
    "prove": ("symattn.cli.prove", "derive the identities the articles state (proofs/)"),
    "grad": ("symattn.cli.grad", "exact gradient of a loss of a spec with respect to an input"),
    "report": ("symattn.cli.report", "one self-contained HTML report: numbers marked, errors by cause, heatmaps"),
    "sweep": ("symattn.cli.sweep", "the exact curve of entries of a step as one input moves"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _build(only: str | None = None) -> argparse.ArgumentParser:
    p = _Parser(prog="symattn", description="Exact-arithmetic verifier for hand-computed "
                "Transformer worked examples.")
    p.add_argument("--version", action="version", version="symattn 0.1.0")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            mod = importlib.import_module(module)
            mod.configure(sp)
            sp.set_defaults(_run=mod.run)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((a for a in argv if not a.startswith("-")), None)
    try:
        parser = _build(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help()
            return 0 if not argv or "-h" in argv or "--help" in argv else 2
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("symattn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - the one place errors become one line
        from ..errors import SymattnError
        if isinstance(e, SymattnError):
            print(f"symattn: {e}", file=sys.stderr)
            return 2
        if isinstance(e, (RecursionError, MemoryError)):
            print(f"symattn: input too large or too deeply nested ({type(e).__name__})", file=sys.stderr)
            return 2
        print(f"symattn: internal error, please report: {type(e).__name__}: {e}", file=sys.stderr)
        return 3
