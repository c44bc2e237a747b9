"""`symattn check --article A --fix`: write the article with its wrong numbers corrected.

``--fix -o FIXED`` writes the corrected article to a new file; ``--fix --in-place``
replaces the article itself (atomically), only when git tracks it (the old text is one
``git checkout`` away) or with ``--force``; ``--diff`` prints the unified diff and writes
nothing. ``--fix-carried`` also replaces the carried numbers (printed from rounded
intermediates) by the exact value's print. The exit status stays the check's: 1 when the
article as given prints wrong numbers.
"""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

from ..errors import SpecError
from .output import say, write_output


def configure(p) -> None:
    g = p.add_argument_group("fixing the article (with --article)")
    g.add_argument("--fix", action="store_true",
                   help="write the article with every wrong number replaced by its correct print "
                        "(with -o FILE or --in-place)")
    g.add_argument("-o", "--output", metavar="FILE", help="with --fix: the file to write")
    g.add_argument("--in-place", action="store_true",
                   help="with --fix: replace the article itself (only if git tracks it, or with --force)")
    g.add_argument("--force", action="store_true",
                   help="replace FILE if it exists; --in-place on an article git does not track")
    g.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff and write nothing")
    g.add_argument("--fix-carried", action="store_true",
                   help="fix carried numbers too (by the print of the exact value)")


def wanted(args) -> bool:
    """Does the command fix (or show the fixes)? Raises SpecError for flags that do not fit."""
    fixing = args.fix or args.diff
    if not fixing:
        if args.output or args.in_place or args.fix_carried:
            raise SpecError("-o, --in-place and --fix-carried go with --fix",
                            hint="add --fix (or --diff to see the changes)")
        return False
    if not args.article:
        raise SpecError("--fix and --diff need the article to fix", hint="add --article FILE")
    if args.fix and not args.diff and bool(args.output) == bool(args.in_place):
        raise SpecError("--fix writes to -o FILE or --in-place: give one of them",
                        hint="or --diff to see the changes")
    if args.output and len(args.article) > 1:
        raise SpecError("-o names one file, but several articles are given", hint="use --in-place")
    return True


def run(args, records: list) -> None:
    """Fix (or diff) each article of ``args.article`` with ``records`` (all the check's)."""
    from ..article.fix import fixed_bytes, wanted as to_fix
    for path in args.article:
        mine = _records_of(path, records, len(args.article))
        old, new, plan = fixed_bytes(path, mine, to_fix(mine, args.fix_carried))
        for r, why in plan.skipped:
            say(f"{path}:{r.line}: not fixed: {r.printed} ({why})")
        if args.diff:
            sys.stdout.writelines(_diff(path, old, new))
            continue
        target = path if args.in_place else args.output
        if args.in_place and not args.force and not _tracked(path):
            raise SpecError("git does not track this article, so --in-place could lose it",
                            where=path, hint="commit it first, write with -o FILE, or pass --force")
        if new != old or not args.in_place:
            write_output(target, new, force=args.force or args.in_place)
        n = len(plan.fixes)
        say(f"{path}: {n} number{'' if n == 1 else 's'} fixed"
            + ("" if args.in_place else f", written to {target}"))


def _records_of(path: str, records: list, articles: int) -> list:
    name = Path(path).name
    return [r for r in records if (r.source and Path(r.source).name == name)
            or (articles == 1 and not r.source)]


def _diff(path: str, old: bytes, new: bytes) -> list[str]:
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, f"a/{path.lstrip('/')}", f"b/{path.lstrip('/')}"))
    return [x if x.endswith(("\n", "\r")) else x + "\n\\ No newline at end of file\n" for x in lines]


def _tracked(path: str) -> bool:
    """Does git track the file (so that its last committed text can be restored)?"""
    p = Path(path).resolve()
    try:
        done = subprocess.run(["git", "-C", str(p.parent), "ls-files", "--error-unmatch", "--", p.name],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
