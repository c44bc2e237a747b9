"""`symattn report SPEC [--article FILE ...] -o report.html`: one self-contained HTML file.
`symattn report ARTICLE -o report.html`: the example inferred from the article (as `check
ARTICLE` infers it), its steps and their derivations shown."""

from __future__ import annotations



def configure(p):
    p.add_argument("paths", nargs="*", metavar="SPEC",
                   help="spec files, folders or bundled example names (default: the bundled corpus); "
                        "an article: its example inferred")
    p.add_argument("--article", action="append", default=[], metavar="FILE",
                   help="the article a spec's 'source' names: its text is shown with every "
                        "checked number marked in place (repeat for several)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--title", default=None, help="the page title")
    p.add_argument("--no-diagnosis", action="store_true", help="skip the search for the mistake")


def run(args) -> int:
    from .check import spec_paths, load_specs, resolve_spec
    from .inferred import article_files, infer_specs, split
    from .output import write_output, say
    from ..render.html import collect, Page
    given, to_infer = split([resolve_spec(p) for p in args.paths])
    specs = load_specs(spec_paths(given)) if given or not to_infer else []   # check's errors
    articles = [str(a) for a in args.article]
    if to_infer:                             # an article alone: its example inferred, as check does
        inferred = infer_specs(to_infer)
        specs += inferred
        articles += [a for a in article_files(inferred) if a not in articles]
    from .terminal import working
    with working("building the report"):
        examples, read = collect(specs, articles, diagnose=not args.no_diagnosis)
        title = args.title or ("symattn report: " + (examples[0].spec.id if len(examples) == 1
                                                     else f"{len(examples)} examples"))
        text = Page(examples, read).html(title)
    write_output(args.output, text, args.force)
    say(f"wrote {args.output} ({len(specs)} example{'s' if len(specs) != 1 else ''}, "
        f"{len(text) // 1024} kB)", prefix="")
    return 1 if any(r.verdict == "wrong" for e in examples for r in e.records) else 0   # as check
