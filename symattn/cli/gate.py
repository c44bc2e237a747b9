"""`symattn check` in CI: ``--format github`` (workflow-command annotations on the lines of
the article or spec), ``--junit-xml FILE`` and ``--sarif FILE`` (written beside the usual
output; an existing FILE only with ``--force``). The exit status is the check's: 0 every
printed number right, 1 wrong numbers, 2 unusable input."""

from __future__ import annotations

import sys


EXIT_STATUSES = ("exit status: 0 every printed number is correct, carried or consistent; 1 a "
                 "printed number is wrong; 2 unusable input (a spec, an article or an option)")


def configure(p) -> None:
    p.epilog = EXIT_STATUSES
    g = p.add_argument_group("continuous integration")
    g.add_argument("--format", choices=("text", "github"), default="text",
                   help="github: one ::error/::notice workflow command per number that is not "
                        "correct, then the summary (GitHub Actions shows them on the lines)")
    g.add_argument("--junit-xml", metavar="FILE", help="also write the verdicts as JUnit XML")
    g.add_argument("--sarif", metavar="FILE", help="also write the verdicts as SARIF 2.1.0 "
                   "(GitHub code scanning)")


def write_files(args, records: list) -> None:
    """The --junit-xml and --sarif files."""
    from .output import write_output
    from ..render import annotations
    if args.junit_xml:
        write_output(args.junit_xml, annotations.junit(records, args.article), force=args.force)
    if args.sarif:
        from ..about import version
        write_output(args.sarif, annotations.sarif(records, args.article, version()), force=args.force)


def github(args, records: list, summary_line: str) -> None:
    from ..render import annotations
    sys.stdout.write(annotations.github(records, args.article) + summary_line + "\n")
