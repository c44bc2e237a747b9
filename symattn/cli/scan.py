"""`symattn scan SPEC --article FILE -o OUT.toml`: the spec with the claims found in the
article written out as ``[[claims]]``, for a user to review and keep."""

from __future__ import annotations

import json


def configure(p):
    p.add_argument("spec", metavar="SPEC", help="the spec (inputs and steps; claims optional)")
    p.add_argument("--article", action="append", required=True, metavar="FILE",
                   help="the article the example comes from (repeat for several)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.toml", help="where to write")
    p.add_argument("--force", action="store_true", help="overwrite OUT.toml if it exists")


def run(args) -> int:
    from ..article.check import check_articles, read
    from ..spec.load import load, read_text
    from .output import write_output, say
    spec = load(args.spec)
    result = check_articles([spec], read(args.article), diagnose=False)
    found = [r for r in result.records if r.found]
    text = read_text(args.spec).rstrip("\n") + "\n" + claims_toml(spec, found)
    write_output(args.output, text, force=args.force)
    say(f"{len(found)} printed numbers found and written as claims to {args.output}; "
        f"{len(result.unmatched)} left unmatched", prefix="")
    return 0


def claims_toml(spec, records) -> str:
    """``[[claims]]`` tables, one per found number, in article order."""
    out = ["", "# ---- claims found in the article by `symattn scan` (review them) ----"]
    t = spec.tensors
    for r in sorted(records, key=lambda r: (r.line, r.column or 0)):
        at = [_index(t[r.step].rows, r.at[0]), _index(t[r.step].cols, r.at[1])]
        out += ["", "[[claims]]", f"step = {_s(r.step)}", f"at = [{_v(at[0])}, {_v(at[1])}]",
                f"printed = {_s(r.printed)}", f"line = {r.line}"]
    return "\n".join(out) + "\n"


def _index(labels, label: str):
    if labels and list(labels).count(label) == 1:
        return label
    return int(label) if not labels else list(labels).index(label)


def _s(text: str) -> str:
    return json.dumps(str(text), ensure_ascii=True)     # a TOML basic string, every character escaped


def _v(x) -> str:
    return str(x) if isinstance(x, int) else _s(x)
